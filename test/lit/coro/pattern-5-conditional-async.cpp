// Pattern 5 (conditional async work) and pattern 3 (completion in branches):
// one arm awaits, the other completes at once; `done({}, v)` is co_return.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %flags > %t.out.cpp 2> %t.err
// RUN: count 0 < %t.err
// RUN: FileCheck %s --input-file=%t.out.cpp
// RUN: %gxx %t.out.cpp
// RUN: %clangxx %t.out.cpp
#include "ops.h"

void cached_read(bool cached, int key, asyncshift::callback<int> done) {
  if (cached) {
    return done({}, 0);
  } else {
    read_int(key, [=](asyncshift::error err, int v) {
      if (err) return done(err);
      done({}, v * 2);
    });
  }
}

void maybe_flush(bool dirty, asyncshift::callback<> done) {
  if (dirty) {
    flush([=](asyncshift::error err) {
      if (err) return done(err);
      done({});
    });
    return;
  }
  done({});
}

// ---- expected output
// CHECK-LABEL: asyncshift::task<int> cached_read(bool cached, int key) {
// CHECK-NEXT: if (cached) {
// CHECK-NEXT: co_return 0;
// CHECK-NEXT: } else {
// CHECK-NEXT: auto v = co_await asyncshift::promisify<int>(
// CHECK-NEXT: [&](auto cb) { read_int(key, cb); });
// CHECK-NEXT: co_return v * 2;
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-LABEL: asyncshift::task<> maybe_flush(bool dirty) {
// CHECK-NEXT: if (dirty) {
// CHECK-NEXT: co_await asyncshift::promisify([&](auto cb) { flush(cb); });
// CHECK-NEXT: co_return;
// CHECK-NEXT: }
// CHECK-NEXT: }
