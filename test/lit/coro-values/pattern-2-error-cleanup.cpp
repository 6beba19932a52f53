// Pattern 2 (error propagation with cleanup): `if (err) { cleanup; return
// done(err); }` becomes one try/catch around the awaits that share the cleanup;
// the first await, which propagates without cleanup, stays outside it.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %flags > %t.out.cpp 2> %t.err
// RUN: count 0 < %t.err
// RUN: FileCheck %s --input-file=%t.out.cpp
// RUN: %gxx %t.out.cpp
// RUN: %clangxx %t.out.cpp
#include "ops.h"

void transfer(connection conn, int from, int to, asyncshift::callback<> done) {
  read_int(from, [=](asyncshift::error err, int balance) {
    if (err) return done(err);
    write_int(to, balance, [=](asyncshift::error err) {
      if (err) {
        conn.close();
        log_line("rolled back");
        return done(err);
      }
      write_int(from, 0, [=](asyncshift::error err) {
        if (err) {
          conn.close();
          log_line("rolled back");
          return done(err);
        }
        done({});
      });
    });
  });
}

// ---- expected output
// CHECK-LABEL: asyncshift::task<asyncshift::error> transfer(connection conn, int from,
// CHECK-NEXT: int to) {
// CHECK-NEXT: auto [err, balance] = co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(from, cb); }));
// CHECK-NEXT: if (err) {
// CHECK-NEXT: co_return err;
// CHECK-NEXT: }
// CHECK-NEXT: auto err_2 = co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify([&](auto cb) { write_int(to, balance, cb); }));
// CHECK-NEXT: if (err_2) {
// CHECK-NEXT: conn.close();
// CHECK-NEXT: log_line("rolled back");
// CHECK-NEXT: co_return err_2;
// CHECK-NEXT: }
// CHECK-NEXT: auto err_3 = co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify([&](auto cb) { write_int(from, 0, cb); }));
// CHECK-NEXT: if (err_3) {
// CHECK-NEXT: conn.close();
// CHECK-NEXT: log_line("rolled back");
// CHECK-NEXT: co_return err_3;
// CHECK-NEXT: }
// CHECK-NEXT: co_return {};
// CHECK-NEXT: }
