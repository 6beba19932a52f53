// Comments inside a leading error check that the style folds into its
// await or chain (`if (err) { /* why */ return done(err); }`, with or
// without cleanup before the return): a cleanup statement's comment stays on
// it, wherever the cleanup goes (on_error, catch), and the comments around
// the `return done(err);` go with the cleanup, or, with none, to where the
// success path goes on. All were dropped before.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=CHAIN --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp
// RUN: FileCheck %s --check-prefix=CHAIN --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// coro-values prints the checks as written, comments in place.
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp
// RUN: FileCheck %s --check-prefix=VALUES --input-file=%t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
#include "ops.h"

void reserve(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int a) {
    if (err) {
      // the read failed: nothing was written yet
      return done(err);
    }
    write_int(key, a, [=](asyncshift::error err) {
      if (err) {
        // undo the reservation
        log_line("rollback"); // cheap
        return done(err);
        // (the error is the caller's)
      }
      done({}, a);
    });
  });
}
// CHAIN-LABEL: reserve(int key) {
// CHAIN:      .then([=](int a) {
// CHAIN-NEXT: state->a = a;
// CHAIN-NEXT: // the read failed: nothing was written yet
// CHAIN-NEXT: return asyncshift::promisify(
// CHAIN:      asyncshift::on_error([=](const asyncshift::error &) {
// CHAIN-NEXT: // undo the reservation
// CHAIN-NEXT: log_line("rollback"); // cheap
// CHAIN-NEXT: // (the error is the caller's)
// CHAIN-NEXT: }));

// CORO-LABEL: reserve(int key) {
// CORO:      co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: // the read failed: nothing was written yet
// CORO-NEXT: try {
// CORO:      } catch (const asyncshift::error_exception &) {
// CORO-NEXT: // undo the reservation
// CORO-NEXT: log_line("rollback"); // cheap
// CORO-NEXT: // (the error is the caller's)
// CORO-NEXT: throw;

// VALUES-LABEL: reserve(int key) {
// VALUES:      if (err) {
// VALUES-NEXT: // the read failed: nothing was written yet
// VALUES-NEXT: co_return err;
// VALUES:      if (err_2) {
// VALUES-NEXT: // undo the reservation
// VALUES-NEXT: log_line("rollback"); // cheap
// VALUES-NEXT: co_return err_2;
// VALUES-NEXT: // (the error is the caller's)
