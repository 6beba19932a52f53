// A leaf operation's value read where its error is set. By the callback
// convention (SPEC §3) a failing operation passes its error alone, so the
// value there is a default one, and that is what every converted style reads;
// an operation that passes a value with its error (`cb(error("503"), body)`)
// would lose it (a rejected promise, a failed future, an exception and a
// settled result carry only the error). So every style converts, with a
// warning at each such read. Forwarding it with its own error
// (`done(err, v)`) and reading it on success are not reported.
// RUN: %asyncshift --style=coro %s -o %t.coro.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %asyncshift --style=coro-values %s -o %t.values.cpp -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %asyncshift --style=promise %s -o %t.promise.cpp -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %asyncshift --style=future %s -o %t.future.cpp -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %gxx %t.values.cpp && %clangxx %t.promise.cpp
#include "ops.h"

#include <cstdio>

void logged(int key, asyncshift::callback<std::size_t> done) {
  fetch(std::to_string(key), [=](asyncshift::error err, std::string body) {
    if (err) {
      // CHECK: :[[@LINE+1]]:7: warning: 'body' is read here where 'err' is set: converted, it holds a default value here (a failing operation passes its error alone, `cb(err)`); a value this operation passes with its error is lost{{.*}} [asyncshift-value-read-with-error]
      std::printf("failed after %zu bytes\n", body.size());
      return done(err);
    }
    done({}, body.size());
  });
}

void nested(int key, asyncshift::callback<std::string> done) {
  fetch(std::to_string(key), [=](asyncshift::error err, std::string body) {
    if (err) {
      // CHECK: :[[@LINE+1]]:14: warning: 'body' is read here where 'err' is set{{.*}} [asyncshift-value-read-with-error]
      return fetch(body, [=](asyncshift::error, std::string) { done(err); });
    }
    done({}, body);
  });
}

void negated(int key, asyncshift::callback<std::string> done) {
  fetch(std::to_string(key), [=](asyncshift::error err, std::string body) {
    if (!err) return done({}, body);
    // CHECK: :[[@LINE+1]]:5: warning: 'body' is read here where 'err' is set{{.*}} [asyncshift-value-read-with-error]
    std::printf("%s\n", body.c_str());
    done(err, "");
  });
}

// Not reported.
void forwarded(int key, asyncshift::callback<std::string> done) {
  fetch(std::to_string(key), [=](asyncshift::error err, std::string body) {
    if (err) return done(err, body);
    done({}, body + "!");
  });
}
void on_success(int key, asyncshift::callback<std::size_t> done) {
  fetch(std::to_string(key), [=](asyncshift::error err, std::string body) {
    if (err) return done(err);
    std::printf("%zu bytes\n", body.size());
    done({}, body.size());
  });
}
