// A loop with no condition, or a constant true one, and no `break` of its own
// (`for (;;)`, `while (true)`) is left only by the completions in its body:
// nothing after it runs, so a continuation that ends with it calls its
// handler on every path, and an `if` arm that ends with it does not go on to
// what follows the `if`. With a `break`, the path after the loop must
// complete as before.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --check %t.cpp -- %{tool_flags} 2>&1 | count 0
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

#include <vector>

void sum_until(std::vector<int> values, int limit, asyncshift::callback<int> done) {
  read_int(0, [=](asyncshift::error err, int base) {
    if (err) return done(err);
    int sum = base;
    std::size_t i = 0;
    for (;;) {
      if (i == values.size()) return done(asyncshift::error("short"));
      if (sum >= limit) return done({}, sum);
      sum += values[i++];
    }
  });
}

void climb(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    int n = v;
    if (v % 3 == 0) {
      while (true) {
        if (n > 30) return done({}, n);
        n += 4;
      }
    }
    write_int(key, n, [=](asyncshift::error err) {
      if (err) return done(err);
      done({}, n);
    });
  });
}

void find_small(std::vector<int> values, asyncshift::callback<int> done) {
  read_int(0, [=](asyncshift::error err, int limit) {
    if (err) return done(err);
    std::size_t i = 0;
    while (true) {
      if (i == values.size()) break;
      if (values[i] < 0) return done(asyncshift::error("negative"));
      if (values[i] < limit) return done({}, values[i]);
      ++i;
    }
    done({}, -1);
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> sum_until(std::vector<int> values,
// CORO: std::size_t i = 0;
// CORO-NEXT: for (;;) {
// CORO-NEXT: if (i == values.size()) {
// CORO-NEXT: throw asyncshift::error_exception(asyncshift::error("short"));
// CORO-NEXT: }
// CORO-NEXT: if (sum >= limit) {
// CORO-NEXT: co_return sum;
// CORO-NEXT: }
// CORO-NEXT: sum += values[i++];
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<int> climb(int key) {
// CORO: if (v % 3 == 0) {
// CORO-NEXT: while (true) {
// CORO-NEXT: if (n > 30) {
// CORO-NEXT: co_return n;
// CORO-NEXT: }
// CORO-NEXT: n += 4;
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-NEXT: co_await asyncshift::promisify(
// CORO-LABEL: asyncshift::task<int> find_small(std::vector<int> values) {
// CORO: break;
// CORO: co_return -1;

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> sum_until(
// CORO_VALUES: for (;;) {
// CORO_VALUES-NEXT: if (i == values.size()) {
// CORO_VALUES-NEXT: co_return asyncshift::error("short");
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (sum >= limit) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, sum};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: sum += values[i++];
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> sum_until(std::vector<int> values,
// PROMISE: .then([=](int base) -> int {
// PROMISE-NEXT: int sum = base;
// PROMISE-NEXT: std::size_t i = 0;
// PROMISE-NEXT: for (;;) {
// PROMISE-NEXT: if (i == values.size()) {
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error("short"));
// PROMISE-NEXT: }
// PROMISE-NEXT: if (sum >= limit) {
// PROMISE-NEXT: return sum;
// PROMISE-NEXT: }
// PROMISE-NEXT: sum += values[i++];
// PROMISE-NEXT: }
// PROMISE-NEXT: });
// PROMISE-LABEL: asyncshift::promise<int> climb(int key) {
// PROMISE: while (true) {
// PROMISE-NEXT: if (n > 30) {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(n);
// PROMISE-NEXT: }
// PROMISE-NEXT: n += 4;
// PROMISE-NEXT: }
// PROMISE-NEXT: }
// PROMISE-NEXT: return asyncshift::make_promise_chain(

// FUTURE-LABEL: asyncshift::future<int> sum_until(std::vector<int> values,
// FUTURE: for (;;) {
// FUTURE: sum += values[i++];
// FUTURE-NEXT: }
// FUTURE-NEXT: });
