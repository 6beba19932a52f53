// Comments inside a converted function stay where they were written: a
// comment line before a statement goes before what the statement becomes,
// and one after a kept statement on its line stays there. A comment before
// a continuation's leading error check, which most styles fold into the
// await, goes before the statement after the check (it was dropped).
// (Comments at the end of a block: patterns/comments-end-of-block.cpp.)
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

void save(int key, asyncshift::callback<int> done) {
  // Read first: the write depends on the old value.
  int base = compute(key); // a local base
  read_int(key, [=](asyncshift::error err, int old) {
    if (err) return done(err);
    /* The write-back, then the log line. */
    write_int(key, old + base, [=](asyncshift::error err) {
      // Written.
      if (err) return done(err);
      log_line("saved"); // after the write
      done({}, old);
    });
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> save(int key) {
// CORO-NEXT: // Read first: the write depends on the old value.
// CORO-NEXT: int base = compute(key); // a local base
// CORO-NEXT: auto old =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: /* The write-back, then the log line. */
// CORO-NEXT: co_await asyncshift::promisify(
// CORO-NEXT: [&](auto cb) { write_int(key, old + base, cb); });
// CORO-NEXT: // Written.
// CORO-NEXT: log_line("saved"); // after the write
// CORO-NEXT: co_return old;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> save(int key) {
// CORO_VALUES-NEXT: // Read first: the write depends on the old value.
// CORO_VALUES-NEXT: int base = compute(key); // a local base
// CORO_VALUES-NEXT: auto [err, old] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: /* The write-back, then the log line. */
// CORO_VALUES-NEXT: auto err_2 = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { write_int(key, old + base, cb); }));
// CORO_VALUES-NEXT: if (err_2) {
// CORO_VALUES-NEXT: co_return err_2;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: // Written.
// CORO_VALUES-NEXT: log_line("saved"); // after the write
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, old};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> save(int key) {
// PROMISE-NEXT: struct save_state {
// PROMISE-NEXT: int old{};
// PROMISE-NEXT: };
// PROMISE-NEXT: auto state_owner = asyncshift::make_shared_state<save_state>();
// PROMISE-NEXT: auto *state = state_owner.get();
// PROMISE-NEXT: // Read first: the write depends on the old value.
// PROMISE-NEXT: int base = compute(key); // a local base
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .keep(std::move(state_owner))
// PROMISE-NEXT: .then([=](int old) {
// PROMISE-NEXT: state->old = old;
// PROMISE-NEXT: /* The write-back, then the log line. */
// PROMISE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// PROMISE-NEXT: write_int(key, state->old + base, std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=]() -> int {
// PROMISE-NEXT: // Written.
// PROMISE-NEXT: log_line("saved"); // after the write
// PROMISE-NEXT: return state->old;
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> save(int key) {
// FUTURE-NEXT: struct save_state {
// FUTURE-NEXT: int old{};
// FUTURE-NEXT: };
// FUTURE-NEXT: auto state_owner = asyncshift::make_shared_state<save_state>();
// FUTURE-NEXT: auto *state = state_owner.get();
// FUTURE-NEXT: // Read first: the write depends on the old value.
// FUTURE-NEXT: int base = compute(key); // a local base
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .keep(std::move(state_owner))
// FUTURE-NEXT: .then([=](int old) {
// FUTURE-NEXT: state->old = old;
// FUTURE-NEXT: /* The write-back, then the log line. */
// FUTURE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// FUTURE-NEXT: write_int(key, state->old + base, std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=]() -> int {
// FUTURE-NEXT: // Written.
// FUTURE-NEXT: log_line("saved"); // after the write
// FUTURE-NEXT: return state->old;
// FUTURE-NEXT: });
// FUTURE-NEXT: }
