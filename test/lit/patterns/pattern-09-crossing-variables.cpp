// Pattern 9: synchronous statements between calls are kept; a variable
// declared in an outer continuation and read in an inner one is a local in a
// coroutine and a state field in a chain; an inner continuation reusing a name
// gets a fresh one once flattened.
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

void twice(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    int total = v;
    read_int(v, [=](asyncshift::error err, int v) {
      if (err) return done(err);
      int total2 = total + v;
      done({}, total2);
    });
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> twice() {
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(1, cb); });
// CORO-NEXT: int total = v;
// CORO-NEXT: auto v_2 =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(v, cb); });
// CORO-NEXT: int total2 = total + v_2;
// CORO-NEXT: co_return total2;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> twice() {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(1, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: int total = v;
// CORO_VALUES-NEXT: auto [err_2, v_2] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(v, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: int total2 = total + v_2;
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, total2};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> twice() {
// PROMISE-NEXT: struct twice_state {
// PROMISE-NEXT: int total{};
// PROMISE-NEXT: };
// PROMISE-NEXT: auto state_owner = asyncshift::make_shared_state<twice_state>();
// PROMISE-NEXT: auto *state = state_owner.get();
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// PROMISE-NEXT: .keep(std::move(state_owner))
// PROMISE-NEXT: .then([=](int v) {
// PROMISE-NEXT: state->total = v;
// PROMISE-NEXT: return asyncshift::promisify<int>(
// PROMISE-NEXT: [=](auto cb) mutable { read_int(v, std::move(cb)); });
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](int v) -> int {
// PROMISE-NEXT: int total2 = state->total + v;
// PROMISE-NEXT: return total2;
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> twice() {
// FUTURE-NEXT: struct twice_state {
// FUTURE-NEXT: int total{};
// FUTURE-NEXT: };
// FUTURE-NEXT: auto state_owner = asyncshift::make_shared_state<twice_state>();
// FUTURE-NEXT: auto *state = state_owner.get();
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); })
// FUTURE-NEXT: .keep(std::move(state_owner))
// FUTURE-NEXT: .then([=](int v) {
// FUTURE-NEXT: state->total = v;
// FUTURE-NEXT: return asyncshift::promisify<int>(
// FUTURE-NEXT: [=](auto cb) mutable { read_int(v, std::move(cb)); });
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](int v) -> int {
// FUTURE-NEXT: int total2 = state->total + v;
// FUTURE-NEXT: return total2;
// FUTURE-NEXT: });
// FUTURE-NEXT: }
