// A continuation that only completes with what it was given needs no step
// of its own in promise and future style (no `.then`): the comments written
// in it now go after the chain's statement instead of being dropped with
// the step. The coroutine styles keep them where they were.
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

void store(int key, asyncshift::callback<> done) {
  read_int(key, [=](asyncshift::error err, int old) {
    if (err) return done(err);
    write_int(key, old, [=](asyncshift::error err) {
      if (err) return done(err);
      // all written
      done({});
    });
  });
}

void fetch(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int value) {
    if (err) return done(err);
    done({}, value); // as read
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<> store(int key) {
// CORO-NEXT: auto old =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: co_await asyncshift::promisify([&](auto cb) { write_int(key, old, cb); });
// CORO-NEXT: // all written
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<int> fetch(int key) {
// CORO-NEXT: auto value =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: co_return value; // as read
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> store(int key) {
// CORO_VALUES-NEXT: auto [err, old] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto err_2 = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { write_int(key, old, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: // all written
// CORO_VALUES-NEXT: co_return {};
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> fetch(int key) {
// CORO_VALUES-NEXT: auto [err, value] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, value}; // as read
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<> store(int key) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .then([=](int old) {
// PROMISE-NEXT: return asyncshift::promisify(
// PROMISE-NEXT: [=](auto cb) mutable { write_int(key, old, std::move(cb)); });
// PROMISE-NEXT: });
// PROMISE-NEXT: // all written
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> fetch(int key) {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); });
// PROMISE-NEXT: // as read
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<> store(int key) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .then([=](int old) {
// FUTURE-NEXT: return asyncshift::promisify(
// FUTURE-NEXT: [=](auto cb) mutable { write_int(key, old, std::move(cb)); });
// FUTURE-NEXT: });
// FUTURE-NEXT: // all written
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> fetch(int key) {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); });
// FUTURE-NEXT: // as read
// FUTURE-NEXT: }

