// Comments after the last statement of a block stay too: after what that
// statement becomes, in the order they were written (a continuation's
// closing comments, then the comments after the call that started it, then
// the function's). A `//` comment on the last statement's line stays on
// the line of what a completion becomes (comments-trailing.cpp). (Before,
// all of these were dropped.)
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

void save(int key, bool twice, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int old) {
    if (err) return done(err);
    if (twice) {
      log_line("twice");
      // end of the then-branch
    }
    write_int(key, old + 1, [=](asyncshift::error err) {
      if (err) return done(err);
      done({}, old); // reply with the old value
      // end of the last continuation
    });
    // after the write started
  });
  /* end of the function */
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> save(int key, bool twice) {
// CORO-NEXT: auto old =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: if (twice) {
// CORO-NEXT: log_line("twice");
// CORO-NEXT: // end of the then-branch
// CORO-NEXT: }
// CORO-NEXT: co_await asyncshift::promisify([&](auto cb) { write_int(key, old + 1, cb); });
// CORO-NEXT: co_return old; // reply with the old value
// CORO-NEXT: // end of the last continuation
// CORO-NEXT: // after the write started
// CORO-NEXT: /* end of the function */
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> save(int key, bool twice) {
// CORO_VALUES-NEXT: auto [err, old] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (twice) {
// CORO_VALUES-NEXT: log_line("twice");
// CORO_VALUES-NEXT: // end of the then-branch
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto err_2 = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { write_int(key, old + 1, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, old}; // reply with the old value
// CORO_VALUES-NEXT: // end of the last continuation
// CORO_VALUES-NEXT: // after the write started
// CORO_VALUES-NEXT: /* end of the function */
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> save(int key, bool twice) {
// PROMISE-NEXT: struct save_state {
// PROMISE-NEXT: int old{};
// PROMISE-NEXT: };
// PROMISE-NEXT: auto state_owner = asyncshift::make_shared_state<save_state>();
// PROMISE-NEXT: auto *state = state_owner.get();
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .keep(std::move(state_owner))
// PROMISE-NEXT: .then([=](int old) {
// PROMISE-NEXT: state->old = old;
// PROMISE-NEXT: if (twice) {
// PROMISE-NEXT: log_line("twice");
// PROMISE-NEXT: // end of the then-branch
// PROMISE-NEXT: }
// PROMISE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// PROMISE-NEXT: write_int(key, state->old + 1, std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: // after the write started
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=]() -> int {
// PROMISE-NEXT: return state->old; // reply with the old value
// PROMISE-NEXT: // end of the last continuation
// PROMISE-NEXT: });
// PROMISE-NEXT: /* end of the function */
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> save(int key, bool twice) {
// FUTURE-NEXT: struct save_state {
// FUTURE-NEXT: int old{};
// FUTURE-NEXT: };
// FUTURE-NEXT: auto state_owner = asyncshift::make_shared_state<save_state>();
// FUTURE-NEXT: auto *state = state_owner.get();
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .keep(std::move(state_owner))
// FUTURE-NEXT: .then([=](int old) {
// FUTURE-NEXT: state->old = old;
// FUTURE-NEXT: if (twice) {
// FUTURE-NEXT: log_line("twice");
// FUTURE-NEXT: // end of the then-branch
// FUTURE-NEXT: }
// FUTURE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// FUTURE-NEXT: write_int(key, state->old + 1, std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: // after the write started
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=]() -> int {
// FUTURE-NEXT: return state->old; // reply with the old value
// FUTURE-NEXT: // end of the last continuation
// FUTURE-NEXT: });
// FUTURE-NEXT: /* end of the function */
// FUTURE-NEXT: }

