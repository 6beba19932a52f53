// Calls of a converted function that do not wait for it, from code that keeps
// its callbacks (main) or inside another converted function: the call is
// started and its outcome delivered to the same handler.
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

void step(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v + 1);
  });
}

void refresh(int key, asyncshift::callback<> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    write_int(key, v + 1, done);
  });
}

// A converted function started without waiting, inside another.
void handle(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    refresh(v, [](asyncshift::error) {});
    done({}, v);
  });
}

int main() {
  asyncshift::loop loop;
  int got = 0;
  step(1, [&](asyncshift::error err, int v) {
    if (!err) got = v;
  });
  asyncshift::callback<int> cb = [](asyncshift::error, int) {};
  step(2, cb);
  loop.run();
  return got;
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> step(int key) {
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: co_return v + 1;
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<> refresh(int key) {
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: co_await asyncshift::promisify([&](auto cb) { write_int(key, v + 1, cb); });
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<int> handle(int key) {
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: asyncshift::start(refresh(v), [](asyncshift::error) {});
// CORO-NEXT: co_return v;
// CORO-NEXT: }
// CORO: asyncshift::start(step(1), [&](asyncshift::error err, int v) {
// CORO: asyncshift::start(step(2), cb);

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> step(int key) {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v + 1};
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::error> refresh(int key) {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { write_int(key, v + 1, cb); }));
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> handle(int key) {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: asyncshift::start(refresh(v), [](asyncshift::error) {});
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v};
// CORO_VALUES-NEXT: }
// CORO_VALUES: asyncshift::start(step(1), [&](asyncshift::error err, int v) {
// CORO_VALUES: asyncshift::start(step(2), cb);

// PROMISE-LABEL: asyncshift::promise<int> step(int key) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .then([=](int v) -> int { return v + 1; });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<> refresh(int key) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .then([=](int v) {
// PROMISE-NEXT: return asyncshift::promisify(
// PROMISE-NEXT: [=](auto cb) mutable { write_int(key, v + 1, std::move(cb)); });
// PROMISE-NEXT: });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> handle(int key) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .then([=](int v) -> int {
// PROMISE-NEXT: refresh(v).then_callback([](asyncshift::error) {});
// PROMISE-NEXT: return v;
// PROMISE-NEXT: });
// PROMISE-NEXT: }
// PROMISE: step(1).then_callback([&](asyncshift::error err, int v) {
// PROMISE: step(2).then_callback(cb);

// FUTURE-LABEL: asyncshift::future<int> step(int key) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .then([=](int v) -> int { return v + 1; });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<> refresh(int key) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .then([=](int v) {
// FUTURE-NEXT: return asyncshift::promisify(
// FUTURE-NEXT: [=](auto cb) mutable { write_int(key, v + 1, std::move(cb)); });
// FUTURE-NEXT: });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> handle(int key) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .then([=](int v) -> int {
// FUTURE-NEXT: refresh(v).then_callback([](asyncshift::error) {});
// FUTURE-NEXT: return v;
// FUTURE-NEXT: });
// FUTURE-NEXT: }
// FUTURE: step(1).then_callback([&](asyncshift::error err, int v) {
// FUTURE: step(2).then_callback(cb);
