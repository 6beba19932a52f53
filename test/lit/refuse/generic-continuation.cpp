// A continuation written as a generic lambda ('auto' parameters) is refused
// with its location: its body is a template, so the types the rewritten code
// needs are not known. Without the refusal such a function was left
// unconverted, exit status 0, nothing said. A generic lambda that does not
// reach the handler (fire-and-forget) is kept as written.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
#include "ops.h"

void value_auto(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, auto v) {
    // CHECK: :[[@LINE-1]]:15: error: continuation is a generic lambda ('auto' parameters); write its parameter types, as in (asyncshift::error err, T value), to convert it [asyncshift-generic-continuation]
    if (err) return done(err);
    done({}, v + 1);
  });
}

void all_auto(asyncshift::callback<> done) {
  flush([=](auto err) { done(err); });
  // CHECK: :[[@LINE-1]]:9: error: continuation is a generic lambda {{.*}}[asyncshift-generic-continuation]
}

void named_auto(asyncshift::callback<int> done) {
  auto next = [=](auto err, auto v) {
    // CHECK: :[[@LINE-1]]:15: error: continuation is a generic lambda {{.*}}[asyncshift-generic-continuation]
    if (err) return done(err);
    done({}, v);
  };
  read_int(2, next);
}

// Not reported: converts, and the detached generic lambda stays as written.
void detached_auto(asyncshift::callback<> done) {
  flush([](auto err) { log_line(err ? "failed" : "flushed"); });
  flush(done);
}
