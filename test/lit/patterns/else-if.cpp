// Every style: an `else` arm that is one `if` and nothing more prints as
// `else if`, as it was written (it used to print as `else { if ... }`). An
// arm with a comment before its `if` keeps its braces, so that the comment
// stays where it was.
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

void classify(int k, asyncshift::callback<int> done) {
  read_int(k, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    if (a > 10) {
      read_int(a, [=](asyncshift::error err, int b) {
        if (err) return done(err);
        done({}, b);
      });
    } else if (a > 5) {
      read_int(-a, [=](asyncshift::error err, int b) {
        if (err) return done(err);
        done({}, b + 1);
      });
    } else if (a > 0) {
      done({}, 5);
    } else {
      done({}, 0);
    }
  });
}

void commented(int k, asyncshift::callback<int> done) {
  read_int(k, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    if (a > 10) {
      done({}, 1);
    } else {
      // small values are read again
      if (a > 5) {
        read_int(a, [=](asyncshift::error err, int b) {
          if (err) return done(err);
          done({}, b);
        });
      } else {
        done({}, 0);
      }
    }
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> classify(int k) {
// CORO-NEXT: auto a =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(k, cb); });
// CORO-NEXT: if (a > 10) {
// CORO-NEXT: auto b =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(a, cb); });
// CORO-NEXT: co_return b;
// CORO-NEXT: } else if (a > 5) {
// CORO-NEXT: auto b =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(-a, cb); });
// CORO-NEXT: co_return b + 1;
// CORO-NEXT: } else if (a > 0) {
// CORO-NEXT: co_return 5;
// CORO-NEXT: } else {
// CORO-NEXT: co_return 0;
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<int> commented(int k) {
// CORO-NEXT: auto a =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(k, cb); });
// CORO-NEXT: if (a > 10) {
// CORO-NEXT: co_return 1;
// CORO-NEXT: } else {
// CORO-NEXT: // small values are read again
// CORO-NEXT: if (a > 5) {
// CORO-NEXT: auto b = co_await asyncshift::promisify<int>(
// CORO-NEXT: [&](auto cb) { read_int(a, cb); });
// CORO-NEXT: co_return b;
// CORO-NEXT: } else {
// CORO-NEXT: co_return 0;
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> classify(int k) {
// CORO_VALUES-NEXT: auto [err, a] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(k, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (a > 10) {
// CORO_VALUES-NEXT: auto [err_2, b] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(a, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, b};
// CORO_VALUES-NEXT: } else if (a > 5) {
// CORO_VALUES-NEXT: auto [err_3, b] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(-a, cb); }));
// CORO_VALUES-NEXT: if (err_3) {
// CORO_VALUES-NEXT: co_return err_3;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, b + 1};
// CORO_VALUES-NEXT: } else if (a > 0) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, 5};
// CORO_VALUES-NEXT: } else {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, 0};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> commented(int k) {
// CORO_VALUES-NEXT: auto [err, a] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(k, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (a > 10) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, 1};
// CORO_VALUES-NEXT: } else {
// CORO_VALUES-NEXT: // small values are read again
// CORO_VALUES-NEXT: if (a > 5) {
// CORO_VALUES-NEXT: auto [err_2, b] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(a, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, b};
// CORO_VALUES-NEXT: } else {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, 0};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> classify(int k) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// PROMISE-NEXT: .then([=](int a) -> asyncshift::promise<int> {
// PROMISE-NEXT: if (a > 10) {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(a, std::move(cb)); });
// PROMISE-NEXT: } else if (a > 5) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(-a, std::move(cb)); })
// PROMISE-NEXT: .then([=](int b) -> int { return b + 1; });
// PROMISE-NEXT: } else if (a > 0) {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(5);
// PROMISE-NEXT: } else {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(0);
// PROMISE-NEXT: }
// PROMISE-NEXT: });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> commented(int k) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// PROMISE-NEXT: .then([=](int a) -> asyncshift::promise<int> {
// PROMISE-NEXT: if (a > 10) {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(1);
// PROMISE-NEXT: } else {
// PROMISE-NEXT: // small values are read again
// PROMISE-NEXT: if (a > 5) {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(a, std::move(cb)); });
// PROMISE-NEXT: } else {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(0);
// PROMISE-NEXT: }
// PROMISE-NEXT: }
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> classify(int k) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// FUTURE-NEXT: .then([=](int a) -> asyncshift::future<int> {
// FUTURE-NEXT: if (a > 10) {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(a, std::move(cb)); });
// FUTURE-NEXT: } else if (a > 5) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(-a, std::move(cb)); })
// FUTURE-NEXT: .then([=](int b) -> int { return b + 1; });
// FUTURE-NEXT: } else if (a > 0) {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(5);
// FUTURE-NEXT: } else {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(0);
// FUTURE-NEXT: }
// FUTURE-NEXT: });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> commented(int k) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// FUTURE-NEXT: .then([=](int a) -> asyncshift::future<int> {
// FUTURE-NEXT: if (a > 10) {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(1);
// FUTURE-NEXT: } else {
// FUTURE-NEXT: // small values are read again
// FUTURE-NEXT: if (a > 5) {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(a, std::move(cb)); });
// FUTURE-NEXT: } else {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(0);
// FUTURE-NEXT: }
// FUTURE-NEXT: }
// FUTURE-NEXT: });
// FUTURE-NEXT: }
