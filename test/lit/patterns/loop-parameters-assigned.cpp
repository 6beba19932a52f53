// The recursive-lambda loop in the coroutine styles: the recursive call's
// arguments become the loop parameters' new values. A parameter passed on
// as itself is left alone, and each new value goes straight into its
// parameter unless it reads a parameter assigned before it (a swap): only
// then are all new values computed first, into `_next` temporaries. Every
// parameter went through a temporary before.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
#include "ops.h"

void sum_to(int limit, asyncshift::callback<int> done) {
  auto step = [=](auto &self, int i, int total, int n) -> void {
    if (i == n) return done({}, total);
    read_int(i, [=](asyncshift::error err, int v) {
      if (err) return done(err);
      self(self, i + 1, total + v, n);
    });
  };
  step(step, 0, 0, limit);
}

void fib(int limit, asyncshift::callback<int> done) {
  auto step = [=](auto &self, int i, int a, int b) -> void {
    if (i == limit) return done({}, a);
    read_int(i, [=](asyncshift::error err, int v) {
      if (err) return done(err);
      self(self, i + 1, b, a + b + v);
    });
  };
  step(step, 0, 0, 1);
}
// CORO-LABEL: sum_to(int limit) {
// CORO:       i = i + 1;
// CORO-NEXT:  total = total + v;
// CORO-NEXT:  }
// CORO-LABEL: fib(int limit) {
// CORO:       auto i_next = i + 1;
// CORO-NEXT:  auto a_next = b;
// CORO-NEXT:  auto b_next = a + b + v;
// CORO-NEXT:  i = i_next;
// CORO-NEXT:  a = a_next;
// CORO-NEXT:  b = b_next;
// CORO-NEXT:  }
