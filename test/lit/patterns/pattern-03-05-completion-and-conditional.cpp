// Patterns 3 and 5: completion in branches (done({}, v), return done(...))
// and an if/else where one arm does async work and the other completes at once.
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
// PROMISE_WARN: warning: 'cached_read' completes 'done' synchronously on some paths and asynchronously on others; promise style runs every continuation from the microtask queue{{.*}} [asyncshift-sync-completion-reordered]
// PROMISE_WARN: warning: 'maybe_flush' completes 'done' synchronously on some paths and asynchronously on others; promise style runs every continuation from the microtask queue{{.*}} [asyncshift-sync-completion-reordered]
#include "ops.h"

void cached_read(bool cached, int key, asyncshift::callback<int> done) {
  if (cached) {
    return done({}, 0);
  } else {
    read_int(key, [=](asyncshift::error err, int v) {
      if (err) return done(err);
      done({}, v * 2);
    });
  }
}

void maybe_flush(bool dirty, asyncshift::callback<> done) {
  if (dirty) {
    flush([=](asyncshift::error err) {
      if (err) return done(err);
      done({});
    });
    return;
  }
  done({});
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> cached_read(bool cached, int key) {
// CORO-NEXT: if (cached) {
// CORO-NEXT: co_return 0;
// CORO-NEXT: } else {
// CORO-NEXT: auto v = co_await asyncshift::promisify<int>(
// CORO-NEXT: [&](auto cb) { read_int(key, cb); });
// CORO-NEXT: co_return v * 2;
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<> maybe_flush(bool dirty) {
// CORO-NEXT: if (dirty) {
// CORO-NEXT: co_await asyncshift::promisify([&](auto cb) { flush(cb); });
// CORO-NEXT: co_return;
// CORO-NEXT: }
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> cached_read(bool cached, int key) {
// CORO_VALUES-NEXT: if (cached) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, 0};
// CORO_VALUES-NEXT: } else {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v * 2};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> maybe_flush(bool dirty) {
// CORO_VALUES-NEXT: if (dirty) {
// CORO_VALUES-NEXT: auto err = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { flush(cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> cached_read(bool cached, int key) {
// PROMISE-NEXT: if (cached) {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(0);
// PROMISE-NEXT: } else {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .then([=](int v) -> int { return v * 2; });
// PROMISE-NEXT: }
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<> maybe_flush(bool dirty) {
// PROMISE-NEXT: if (dirty) {
// PROMISE-NEXT: return asyncshift::make_promise([&](auto cb) { flush(std::move(cb)); });
// PROMISE-NEXT: }
// PROMISE-NEXT: return asyncshift::promise<>::resolve();
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> cached_read(bool cached, int key) {
// FUTURE-NEXT: if (cached) {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(0);
// FUTURE-NEXT: } else {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .then([=](int v) -> int { return v * 2; });
// FUTURE-NEXT: }
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<> maybe_flush(bool dirty) {
// FUTURE-NEXT: if (dirty) {
// FUTURE-NEXT: return asyncshift::make_future([&](auto cb) { flush(std::move(cb)); });
// FUTURE-NEXT: }
// FUTURE-NEXT: return asyncshift::make_ready_future();
// FUTURE-NEXT: }
