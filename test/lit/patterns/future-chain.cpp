// Future and promise styles: a chain returned whole, with steps, is one state
// (asyncshift::make_future_chain, runtime/include/asyncshift/future_chain.hpp;
// asyncshift::make_promise_chain, promise_chain.hpp) where
// make_future(...).then(...) makes one per step. A call with no step after it
// stays make_future / make_promise; the arms of an `if` that each return a
// chain are fused too, under the step's spelt `-> asyncshift::future<T>` or
// `-> asyncshift::promise<T>` (each arm's chain has a type of its own until it
// converts).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
#include "ops.h"

void sum_two(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    read_int(a, [=](asyncshift::error err, int b) {
      if (err) return done(err);
      done({}, a + b);
    });
  });
}

void read_one(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    done({}, a);
  });
}

void pick(int k, asyncshift::callback<int> done) {
  read_int(k, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    if (a > 0) {
      read_int(a, [=](asyncshift::error err, int b) {
        if (err) return done(err);
        done({}, b + 1);
      });
    } else {
      read_int(-a, [=](asyncshift::error err, int b) {
        if (err) return done(err);
        done({}, b - 1);
      });
    }
  });
}

void pick_or_value(int k, asyncshift::callback<int> done) {
  read_int(k, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    if (a > 0) {
      read_int(a, [=](asyncshift::error err, int b) {
        if (err) return done(err);
        done({}, b + 1);
      });
    } else {
      done({}, 0);
    }
  });
}

// ---- expected output
// FUTURE-LABEL: asyncshift::future<int> sum_two() {
// FUTURE-NEXT: struct sum_two_state {
// FUTURE-NEXT: int a{};
// FUTURE-NEXT: };
// FUTURE-NEXT: auto state_owner = asyncshift::make_shared_state<sum_two_state>();
// FUTURE-NEXT: auto *state = state_owner.get();
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// FUTURE-NEXT: .keep(std::move(state_owner))
// FUTURE-NEXT: .then([=](int a) {
// FUTURE-NEXT: state->a = a;
// FUTURE-NEXT: return asyncshift::promisify<int>(
// FUTURE-NEXT: [=](auto cb) mutable { read_int(state->a, std::move(cb)); });
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](int b) -> int { return state->a + b; });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> read_one() {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> pick(int k) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// FUTURE-NEXT: .then([=](int a) -> asyncshift::future<int> {
// FUTURE-NEXT: if (a > 0) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(a, std::move(cb)); })
// FUTURE-NEXT: .then([=](int b) -> int { return b + 1; });
// FUTURE-NEXT: } else {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(-a, std::move(cb)); })
// FUTURE-NEXT: .then([=](int b) -> int { return b - 1; });
// FUTURE-NEXT: }
// FUTURE-NEXT: });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> pick_or_value(int k) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// FUTURE-NEXT: .then([=](int a) -> asyncshift::future<int> {
// FUTURE-NEXT: if (a > 0) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(a, std::move(cb)); })
// FUTURE-NEXT: .then([=](int b) -> int { return b + 1; });
// FUTURE-NEXT: } else {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(0);
// FUTURE-NEXT: }
// FUTURE-NEXT: });
// FUTURE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> sum_two() {
// PROMISE-NEXT: struct sum_two_state {
// PROMISE-NEXT: int a{};
// PROMISE-NEXT: };
// PROMISE-NEXT: auto state_owner = asyncshift::make_shared_state<sum_two_state>();
// PROMISE-NEXT: auto *state = state_owner.get();
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// PROMISE-NEXT: .keep(std::move(state_owner))
// PROMISE-NEXT: .then([=](int a) {
// PROMISE-NEXT: state->a = a;
// PROMISE-NEXT: return asyncshift::promisify<int>(
// PROMISE-NEXT: [=](auto cb) mutable { read_int(state->a, std::move(cb)); });
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](int b) -> int { return state->a + b; });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> read_one() {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> pick(int k) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// PROMISE-NEXT: .then([=](int a) -> asyncshift::promise<int> {
// PROMISE-NEXT: if (a > 0) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(a, std::move(cb)); })
// PROMISE-NEXT: .then([=](int b) -> int { return b + 1; });
// PROMISE-NEXT: } else {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(-a, std::move(cb)); })
// PROMISE-NEXT: .then([=](int b) -> int { return b - 1; });
// PROMISE-NEXT: }
// PROMISE-NEXT: });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> pick_or_value(int k) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// PROMISE-NEXT: .then([=](int a) -> asyncshift::promise<int> {
// PROMISE-NEXT: if (a > 0) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(a, std::move(cb)); })
// PROMISE-NEXT: .then([=](int b) -> int { return b + 1; });
// PROMISE-NEXT: } else {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(0);
// PROMISE-NEXT: }
// PROMISE-NEXT: });
// PROMISE-NEXT: }
