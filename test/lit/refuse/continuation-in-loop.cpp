// A named continuation called from two places inside a recursive-lambda
// loop (one call, ending the loop, converts: see the second function).
// Refused, and the diagnostic says so (it said the continuation was "used
// other than by calling it").
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
#include "ops.h"

void drain(int n, asyncshift::callback<int> done) {
  auto finish = [=](asyncshift::error err, int total) {
    if (err)
      return done(err);
    write_int(0, total, [=](asyncshift::error err) { done(err, total); });
  };
  auto loop = [=](auto &self, int i, int total) -> void {
    if (i == n)
      // CHECK: :[[@LINE+1]]:14: error: named continuation 'finish' is called inside a recursive-lambda loop in a way the loop cannot convert (a loop may call a named continuation from one place, to end it); cannot convert (call 'finish' from one place in the loop, and end its other paths with the handler) [asyncshift-escaping-continuation]
      return finish({}, total);
    read_int(i, [=](asyncshift::error err, int v) {
      if (err)
        return finish(err, 0);
      self(self, i + 1, total + v);
    });
  };
  loop(loop, 0, 0);
}

void drain_once(int n, asyncshift::callback<int> done) {
  auto finish = [=](asyncshift::error err, int total) {
    if (err)
      return done(err);
    write_int(0, total, [=](asyncshift::error err) { done(err, total); });
  };
  auto loop = [=](auto &self, int i, int total) -> void {
    if (i == n)
      return finish({}, total);
    read_int(i, [=](asyncshift::error err, int v) {
      if (err)
        return done(err);
      self(self, i + 1, total + v);
    });
  };
  loop(loop, 0, 0);
}
