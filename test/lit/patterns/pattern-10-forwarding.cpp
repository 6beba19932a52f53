// Pattern 10, forwarding: `op(args, done)` in tail position returns what op
// returns; an async function of the same file is called directly.
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
// CORO-LABEL: asyncshift::task<> store(int key, int v) {
// CORO-NEXT: log_line("storing");
// CORO-NEXT: co_await asyncshift::promisify([&](auto cb) { write_int(key, v, cb); });
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<int> double_read(int key) {
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: co_return co_await asyncshift::promisify<int>(
// CORO-NEXT: [&](auto cb) { read_int(v, cb); });
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<> store_then_flush(int key) {
// CORO-NEXT: co_await store(key, 1);
// CORO-NEXT: co_await asyncshift::promisify([&](auto cb) { flush(cb); });
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> store(int key, int v) {
// CORO_VALUES-NEXT: log_line("storing");
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { write_int(key, v, cb); }));
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> double_read(int key) {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(v, cb); }));
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> store_then_flush(int key) {
// CORO_VALUES-NEXT: auto err = co_await store(key, 1);
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { flush(cb); }));
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<> store(int key, int v) {
// PROMISE-NEXT: log_line("storing");
// PROMISE-NEXT: return asyncshift::make_promise(
// PROMISE-NEXT: [&](auto cb) { write_int(key, v, std::move(cb)); });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> double_read(int key) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .then([=](int v) {
// PROMISE-NEXT: return asyncshift::promisify<int>(
// PROMISE-NEXT: [=](auto cb) mutable { read_int(v, std::move(cb)); });
// PROMISE-NEXT: });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<> store_then_flush(int key) {
// PROMISE-NEXT: return store(key, 1).then([=] {
// PROMISE-NEXT: return asyncshift::promisify(
// PROMISE-NEXT: [=](auto cb) mutable { flush(std::move(cb)); });
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<> store(int key, int v) {
// FUTURE-NEXT: log_line("storing");
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: [&](auto cb) { write_int(key, v, std::move(cb)); });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> double_read(int key) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .then([=](int v) {
// FUTURE-NEXT: return asyncshift::promisify<int>(
// FUTURE-NEXT: [=](auto cb) mutable { read_int(v, std::move(cb)); });
// FUTURE-NEXT: });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<> store_then_flush(int key) {
// FUTURE-NEXT: return store(key, 1).then([=] {
// FUTURE-NEXT: return asyncshift::promisify(
// FUTURE-NEXT: [=](auto cb) mutable { flush(std::move(cb)); });
// FUTURE-NEXT: });
// FUTURE-NEXT: }
