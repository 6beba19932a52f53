// Patterns 6 and 7 written by hand: the counter idiom (shared counter,
// once-guard, results vector) converts as parallel does; the recursive lambda
// `step(step, 0)` becomes a for (;;) loop in coroutines and stays a recursive
// lambda returning a promise/future in chains.
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
// PROMISE_WARN: warning: 'read_all' completes 'done' synchronously on some paths and asynchronously on others; promise style runs every continuation from the microtask queue{{.*}} [asyncshift-sync-completion-reordered]
// PROMISE_WARN: warning: 'write_all' completes 'done' synchronously on some paths and asynchronously on others; promise style runs every continuation from the microtask queue{{.*}} [asyncshift-sync-completion-reordered]
// PROMISE_WARN: warning: 'count_up' completes 'done' synchronously on some paths and asynchronously on others; promise style runs every continuation from the microtask queue{{.*}} [asyncshift-sync-completion-reordered]
#include "ops.h"
#include <memory>
#include <vector>

void read_all(std::size_t n, asyncshift::callback<std::vector<int>> done) {
  if (n == 0) return done({}, {});
  auto pending = std::make_shared<std::size_t>(n);
  auto failed = std::make_shared<bool>(false);
  auto results = std::make_shared<std::vector<int>>(n);
  for (std::size_t i = 0; i < n; ++i) {
    read_int(static_cast<int>(i), [=](asyncshift::error err, int v) {
      if (*failed) return;
      if (err) {
        *failed = true;
        log_line("failed");
        return done(err);
      }
      (*results)[i] = v;
      if (--*pending == 0) done({}, *results);
    });
  }
}

void write_all(std::size_t n, asyncshift::callback<> done) {
  if (n == 0) return done({});
  auto pending = std::make_shared<std::size_t>(n);
  auto failed = std::make_shared<bool>(false);
  for (std::size_t i = 0; i < n; ++i) {
    write_int(static_cast<int>(i), 1, [=](asyncshift::error err) {
      if (*failed) return;
      if (err) {
        *failed = true;
        return done(err);
      }
      if (--*pending == 0) {
        log_line("all written");
        done({});
      }
    });
  }
}

void count_up(int n, asyncshift::callback<int> done) {
  auto step = [=](auto &self, int i, int total) -> void {
    if (i == n) return done({}, total);
    read_int(i, [=](asyncshift::error err, int v) {
      if (err) return done(err);
      self(self, i + 1, total + v);
    });
  };
  step(step, 0, 0);
}

// ---- expected output
// CORO-LABEL: asyncshift::task<std::vector<int>> read_all(std::size_t n) {
// CORO-NEXT: if (n == 0) {
// CORO-NEXT: co_return {};
// CORO-NEXT: }
// CORO-NEXT: auto branch = [=](std::size_t i) {
// CORO-NEXT: return asyncshift::promisify<int>(
// CORO-NEXT: [=](auto cb) { read_int(static_cast<int>(i), cb); });
// CORO-NEXT: };
// CORO-NEXT: auto results = co_await asyncshift::on_error(
// CORO-NEXT: asyncshift::when_all(n, std::move(branch)), [&] { log_line("failed"); });
// CORO-NEXT: co_return results;
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<> write_all(std::size_t n) {
// CORO-NEXT: if (n == 0) {
// CORO-NEXT: co_return;
// CORO-NEXT: }
// CORO-NEXT: auto branch = [=](std::size_t i) {
// CORO-NEXT: return asyncshift::promisify(
// CORO-NEXT: [=](auto cb) { write_int(static_cast<int>(i), 1, cb); });
// CORO-NEXT: };
// CORO-NEXT: co_await asyncshift::when_all(n, std::move(branch));
// CORO-NEXT: log_line("all written");
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<int> count_up(int n) {
// CORO-NEXT: int i = 0;
// CORO-NEXT: int total = 0;
// CORO-NEXT: for (;;) {
// CORO-NEXT: if (i == n) {
// CORO-NEXT: co_return total;
// CORO-NEXT: }
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(i, cb); });
// CORO-NEXT: i = i + 1;
// CORO-NEXT: total = total + v;
// CORO-NEXT: }
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<std::vector<int>>> read_all(std::size_t n) {
// CORO_VALUES-NEXT: if (n == 0) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, {}};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto branch = [=](std::size_t i) {
// CORO_VALUES-NEXT: return asyncshift::promisify<int>(
// CORO_VALUES-NEXT: [=](auto cb) { read_int(static_cast<int>(i), cb); });
// CORO_VALUES-NEXT: };
// CORO_VALUES-NEXT: auto [err, results] =
// CORO_VALUES-NEXT: co_await asyncshift::settle(asyncshift::when_all(n, std::move(branch)));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: log_line("failed");
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, results};
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> write_all(std::size_t n) {
// CORO_VALUES-NEXT: if (n == 0) {
// CORO_VALUES-NEXT: co_return {};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto branch = [=](std::size_t i) {
// CORO_VALUES-NEXT: return asyncshift::promisify(
// CORO_VALUES-NEXT: [=](auto cb) { write_int(static_cast<int>(i), 1, cb); });
// CORO_VALUES-NEXT: };
// CORO_VALUES-NEXT: auto err =
// CORO_VALUES-NEXT: co_await asyncshift::settle(asyncshift::when_all(n, std::move(branch)));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: log_line("all written");
// CORO_VALUES-NEXT: co_return {};
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> count_up(int n) {
// CORO_VALUES-NEXT: int i = 0;
// CORO_VALUES-NEXT: int total = 0;
// CORO_VALUES-NEXT: for (;;) {
// CORO_VALUES-NEXT: if (i == n) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, total};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(i, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: i = i + 1;
// CORO_VALUES-NEXT: total = total + v;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<std::vector<int>> read_all(std::size_t n) {
// PROMISE-NEXT: if (n == 0) {
// PROMISE-NEXT: return asyncshift::promise<std::vector<int>>::resolve(std::vector<int>{});
// PROMISE-NEXT: }
// PROMISE-NEXT: return asyncshift::make_promise(
// PROMISE-NEXT: asyncshift::when_all(n,
// PROMISE-NEXT: [=](std::size_t i) {
// PROMISE-NEXT: return asyncshift::promisify<int>([=](auto cb) {
// PROMISE-NEXT: read_int(static_cast<int>(i), std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: }),
// PROMISE-NEXT: asyncshift::on_error(
// PROMISE-NEXT: [=](const asyncshift::error &) { log_line("failed"); }));
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<> write_all(std::size_t n) {
// PROMISE-NEXT: if (n == 0) {
// PROMISE-NEXT: return asyncshift::promise<>::resolve();
// PROMISE-NEXT: }
// PROMISE-NEXT: return asyncshift::make_promise(
// PROMISE-NEXT: asyncshift::when_all(n,
// PROMISE-NEXT: [=](std::size_t i) {
// PROMISE-NEXT: return asyncshift::promisify([=](auto cb) {
// PROMISE-NEXT: write_int(static_cast<int>(i), 1,
// PROMISE-NEXT: std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: }))
// PROMISE-NEXT: .then([=] { log_line("all written"); });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> count_up(int n) {
// PROMISE-NEXT: auto step = [=](auto &self, int i, int total) -> asyncshift::promise<int> {
// PROMISE-NEXT: if (i == n) {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(total);
// PROMISE-NEXT: }
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(i, std::move(cb)); })
// PROMISE-NEXT: .then([=](int v) { return self(self, i + 1, total + v); });
// PROMISE-NEXT: };
// PROMISE-NEXT: return step(step, 0, 0);
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<std::vector<int>> read_all(std::size_t n) {
// FUTURE-NEXT: if (n == 0) {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<std::vector<int>>(
// FUTURE-NEXT: std::vector<int>{});
// FUTURE-NEXT: }
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(n,
// FUTURE-NEXT: [=](std::size_t i) {
// FUTURE-NEXT: return asyncshift::promisify<int>([=](auto cb) {
// FUTURE-NEXT: read_int(static_cast<int>(i), std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: }),
// FUTURE-NEXT: asyncshift::on_error(
// FUTURE-NEXT: [=](const asyncshift::error &) { log_line("failed"); }));
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<> write_all(std::size_t n) {
// FUTURE-NEXT: if (n == 0) {
// FUTURE-NEXT: return asyncshift::make_ready_future();
// FUTURE-NEXT: }
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(n,
// FUTURE-NEXT: [=](std::size_t i) {
// FUTURE-NEXT: return asyncshift::promisify([=](auto cb) {
// FUTURE-NEXT: write_int(static_cast<int>(i), 1,
// FUTURE-NEXT: std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: }))
// FUTURE-NEXT: .then([=] { log_line("all written"); });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> count_up(int n) {
// FUTURE-NEXT: auto step = [=](auto &self, int i, int total) -> asyncshift::future<int> {
// FUTURE-NEXT: if (i == n) {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(total);
// FUTURE-NEXT: }
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(i, std::move(cb)); })
// FUTURE-NEXT: .then([=](int v) { return self(self, i + 1, total + v); });
// FUTURE-NEXT: };
// FUTURE-NEXT: return step(step, 0, 0);
// FUTURE-NEXT: }
