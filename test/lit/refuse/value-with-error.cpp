// A handler called with an error and a value the caller may read: promise,
// future and coro carry only the error, so those styles refuse; coro-values
// keeps both. Forwarding a continuation's own (err, v), or a default value,
// converts everywhere (a failing leaf passes a default value with its error).
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not %asyncshift --style=future %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.values.cpp
// RUN: FileCheck %s --check-prefix=VALUES --input-file=%t.values.cpp
// RUN: %gxx %t.values.cpp && %clangxx %t.values.cpp
#include "ops.h"

void partial(int key, asyncshift::callback<std::string> done) {
  fetch(std::to_string(key), [=](asyncshift::error err, std::string body) {
    // CHECK: :[[@LINE+1]]:21: error: the handler gets an error and a value here, and the caller may read that value; {{.*}} [asyncshift-value-with-error]
    if (err) return done(err, "partial:" + std::to_string(key));
    done({}, body);
  });
}
// VALUES-LABEL: asyncshift::task<asyncshift::result<std::string>> partial(int key) {
// VALUES: return {err, "partial:" + std::to_string(key)};

// These convert in every style.
void forwarded(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) { done(err, v); });
}
void with_default(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err, 0);
    done({}, v + 1);
  });
}
