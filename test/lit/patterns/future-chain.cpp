// Future style: a chain returned whole, with steps, is one state
// (asyncshift::make_future_chain, runtime/include/asyncshift/future_chain.hpp)
// where make_future(...).then(...) makes one per step. A call with no step
// after it stays make_future; the arms of an `if` that each return a chain are
// fused too, under the step's spelt `-> asyncshift::future<T>` (each arm's
// chain has a type of its own until it converts).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=future %t.cpp -- %flags > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
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
// FUTURE-NEXT: auto state = asyncshift::make_shared_state<sum_two_state>();
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
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
