// A pause (asyncshift::after, timer.hpp) is a leaf like any other: it becomes
// an awaited operation, a step of a chain, and compiles in every style.
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

using namespace std::chrono_literals;

// A retry after a pause: the pause is a leaf like any other.
void read_with_retry(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (!err) return done({}, v);
    asyncshift::after(10ms, [=](asyncshift::error err) {
      if (err) return done(err);
      read_int(key, done);
    });
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> read_with_retry(int key) {
// CORO: co_await asyncshift::promisify([&](auto cb) { asyncshift::after(10ms, cb); });
// CORO-NEXT: co_return co_await asyncshift::promisify<int>(

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> read_with_retry(int key) {
// CORO_VALUES: auto err_2 = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { asyncshift::after(10ms, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;

// PROMISE-LABEL: asyncshift::promise<int> read_with_retry(int key) {
// PROMISE: return asyncshift::make_promise_chain(
// PROMISE-NEXT: [&](auto cb) { asyncshift::after(10ms, std::move(cb)); })
// PROMISE-NEXT: .then([=] {
// PROMISE-NEXT: return asyncshift::promisify<int>(

// FUTURE-LABEL: asyncshift::future<int> read_with_retry(int key) {
// FUTURE: return asyncshift::make_future_chain(
// FUTURE-NEXT: [&](auto cb) { asyncshift::after(10ms, std::move(cb)); })
// FUTURE-NEXT: .then([=] {
// FUTURE-NEXT: return asyncshift::promisify<int>(
