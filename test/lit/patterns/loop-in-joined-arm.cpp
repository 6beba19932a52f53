// A recursive-lambda loop in the body of a named continuation that joins
// inside an arm: the arm's chain ends with the loop, so the step yields the
// function's result, not the join's parameter type (fuzz seed 1 program 818:
// a step typed promise<int> returned the loop's promise<>, which did not
// compile in the chain styles).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

void loop_in_arm(bool a, bool b, asyncshift::callback<> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    if (a) {
      auto next = [=](asyncshift::error err, int n) {
        if (err) return done(err);
        auto step = [=](auto &self, int i) -> void {
          if (i == n) return done({});
          write_int(i, v, [=](asyncshift::error err) {
            if (err) return done(err);
            self(self, i + 1);
          });
        };
        step(step, 0);
      };
      if (b) {
        read_int(2, [=](asyncshift::error err, int w) { next(err, w); });
      } else {
        read_int(3, [=](asyncshift::error err, int w) { next(err, w + 1); });
      }
      return;
    }
    done({});
  });
}
// PROMISE-LABEL: asyncshift::promise<> loop_in_arm(bool a, bool b) {
// PROMISE: .then([=](int v) -> asyncshift::promise<> {
