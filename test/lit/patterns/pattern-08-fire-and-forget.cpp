// Pattern 8, fire-and-forget: a call whose continuation ignores its outcome
// starts work and is kept as written.
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

void save(connection conn, int v, asyncshift::callback<> done) {
  write_int(1, v, [=](asyncshift::error err) {
    if (err) return done(err);
    conn.send("saved", [](asyncshift::error) {});
    log_line("sent");
    done({});
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<> save(connection conn, int v) {
// CORO-NEXT: co_await asyncshift::promisify([&](auto cb) { write_int(1, v, cb); });
// CORO-NEXT: conn.send("saved", [](asyncshift::error) {});
// CORO-NEXT: log_line("sent");
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> save(connection conn, int v) {
// CORO_VALUES-NEXT: auto err = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { write_int(1, v, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: conn.send("saved", [](asyncshift::error) {});
// CORO_VALUES-NEXT: log_line("sent");
// CORO_VALUES-NEXT: co_return {};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<> save(connection conn, int v) {
// PROMISE-NEXT: return asyncshift::make_promise_chain(
// PROMISE-NEXT: [&](auto cb) { write_int(1, v, std::move(cb)); })
// PROMISE-NEXT: .then([=] {
// PROMISE-NEXT: conn.send("saved", [](asyncshift::error) {});
// PROMISE-NEXT: log_line("sent");
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<> save(connection conn, int v) {
// FUTURE-NEXT: return asyncshift::make_future_chain(
// FUTURE-NEXT: [&](auto cb) { write_int(1, v, std::move(cb)); })
// FUTURE-NEXT: .then([=] {
// FUTURE-NEXT: conn.send("saved", [](asyncshift::error) {});
// FUTURE-NEXT: log_line("sent");
// FUTURE-NEXT: });
// FUTURE-NEXT: }
