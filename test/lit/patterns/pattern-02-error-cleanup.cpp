// Pattern 2, error propagation: `if (err) return done(err);` disappears into
// the error channel; `if (err) { cleanup; return done(err); }` (the cleanup
// starts work that is not waited for) becomes one try/catch around the calls
// that share it, stays a value check, or goes with each call's promise:
// asyncshift::on_error beside a leaf call's start (run inline when the call
// fails, as the original does), .tap_error on a converted function's promise.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
// RUN: FileCheck %s --check-prefix=CORO_VALUES --input-file=%t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
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

void transfer_logged(connection conn, int from, int to, asyncshift::callback<> done) {
  transfer(conn, from, to, [=](asyncshift::error err) {
    if (err) {
      log_line("transfer failed");
      return done(err);
    }
    done({});
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<> transfer(connection conn, int from, int to) {
// CORO-NEXT: auto balance =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(from, cb); });
// CORO-NEXT: try {
// CORO-NEXT: co_await asyncshift::promisify(
// CORO-NEXT: [&](auto cb) { write_int(to, balance, cb); });
// CORO-NEXT: co_await asyncshift::promisify([&](auto cb) { write_int(from, 0, cb); });
// CORO-NEXT: } catch (const asyncshift::error_exception &) {
// CORO-NEXT: conn.close();
// CORO-NEXT: log_line("rolled back");
// CORO-NEXT: throw;
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<> transfer_logged(connection conn, int from, int to) {
// CORO-NEXT: try {
// CORO-NEXT: co_await transfer(conn, from, to);
// CORO-NEXT: } catch (const asyncshift::error_exception &) {
// CORO-NEXT: log_line("transfer failed");
// CORO-NEXT: throw;
// CORO-NEXT: }
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> transfer(connection conn, int from,
// CORO_VALUES-NEXT: int to) {
// CORO_VALUES-NEXT: auto [err, balance] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(from, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto err_2 = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { write_int(to, balance, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: conn.close();
// CORO_VALUES-NEXT: log_line("rolled back");
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto err_3 = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { write_int(from, 0, cb); }));
// CORO_VALUES-NEXT: if (err_3) {
// CORO_VALUES-NEXT: conn.close();
// CORO_VALUES-NEXT: log_line("rolled back");
// CORO_VALUES-NEXT: co_return err_3;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {};
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> transfer_logged(connection conn, int from,
// CORO_VALUES-NEXT: int to) {
// CORO_VALUES-NEXT: auto err = co_await transfer(conn, from, to);
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: log_line("transfer failed");
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<> transfer(connection conn, int from, int to) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(from, std::move(cb)); })
// PROMISE-NEXT: .then([=](int balance) {
// PROMISE-NEXT: return asyncshift::promisify(
// PROMISE-NEXT: [=](auto cb) mutable { write_int(to, balance, std::move(cb)); },
// PROMISE-NEXT: asyncshift::on_error([=](const asyncshift::error &) {
// PROMISE-NEXT: conn.close();
// PROMISE-NEXT: log_line("rolled back");
// PROMISE-NEXT: }));
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=] {
// PROMISE-NEXT: return asyncshift::promisify(
// PROMISE-NEXT: [=](auto cb) mutable { write_int(from, 0, std::move(cb)); },
// PROMISE-NEXT: asyncshift::on_error([=](const asyncshift::error &) {
// PROMISE-NEXT: conn.close();
// PROMISE-NEXT: log_line("rolled back");
// PROMISE-NEXT: }));
// PROMISE-NEXT: });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<> transfer_logged(connection conn, int from, int to) {
// PROMISE-NEXT: return transfer(conn, from, to).tap_error([=](const asyncshift::error &) {
// PROMISE-NEXT: log_line("transfer failed");
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<> transfer(connection conn, int from, int to) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(from, std::move(cb)); })
// FUTURE-NEXT: .then([=](int balance) {
// FUTURE-NEXT: return asyncshift::promisify(
// FUTURE-NEXT: [=](auto cb) mutable { write_int(to, balance, std::move(cb)); },
// FUTURE-NEXT: asyncshift::on_error([=](const asyncshift::error &) {
// FUTURE-NEXT: conn.close();
// FUTURE-NEXT: log_line("rolled back");
// FUTURE-NEXT: }));
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=] {
// FUTURE-NEXT: return asyncshift::promisify(
// FUTURE-NEXT: [=](auto cb) mutable { write_int(from, 0, std::move(cb)); },
// FUTURE-NEXT: asyncshift::on_error([=](const asyncshift::error &) {
// FUTURE-NEXT: conn.close();
// FUTURE-NEXT: log_line("rolled back");
// FUTURE-NEXT: }));
// FUTURE-NEXT: });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<> transfer_logged(connection conn, int from, int to) {
// FUTURE-NEXT: return transfer(conn, from, to).tap_error([=](const asyncshift::error &) {
// FUTURE-NEXT: log_line("transfer failed");
// FUTURE-NEXT: });
// FUTURE-NEXT: }
