// Pattern 4 (named continuation joined from both arms of an `if`): the
// continuation's body follows the `if`; its parameter is assigned in each arm,
// and the error it receives from the read propagates like any other.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %flags > %t.out.cpp 2> %t.err
// RUN: count 0 < %t.err
// RUN: FileCheck %s --input-file=%t.out.cpp
// RUN: %gxx %t.out.cpp
// RUN: %clangxx %t.out.cpp
#include "ops.h"

void open_or_create(bool exists, int id, asyncshift::callback<int> done) {
  auto afterOpen = [=](asyncshift::error err, int handle) {
    if (err) return done(err);
    write_int(handle, id, [=](asyncshift::error err) {
      if (err) return done(err);
      done({}, handle);
    });
  };
  if (exists) {
    return afterOpen({}, id);
  } else {
    read_int(id, [=](asyncshift::error err, int created) { afterOpen(err, created + 1); });
  }
}

// ---- expected output
// CHECK-LABEL: asyncshift::task<asyncshift::result<int>> open_or_create(bool exists, int id) {
// CHECK-NEXT: asyncshift::error err;
// CHECK-NEXT: int handle{};
// CHECK-NEXT: if (exists) {
// CHECK-NEXT: err = {};
// CHECK-NEXT: handle = id;
// CHECK-NEXT: } else {
// CHECK-NEXT: auto [err_2, created] = co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(id, cb); }));
// CHECK-NEXT: err = err_2;
// CHECK-NEXT: handle = created + 1;
// CHECK-NEXT: }
// CHECK-NEXT: if (err) {
// CHECK-NEXT: co_return err;
// CHECK-NEXT: }
// CHECK-NEXT: auto err_3 = co_await asyncshift::settle(
// CHECK-NEXT: asyncshift::promisify([&](auto cb) { write_int(handle, id, cb); }));
// CHECK-NEXT: if (err_3) {
// CHECK-NEXT: co_return err_3;
// CHECK-NEXT: }
// CHECK-NEXT: co_return {{[{][{]}}}, handle};
// CHECK-NEXT: }
