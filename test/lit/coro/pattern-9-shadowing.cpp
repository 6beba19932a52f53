// Pattern 9 (sync statements, variables crossing continuations): an inner
// continuation that reuses a name gets a fresh one once flattened.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %flags > %t.out.cpp 2> %t.err
// RUN: count 0 < %t.err
// RUN: FileCheck %s --input-file=%t.out.cpp
// RUN: %gxx %t.out.cpp
// RUN: %clangxx %t.out.cpp
#include "ops.h"

void twice(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    int total = v;
    read_int(v, [=](asyncshift::error err, int v) {
      if (err) return done(err);
      int total2 = total + v;
      done({}, total2);
    });
  });
}

// ---- expected output
// CHECK-LABEL: asyncshift::task<int> twice() {
// CHECK-NEXT: auto v =
// CHECK-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(1, cb); });
// CHECK-NEXT: int total = v;
// CHECK-NEXT: auto v_2 =
// CHECK-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(v, cb); });
// CHECK-NEXT: int total2 = total + v_2;
// CHECK-NEXT: co_return total2;
// CHECK-NEXT: }
