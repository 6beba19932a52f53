// A comment before a named continuation's definition goes where its body is
// printed (where its paths join, or where its one call was). (It was
// dropped in every style.)
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
  // the named continuation: doubles and completes
  auto finish = [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v * 2);
  };
  read_int(key, finish);
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> get(int key) {
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: int v_2 = v;
// CORO-NEXT: // the named continuation: doubles and completes
// CORO-NEXT: co_return v_2 * 2;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> get(int key) {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: asyncshift::error err_2 = err;
// CORO_VALUES-NEXT: int v_2 = v;
// CORO_VALUES-NEXT: // the named continuation: doubles and completes
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v_2 * 2};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> get(int key) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .then([=](int v) -> int {
// PROMISE-NEXT: int v_2 = v;
// PROMISE-NEXT: // the named continuation: doubles and completes
// PROMISE-NEXT: return v_2 * 2;
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> get(int key) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .then([=](int v) -> int {
// FUTURE-NEXT: int v_2 = v;
// FUTURE-NEXT: // the named continuation: doubles and completes
// FUTURE-NEXT: return v_2 * 2;
// FUTURE-NEXT: });
// FUTURE-NEXT: }

