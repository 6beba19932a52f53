// Pattern 10 (forwarding): `op(args, done)` in tail position returns what op
// returns; an async function of the same file is awaited directly.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %flags > %t.out.cpp 2> %t.err
// RUN: count 0 < %t.err
// RUN: FileCheck %s --input-file=%t.out.cpp
// RUN: %gxx %t.out.cpp
// RUN: %clangxx %t.out.cpp
#include "ops.h"

void store(int key, int v, asyncshift::callback<> done) {
  log_line("storing");
  write_int(key, v, done);
}

void double_read(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    read_int(v, done);
  });
}

void store_then_flush(int key, asyncshift::callback<> done) {
  store(key, 1, [=](asyncshift::error err) {
    if (err) return done(err);
    flush(done);
  });
}

// ---- expected output
// CHECK-LABEL: asyncshift::task<asyncshift::error> store(int key, int v) {
// CHECK-NEXT: log_line("storing");
// CHECK-NEXT: co_return co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify([&](auto cb) { write_int(key, v, cb); }));
// CHECK-NEXT: }
// CHECK-LABEL: asyncshift::task<asyncshift::result<int>> double_read(int key) {
// CHECK-NEXT: auto [err, v] = co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CHECK-NEXT: if (err) {
// CHECK-NEXT: co_return err;
// CHECK-NEXT: }
// CHECK-NEXT: co_return co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(v, cb); }));
// CHECK-NEXT: }
// CHECK-LABEL: asyncshift::task<asyncshift::error> store_then_flush(int key) {
// CHECK-NEXT: auto err = co_await store(key, 1);
// CHECK-NEXT: if (err) {
// CHECK-NEXT: co_return err;
// CHECK-NEXT: }
// CHECK-NEXT: co_return co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify([&](auto cb) { flush(cb); }));
// CHECK-NEXT: }
