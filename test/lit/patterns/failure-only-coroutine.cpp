// A function or parallel branch whose only exit is a failure must still be a
// coroutine in coro (its task fails; nothing is thrown at the caller): a void
// task ends with `co_return;`, a task<T> with an await that never suspends
// (`co_return;` does not compile there, and a T may not be default-made).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
#include "ops.h"

#include <vector>

void refuse(asyncshift::callback<> done) {
  flush([](asyncshift::error) {});
  return done(asyncshift::error("refused"));
}
// CORO-LABEL: asyncshift::task<> refuse() {
// CORO: throw asyncshift::error_exception(asyncshift::error("refused"));
// CORO-NEXT: co_return; // a coroutine: fails its task, not its caller

void refuse_value(asyncshift::callback<int> done) {
  flush([](asyncshift::error) {});
  return done(asyncshift::error("refused"));
}
// CORO-LABEL: asyncshift::task<int> refuse_value() {
// CORO: throw asyncshift::error_exception(asyncshift::error("refused"));
// CORO-NEXT: co_await std::suspend_never{}; // a coroutine: fails its task, not its caller

void branches_fail(std::size_t n, asyncshift::callback<std::vector<int>> done) {
  asyncshift::parallel<int>(
      n,
      [=](std::size_t i, asyncshift::callback<int> got) {
        flush([](asyncshift::error) {});
        got(asyncshift::error("branch " + std::to_string(i)));
      },
      done);
}
// CORO-LABEL: branches_fail(std::size_t n) {
// CORO: [=](std::size_t i) -> asyncshift::task<int> {
// CORO: throw asyncshift::error_exception(
// CORO-NEXT: asyncshift::error("branch " + std::to_string(i)));
// CORO-NEXT: co_await std::suspend_never{}; // a coroutine: fails its task, not its

// The steps of the series never wait, so its loop (in a try, for the
// cleanup) holds no await: the branch is still made a coroutine (fuzz seed 1
// program 43, whose parallel then completed with the failure thrown out of
// when_all's call instead of settled).
void series_then_fail(std::size_t n, asyncshift::callback<std::vector<int>> done) {
  asyncshift::parallel<int>(
      n,
      [=](std::size_t i, asyncshift::callback<int> got) {
        asyncshift::each_series(
            i,
            [=](std::size_t s, asyncshift::callback<> step) {
              log_line("step");
              step({});
            },
            [=](asyncshift::error err) {
              if (err) {
                log_line("cleanup");
                return got(err);
              }
              return got(asyncshift::error("after the series"));
            });
      },
      done);
}
// CORO-LABEL: series_then_fail(std::size_t n) {
// CORO: [=](std::size_t i) -> asyncshift::task<int> {
// CORO: } catch (const asyncshift::error_exception &) {
// CORO: throw asyncshift::error_exception(asyncshift::error("after the series"));
// CORO-NEXT: co_await std::suspend_never{}; // a coroutine: fails its task, not its
