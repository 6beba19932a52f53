// An unnamed error parameter is a deliberate "ignore": the call settles
// instead of failing. `if (!err) {...} else {...}` that reads the error keeps it
// as a value.
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

void best_effort(asyncshift::callback<int> done) {
  flush([=](asyncshift::error) {
    read_int(1, [=](asyncshift::error err, int v) {
      if (!err) {
        return done({}, v);
      } else {
        log_line(err.message());
        return done(err);
      }
    });
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> best_effort() {
// CORO-NEXT: co_await asyncshift::settle(
// CORO-NEXT: asyncshift::promisify([&](auto cb) { flush(cb); }));
// CORO-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(1, cb); }));
// CORO-NEXT: if (!err) {
// CORO-NEXT: co_return v;
// CORO-NEXT: } else {
// CORO-NEXT: log_line(err.message());
// CORO-NEXT: throw asyncshift::error_exception(err);
// CORO-NEXT: }
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> best_effort() {
// CORO_VALUES-NEXT: co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { flush(cb); }));
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(1, cb); }));
// CORO_VALUES-NEXT: if (!err) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v};
// CORO_VALUES-NEXT: } else {
// CORO_VALUES-NEXT: log_line(err.message());
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> best_effort() {
// PROMISE-NEXT: return asyncshift::settle(
// PROMISE-NEXT: asyncshift::make_promise([&](auto cb) { flush(std::move(cb)); }))
// PROMISE-NEXT: .then([=](asyncshift::error) {
// PROMISE-NEXT: return asyncshift::settle(asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); }));
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=](asyncshift::result<int> settled) -> int {
// PROMISE-NEXT: asyncshift::error err = settled.err;
// PROMISE-NEXT: auto v = settled.value;
// PROMISE-NEXT: if (!err) {
// PROMISE-NEXT: return v;
// PROMISE-NEXT: } else {
// PROMISE-NEXT: log_line(err.message());
// PROMISE-NEXT: throw asyncshift::error_exception(err);
// PROMISE-NEXT: }
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> best_effort() {
// FUTURE-NEXT: return asyncshift::settle(
// FUTURE-NEXT: asyncshift::make_future([&](auto cb) { flush(std::move(cb)); }))
// FUTURE-NEXT: .then([=](asyncshift::error) {
// FUTURE-NEXT: return asyncshift::settle(asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(1, std::move(cb)); }));
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=](asyncshift::result<int> settled) -> int {
// FUTURE-NEXT: asyncshift::error err = settled.err;
// FUTURE-NEXT: auto v = settled.value;
// FUTURE-NEXT: if (!err) {
// FUTURE-NEXT: return v;
// FUTURE-NEXT: } else {
// FUTURE-NEXT: log_line(err.message());
// FUTURE-NEXT: throw asyncshift::error_exception(err);
// FUTURE-NEXT: }
// FUTURE-NEXT: });
// FUTURE-NEXT: }
