// A comment before a continuation's leading error check stays before the
// check when the check is printed (here it wraps the error, so no style
// folds it). Only a check that passes the error on unchanged is folded, and
// its comment moves to the statement after it (patterns/comments-kept.cpp).
// (It moved below the printed check, onto the success path.)
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

void get(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    // wrap the failure with the key
    if (err) return done(asyncshift::error("get " + std::to_string(key) + ": " + err.message()));
    done({}, v);
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> get(int key) {
// CORO-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO-NEXT: // wrap the failure with the key
// CORO-NEXT: if (err) {
// CORO-NEXT: throw asyncshift::error_exception(
// CORO-NEXT: asyncshift::error("get " + std::to_string(key) + ": " + err.message()));
// CORO-NEXT: }
// CORO-NEXT: co_return v;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> get(int key) {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: // wrap the failure with the key
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return asyncshift::error("get " + std::to_string(key) + ": " +
// CORO_VALUES-NEXT: err.message());
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> get(int key) {
// PROMISE-NEXT: return asyncshift::settle(asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); }))
// PROMISE-NEXT: .then([=](asyncshift::result<int> settled) -> int {
// PROMISE-NEXT: asyncshift::error err = settled.err;
// PROMISE-NEXT: auto v = settled.value;
// PROMISE-NEXT: // wrap the failure with the key
// PROMISE-NEXT: if (err) {
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error(
// PROMISE-NEXT: "get " + std::to_string(key) + ": " + err.message()));
// PROMISE-NEXT: }
// PROMISE-NEXT: return v;
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> get(int key) {
// FUTURE-NEXT: return asyncshift::settle(asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); }))
// FUTURE-NEXT: .then([=](asyncshift::result<int> settled) -> int {
// FUTURE-NEXT: asyncshift::error err = settled.err;
// FUTURE-NEXT: auto v = settled.value;
// FUTURE-NEXT: // wrap the failure with the key
// FUTURE-NEXT: if (err) {
// FUTURE-NEXT: throw asyncshift::error_exception(asyncshift::error(
// FUTURE-NEXT: "get " + std::to_string(key) + ": " + err.message()));
// FUTURE-NEXT: }
// FUTURE-NEXT: return v;
// FUTURE-NEXT: });
// FUTURE-NEXT: }

