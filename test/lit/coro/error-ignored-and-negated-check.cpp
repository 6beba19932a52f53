// An unnamed error parameter is a deliberate "ignore": the await settles
// instead of throwing. `if (!err) {...} else {...}` that reads the error keeps it
// as a value.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %flags > %t.out.cpp 2> %t.err
// RUN: count 0 < %t.err
// RUN: FileCheck %s --input-file=%t.out.cpp
// RUN: %gxx %t.out.cpp
// RUN: %clangxx %t.out.cpp
#include "ops.h"

void best_effort(asyncshift::callback<int> done) {
  flush([=](asyncshift::error) {
    read_int(1, [=](asyncshift::error err, int v) {
      if (!err) {
        return done({}, v);
      } else {
        log_line(err.message());
        return done(err);
      }
    });
  });
}

// ---- expected output
// CHECK-LABEL: asyncshift::task<int> best_effort() {
// CHECK-NEXT: co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify([&](auto cb) { flush(cb); }));
// CHECK-NEXT: auto [err, v] = co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(1, cb); }));
// CHECK-NEXT: if (!err) {
// CHECK-NEXT: co_return v;
// CHECK-NEXT: } else {
// CHECK-NEXT: log_line(err.message());
// CHECK-NEXT: throw asyncshift::error_exception(err);
// CHECK-NEXT: }
// CHECK-NEXT: }
