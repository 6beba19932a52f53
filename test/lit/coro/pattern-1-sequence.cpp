// Pattern 1 (sequence): a continuation nested in a continuation, any depth,
// becomes the statement after a co_await; the nesting that only sequenced goes.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %flags > %t.out.cpp 2> %t.err
// RUN: count 0 < %t.err
// RUN: FileCheck %s --input-file=%t.out.cpp
// RUN: %gxx %t.out.cpp
// RUN: %clangxx %t.out.cpp
#include "ops.h"

void sum_three(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    read_int(2, [=](asyncshift::error err, int b) {
      if (err) return done(err);
      read_int(a + b, [=](asyncshift::error err, int c) {
        if (err) return done(err);
        done({}, a + b + c);
      });
    });
  });
}

// ---- expected output
// CHECK-LABEL: asyncshift::task<int> sum_three() {
// CHECK-NEXT: auto a =
// CHECK-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(1, cb); });
// CHECK-NEXT: auto b =
// CHECK-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(2, cb); });
// CHECK-NEXT: auto c = co_await asyncshift::promisify<int>(
// CHECK-NEXT: [&](auto cb) { read_int(a + b, cb); });
// CHECK-NEXT: co_return a + b + c;
// CHECK-NEXT: }
