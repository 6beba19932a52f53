// Pattern 4 nested: a named continuation defined inside one arm of an `if`
// and called from both arms of an inner `if`. Its body belongs after the inner
// `if`, inside the arm, where the variables it captured (`base`) are in scope;
// placing it after the outer `if` would not compile (found by `make fuzz`).
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
// RUN: FileCheck %s --check-prefix=PROMISE_WARN --input-file=%t.promise.err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// Promise style warns where the original completes synchronously on some paths only.
// PROMISE_WARN: warning: 'store' completes 'done' synchronously on some paths and asynchronously on others; promise style runs every continuation from the microtask queue{{.*}} [asyncshift-sync-completion-reordered]
#include "ops.h"

void store(bool fresh, bool cached, int id, asyncshift::callback<int> done) {
  if (fresh) {
    int base = compute(id);
    auto afterRead = [=](asyncshift::error err, int value) {
      if (err) return done(err);
      write_int(id, base + value, [=](asyncshift::error err) { done(err, base); });
    };
    if (cached) {
      afterRead({}, 0);
    } else {
      read_int(id, afterRead);
    }
  } else {
    done({}, id);
  }
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> store(bool fresh, bool cached, int id) {
// CORO-NEXT: if (fresh) {
// CORO-NEXT: int base = compute(id);
// CORO-NEXT: int value{};
// CORO-NEXT: if (cached) {
// CORO-NEXT: value = 0;
// CORO-NEXT: } else {
// CORO-NEXT: auto value_2 = co_await asyncshift::promisify<int>(
// CORO-NEXT: [&](auto cb) { read_int(id, cb); });
// CORO-NEXT: value = value_2;
// CORO-NEXT: }
// CORO-NEXT: auto err = co_await asyncshift::settle(asyncshift::promisify(
// CORO-NEXT: [&](auto cb) { write_int(id, base + value, cb); }));
// CORO-NEXT: asyncshift::throw_if(err);
// CORO-NEXT: co_return base;
// CORO-NEXT: } else {
// CORO-NEXT: co_return id;
// CORO-NEXT: }
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> store(bool fresh, bool cached,
// CORO_VALUES-NEXT: int id) {
// CORO_VALUES-NEXT: if (fresh) {
// CORO_VALUES-NEXT: int base = compute(id);
// CORO_VALUES-NEXT: asyncshift::error err;
// CORO_VALUES-NEXT: int value{};
// CORO_VALUES-NEXT: if (cached) {
// CORO_VALUES-NEXT: err = {};
// CORO_VALUES-NEXT: value = 0;
// CORO_VALUES-NEXT: } else {
// CORO_VALUES-NEXT: auto [err_2, value_2] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(id, cb); }));
// CORO_VALUES-NEXT: err = err_2;
// CORO_VALUES-NEXT: value = value_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto err_3 = co_await asyncshift::settle(asyncshift::promisify(
// CORO_VALUES-NEXT: [&](auto cb) { write_int(id, base + value, cb); }));
// CORO_VALUES-NEXT: co_return {err_3, base};
// CORO_VALUES-NEXT: } else {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, id};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> store(bool fresh, bool cached, int id) {
// PROMISE-NEXT: if (fresh) {
// PROMISE-NEXT: int base = compute(id);
// PROMISE-NEXT: return [&]() -> asyncshift::promise<int> {
// PROMISE-NEXT: if (cached) {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(0);
// PROMISE-NEXT: } else {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(id, std::move(cb)); })
// PROMISE-NEXT: .then([=](int value) -> int { return value; });
// PROMISE-NEXT: }
// PROMISE-NEXT: }()
// PROMISE-NEXT: .then([=](int value) {
// PROMISE-NEXT: return asyncshift::settle(
// PROMISE-NEXT: asyncshift::make_promise([&](auto cb) {
// PROMISE-NEXT: write_int(id, base + value, std::move(cb));
// PROMISE-NEXT: }));
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](asyncshift::error err) -> int {
// PROMISE-NEXT: asyncshift::throw_if(err);
// PROMISE-NEXT: return base;
// PROMISE-NEXT: });
// PROMISE-NEXT: } else {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(id);
// PROMISE-NEXT: }
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> store(bool fresh, bool cached, int id) {
// FUTURE-NEXT: if (fresh) {
// FUTURE-NEXT: int base = compute(id);
// FUTURE-NEXT: return [&]() -> asyncshift::future<int> {
// FUTURE-NEXT: if (cached) {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(0);
// FUTURE-NEXT: } else {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(id, std::move(cb)); })
// FUTURE-NEXT: .then([=](int value) -> int { return value; });
// FUTURE-NEXT: }
// FUTURE-NEXT: }()
// FUTURE-NEXT: .then([=](int value) {
// FUTURE-NEXT: return asyncshift::settle(
// FUTURE-NEXT: asyncshift::make_future([&](auto cb) {
// FUTURE-NEXT: write_int(id, base + value, std::move(cb));
// FUTURE-NEXT: }));
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](asyncshift::error err) -> int {
// FUTURE-NEXT: asyncshift::throw_if(err);
// FUTURE-NEXT: return base;
// FUTURE-NEXT: });
// FUTURE-NEXT: } else {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(id);
// FUTURE-NEXT: }
// FUTURE-NEXT: }
