// A named continuation called from one place only is printed in that place.
// When its body waits, the step it lands in returns the next operation (and
// the chain goes on flat), or, when the body may also complete, a promise
// (future) for either. The step was declared `-> int` from the call alone and
// returned a promise: no compile.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"

void store_doubled(int key, asyncshift::callback<int> done) {
  auto stored = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    write_int(key, v, [=](asyncshift::error err) {
      if (err)
        return done(err);
      done({}, v + 1);
    });
  };
  read_int(key, [=](asyncshift::error err, int v) { stored(err, v * 2); });
}
// PROMISE-LABEL: asyncshift::promise<int> store_doubled(int key) {
// PROMISE:      .then([=](int v) {
// PROMISE-NEXT: state->v = v * 2;
// PROMISE-NEXT: return asyncshift::promisify(
// PROMISE-NEXT: [=](auto cb) mutable { write_int(key, state->v, std::move(cb)); });
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=]() -> int { return state->v + 1; });

void store_if_small(int key, asyncshift::callback<int> done) {
  auto stored = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    if (v > 3)
      return done({}, v);
    write_int(key, v, [=](asyncshift::error err) {
      if (err)
        return done(err);
      done({}, v + 1);
    });
  };
  read_int(key, [=](asyncshift::error err, int v) { stored(err, v * 2); });
}
// FUTURE-LABEL: asyncshift::future<int> store_if_small(int key) {
// FUTURE:      .then([=](int v) -> asyncshift::future<int> {
// FUTURE-NEXT: int v_2 = v * 2;
// FUTURE-NEXT: if (v_2 > 3) {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(v_2);
// FUTURE-NEXT: }
// FUTURE-NEXT: return asyncshift::make_future_chain(
// FUTURE-NEXT: [&](auto cb) { write_int(key, v_2, std::move(cb)); })
// FUTURE-NEXT: .then([=]() -> int { return v_2 + 1; });
