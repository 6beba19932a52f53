// Pattern 8 (fire-and-forget): an async call whose continuation ignores its
// outcome is a plain statement that starts work; it is kept as written.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %flags > %t.out.cpp 2> %t.err
// RUN: count 0 < %t.err
// RUN: FileCheck %s --input-file=%t.out.cpp
// RUN: %gxx %t.out.cpp
// RUN: %clangxx %t.out.cpp
#include "ops.h"

void save(connection conn, int v, asyncshift::callback<> done) {
  write_int(1, v, [=](asyncshift::error err) {
    if (err) return done(err);
    conn.send("saved", [](asyncshift::error) {});
    log_line("sent");
    done({});
  });
}

// ---- expected output
// CHECK-LABEL: asyncshift::task<> save(connection conn, int v) {
// CHECK-NEXT: co_await asyncshift::promisify([&](auto cb) { write_int(1, v, cb); });
// CHECK-NEXT: conn.send("saved", [](asyncshift::error) {});
// CHECK-NEXT: log_line("sent");
// CHECK-NEXT: }
