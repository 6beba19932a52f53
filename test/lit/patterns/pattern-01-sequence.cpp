// Pattern 1, sequence: a continuation nested in a continuation, any depth.
// Coroutines: one co_await after another. Chains: one .then per call; `a` and
// `b`, read two steps after they arrive, live in the per-call state.
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

void sum_three(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    read_int(2, [=](asyncshift::error err, int b) {
      if (err) return done(err);
      read_int(a + b, [=](asyncshift::error err, int c) {
        if (err) return done(err);
        done({}, a + b + c);
      });
    });
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> sum_three() {
// CORO-NEXT: auto a =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(1, cb); });
// CORO-NEXT: auto b =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(2, cb); });
// CORO-NEXT: auto c = co_await asyncshift::promisify<int>(
// CORO-NEXT: [&](auto cb) { read_int(a + b, cb); });
// CORO-NEXT: co_return a + b + c;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> sum_three() {
// CORO_VALUES-NEXT: auto [err, a] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(1, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto [err_2, b] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(2, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto [err_3, c] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(a + b, cb); }));
// CORO_VALUES-NEXT: if (err_3) {
// CORO_VALUES-NEXT: co_return err_3;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, a + b + c};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> sum_three() {
// PROMISE-NEXT: struct sum_three_state {
// PROMISE-NEXT: int a{};
// PROMISE-NEXT: int b{};
// PROMISE-NEXT: };
// PROMISE-NEXT: auto state_owner = asyncshift::make_shared_state<sum_three_state>();
// PROMISE-NEXT: auto *state = state_owner.get();
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// PROMISE-NEXT: .keep(std::move(state_owner))
// PROMISE-NEXT: .then([=](int a) {
// PROMISE-NEXT: state->a = a;
// PROMISE-NEXT: return asyncshift::promisify<int>(
// PROMISE-NEXT: [=](auto cb) mutable { read_int(2, std::move(cb)); });
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](int b) {
// PROMISE-NEXT: state->b = b;
// PROMISE-NEXT: return asyncshift::promisify<int>([=](auto cb) mutable {
// PROMISE-NEXT: read_int(state->a + state->b, std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](int c) -> int { return state->a + state->b + c; });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> sum_three() {
// FUTURE-NEXT: struct sum_three_state {
// FUTURE-NEXT: int a{};
// FUTURE-NEXT: int b{};
// FUTURE-NEXT: };
// FUTURE-NEXT: auto state_owner = asyncshift::make_shared_state<sum_three_state>();
// FUTURE-NEXT: auto *state = state_owner.get();
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// FUTURE-NEXT: .keep(std::move(state_owner))
// FUTURE-NEXT: .then([=](int a) {
// FUTURE-NEXT: state->a = a;
// FUTURE-NEXT: return asyncshift::promisify<int>(
// FUTURE-NEXT: [=](auto cb) mutable { read_int(2, std::move(cb)); });
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](int b) {
// FUTURE-NEXT: state->b = b;
// FUTURE-NEXT: return asyncshift::promisify<int>([=](auto cb) mutable {
// FUTURE-NEXT: read_int(state->a + state->b, std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](int c) -> int { return state->a + state->b + c; });
// FUTURE-NEXT: }
