// A parallel whose branch is one operation passing its outcome on: the future
// and promise styles join the operations themselves (make_future /
// make_promise of when_all over promisify, as the coroutine style's when_all
// does), so no future or promise is made per branch; the promise's own
// reactions still run from microtasks. A branch that does more than one
// operation is a function returning a future (promise) under when_all
// (promise<T>::all; pattern-06-parallel.cpp). A cleanup on the failure path
// goes in as make_future's (make_promise's) on_error argument, as a leaf
// operation's does, rather than as a tap_error state after it.
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

void read_many(int n, asyncshift::callback<std::vector<int>> done) {
  asyncshift::parallel<int>(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<int> got) { read_int(static_cast<int>(i), got); },
      done);
}

void write_many(int n, asyncshift::callback<> done) {
  asyncshift::parallel(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<> wrote) { write_int(static_cast<int>(i), 1, wrote); },
      [=](asyncshift::error err) {
        if (err) {
          log_line("failed");
          return done(err);
        }
        done({});
      });
}

// FUTURE-LABEL: asyncshift::future<std::vector<int>> read_many(int n) {
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), [=](std::size_t i) {
// FUTURE-NEXT: return asyncshift::promisify<int>(
// FUTURE-NEXT: [=](auto cb) { read_int(static_cast<int>(i), std::move(cb)); });
// FUTURE-NEXT: }));
// FUTURE-NEXT: }

// PROMISE-LABEL: asyncshift::promise<std::vector<int>> read_many(int n) {
// PROMISE-NEXT: return asyncshift::make_promise(
// PROMISE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), [=](std::size_t i) {
// PROMISE-NEXT: return asyncshift::promisify<int>(
// PROMISE-NEXT: [=](auto cb) { read_int(static_cast<int>(i), std::move(cb)); });
// PROMISE-NEXT: }));
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<> write_many(int n) {
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n),
// FUTURE-NEXT: [=](std::size_t i) {
// FUTURE-NEXT: return asyncshift::promisify([=](auto cb) {
// FUTURE-NEXT: write_int(static_cast<int>(i), 1, std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: }),
// FUTURE-NEXT: asyncshift::on_error(
// FUTURE-NEXT: [=](const asyncshift::error &) { log_line("failed"); }));
// FUTURE-NEXT: }

// PROMISE-LABEL: asyncshift::promise<> write_many(int n) {
// PROMISE-NEXT: return asyncshift::make_promise(
// PROMISE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n),
// PROMISE-NEXT: [=](std::size_t i) {
// PROMISE-NEXT: return asyncshift::promisify([=](auto cb) {
// PROMISE-NEXT: write_int(static_cast<int>(i), 1, std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: }),
// PROMISE-NEXT: asyncshift::on_error(
// PROMISE-NEXT: [=](const asyncshift::error &) { log_line("failed"); }));
// PROMISE-NEXT: }
