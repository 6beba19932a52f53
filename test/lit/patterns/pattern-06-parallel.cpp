// Patterns 6 and 7 with the combinators: parallel becomes when_all over the
// branch (promise<T>::all in the promise style), each_series a for loop with
// co_await (each_series over promises/futures in chains).
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

void write_each(int n, asyncshift::callback<> done) {
  asyncshift::each_series(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<> step) {
        read_int(static_cast<int>(i), [=](asyncshift::error err, int v) {
          if (err) return step(err);
          write_int(static_cast<int>(i), v + 1, step);
        });
      },
      [=](asyncshift::error err) {
        if (err) {
          log_line("failed");
          return done(err);
        }
        done({});
      });
}

void fan(int n, asyncshift::callback<int> done) {
  asyncshift::parallel<int>(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<int> got) {
        read_int(static_cast<int>(i), [=](asyncshift::error err, int v) {
          if (err) return got(err);
          int doubled = v * 2;
          write_int(static_cast<int>(i), doubled, [=](asyncshift::error err) {
            if (err) return got(err);
            got({}, doubled);
          });
        });
      },
      [=](asyncshift::error err, std::vector<int> values) {
        if (err) return done(err);
        int sum = 0;
        for (int v : values) sum += v;
        done({}, sum);
      });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<> write_each(int n) {
// CORO-NEXT: try {
// CORO-NEXT: for (std::size_t i = 0, count = static_cast<std::size_t>(n); i < count;
// CORO-NEXT: ++i) {
// CORO-NEXT: auto v = co_await asyncshift::promisify<int>(
// CORO-NEXT: [&](auto cb) { read_int(static_cast<int>(i), cb); });
// CORO-NEXT: co_await asyncshift::promisify(
// CORO-NEXT: [&](auto cb) { write_int(static_cast<int>(i), v + 1, cb); });
// CORO-NEXT: }
// CORO-NEXT: } catch (const asyncshift::error_exception &) {
// CORO-NEXT: log_line("failed");
// CORO-NEXT: throw;
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<int> fan(int n) {
// CORO-NEXT: auto branch = [=](std::size_t i) -> asyncshift::task<int> {
// CORO-NEXT: auto v = co_await asyncshift::promisify<int>(
// CORO-NEXT: [&](auto cb) { read_int(static_cast<int>(i), cb); });
// CORO-NEXT: int doubled = v * 2;
// CORO-NEXT: co_await asyncshift::promisify(
// CORO-NEXT: [&](auto cb) { write_int(static_cast<int>(i), doubled, cb); });
// CORO-NEXT: co_return doubled;
// CORO-NEXT: };
// CORO-NEXT: auto values = co_await asyncshift::when_all(static_cast<std::size_t>(n),
// CORO-NEXT: std::move(branch));
// CORO-NEXT: int sum = 0;
// CORO-NEXT: for (int v : values)
// CORO-NEXT: sum += v;
// CORO-NEXT: co_return sum;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> write_each(int n) {
// CORO_VALUES-NEXT: asyncshift::error err;
// CORO_VALUES-NEXT: for (std::size_t i = 0, count = static_cast<std::size_t>(n); i < count; ++i) {
// CORO_VALUES-NEXT: auto [err_2, v] = co_await asyncshift::settle(asyncshift::promisify<int>(
// CORO_VALUES-NEXT: [&](auto cb) { read_int(static_cast<int>(i), cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: err = err_2;
// CORO_VALUES-NEXT: break;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: err = co_await asyncshift::settle(asyncshift::promisify(
// CORO_VALUES-NEXT: [&](auto cb) { write_int(static_cast<int>(i), v + 1, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: break;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: log_line("failed");
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {};
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> fan(int n) {
// CORO_VALUES-NEXT: auto branch =
// CORO_VALUES-NEXT: [=](std::size_t i) -> asyncshift::task<asyncshift::result<int>> {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(asyncshift::promisify<int>(
// CORO_VALUES-NEXT: [&](auto cb) { read_int(static_cast<int>(i), cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: int doubled = v * 2;
// CORO_VALUES-NEXT: auto err_2 = co_await asyncshift::settle(asyncshift::promisify(
// CORO_VALUES-NEXT: [&](auto cb) { write_int(static_cast<int>(i), doubled, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, doubled};
// CORO_VALUES-NEXT: };
// CORO_VALUES-NEXT: auto [err, values] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), std::move(branch)));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: int sum = 0;
// CORO_VALUES-NEXT: for (int v : values)
// CORO_VALUES-NEXT: sum += v;
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, sum};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<> write_each(int n) {
// PROMISE-NEXT: return asyncshift::each_series(
// PROMISE-NEXT: static_cast<std::size_t>(n),
// PROMISE-NEXT: [=](std::size_t i) -> asyncshift::promise<> {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>([&](auto cb) {
// PROMISE-NEXT: read_int(static_cast<int>(i), std::move(cb));
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](int v) {
// PROMISE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// PROMISE-NEXT: write_int(static_cast<int>(i), v + 1, std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: });
// PROMISE-NEXT: })
// PROMISE-NEXT: .tap_error([=](const asyncshift::error &) { log_line("failed"); });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> fan(int n) {
// PROMISE-NEXT: return asyncshift::promise<int>::all(
// PROMISE-NEXT: static_cast<std::size_t>(n),
// PROMISE-NEXT: [=](std::size_t i) -> asyncshift::promise<int> {
// PROMISE-NEXT: struct fan_branch_state {
// PROMISE-NEXT: int doubled{};
// PROMISE-NEXT: };
// PROMISE-NEXT: auto branch_state =
// PROMISE-NEXT: asyncshift::make_shared_state<fan_branch_state>();
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>([&](auto cb) {
// PROMISE-NEXT: read_int(static_cast<int>(i), std::move(cb));
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](int v) {
// PROMISE-NEXT: branch_state->doubled = v * 2;
// PROMISE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// PROMISE-NEXT: write_int(static_cast<int>(i), branch_state->doubled,
// PROMISE-NEXT: std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=]() -> int { return branch_state->doubled; });
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](std::vector<int> values) -> int {
// PROMISE-NEXT: int sum = 0;
// PROMISE-NEXT: for (int v : values)
// PROMISE-NEXT: sum += v;
// PROMISE-NEXT: return sum;
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<> write_each(int n) {
// FUTURE-NEXT: return asyncshift::each_series(
// FUTURE-NEXT: static_cast<std::size_t>(n),
// FUTURE-NEXT: [=](std::size_t i) -> asyncshift::future<> {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>([&](auto cb) {
// FUTURE-NEXT: read_int(static_cast<int>(i), std::move(cb));
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](int v) {
// FUTURE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// FUTURE-NEXT: write_int(static_cast<int>(i), v + 1, std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: });
// FUTURE-NEXT: })
// FUTURE-NEXT: .tap_error([=](const asyncshift::error &) { log_line("failed"); });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> fan(int n) {
// FUTURE-NEXT: return asyncshift::when_all(
// FUTURE-NEXT: static_cast<std::size_t>(n),
// FUTURE-NEXT: [=](std::size_t i) -> asyncshift::future<int> {
// FUTURE-NEXT: struct fan_branch_state {
// FUTURE-NEXT: int doubled{};
// FUTURE-NEXT: };
// FUTURE-NEXT: auto branch_state =
// FUTURE-NEXT: asyncshift::make_shared_state<fan_branch_state>();
// FUTURE-NEXT: return asyncshift::make_future_chain<int>([&](auto cb) {
// FUTURE-NEXT: read_int(static_cast<int>(i), std::move(cb));
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](int v) {
// FUTURE-NEXT: branch_state->doubled = v * 2;
// FUTURE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// FUTURE-NEXT: write_int(static_cast<int>(i), branch_state->doubled,
// FUTURE-NEXT: std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=]() -> int { return branch_state->doubled; });
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](std::vector<int> values) -> int {
// FUTURE-NEXT: int sum = 0;
// FUTURE-NEXT: for (int v : values)
// FUTURE-NEXT: sum += v;
// FUTURE-NEXT: return sum;
// FUTURE-NEXT: });
// FUTURE-NEXT: }
