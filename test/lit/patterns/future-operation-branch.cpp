// A parallel whose branch is one operation passing its outcome on: the future
// style joins the operations themselves (make_future of when_all over
// promisify, as the coroutine style's when_all does), so no future is made
// per branch. The promise style keeps a promise per branch (promise<T>::all
// over make_promise, as Promise.all takes promises). A branch that does more
// than one operation is a function returning a future under when_all
// (pattern-06-parallel.cpp).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=future %t.cpp -- %flags > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %flags > %t.promise.cpp 2> %t.promise.err
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

// FUTURE-LABEL: asyncshift::future<std::vector<int>> read_many(int n) {
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), [=](std::size_t i) {
// FUTURE-NEXT: return asyncshift::promisify<int>(
// FUTURE-NEXT: [=](auto cb) { read_int(static_cast<int>(i), std::move(cb)); });
// FUTURE-NEXT: }));
// FUTURE-NEXT: }

// PROMISE-LABEL: asyncshift::promise<std::vector<int>> read_many(int n) {
// PROMISE-NEXT: return asyncshift::promise<int>::all(
// PROMISE-NEXT: static_cast<std::size_t>(n),
// PROMISE-NEXT: [=](std::size_t i) -> asyncshift::promise<int> {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(static_cast<int>(i), std::move(cb)); });
// PROMISE-NEXT: });
// PROMISE-NEXT: }
