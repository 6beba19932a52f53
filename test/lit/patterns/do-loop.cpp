// A `do` loop that waits for nothing and completes the handler from inside
// stays a `do` loop in every style: `do {`, its body, and `} while (...);`
// (the condition renamed like any other text, here to the per-call state's
// fields); an unbraced body gets braces.
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

void settle_down(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    int x = v;
    int rounds = 0;
    do {
      if (x == 13) return done(asyncshift::error("unlucky"));
      x = (x * 5 + 1) % 16;
      ++rounds;
    } while (x % 4 != 0 && rounds < 5);
    read_int(x, [=](asyncshift::error err, int w) {
      if (err) return done(err);
      done({}, x + rounds + w);
    });
  });
}

void first_positive(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    int i = v;
    do if (i > 0) return done({}, i); while (++i < 3);
    done(asyncshift::error("none"));
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> settle_down(int key) {
// CORO: int rounds = 0;
// CORO-NEXT: do {
// CORO-NEXT: if (x == 13) {
// CORO-NEXT: throw asyncshift::error_exception(asyncshift::error("unlucky"));
// CORO-NEXT: }
// CORO-NEXT: x = (x * 5 + 1) % 16;
// CORO-NEXT: ++rounds;
// CORO-NEXT: } while (x % 4 != 0 && rounds < 5);
// CORO-NEXT: auto w =
// CORO-LABEL: asyncshift::task<int> first_positive(int key) {
// CORO: int i = v;
// CORO-NEXT: do {
// CORO-NEXT: if (i > 0) {
// CORO-NEXT: co_return i;
// CORO-NEXT: }
// CORO-NEXT: } while (++i < 3);
// CORO-NEXT: throw asyncshift::error_exception(asyncshift::error("none"));
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> settle_down(int key) {
// CORO_VALUES: do {
// CORO_VALUES-NEXT: if (x == 13) {
// CORO_VALUES-NEXT: co_return asyncshift::error("unlucky");
// CORO_VALUES: } while (x % 4 != 0 && rounds < 5);
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> first_positive(int key) {
// CORO_VALUES: } while (++i < 3);
// CORO_VALUES-NEXT: co_return asyncshift::error("none");

// PROMISE-LABEL: asyncshift::promise<int> settle_down(int key) {
// PROMISE: state->rounds = 0;
// PROMISE-NEXT: do {
// PROMISE-NEXT: if (state->x == 13) {
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error("unlucky"));
// PROMISE-NEXT: }
// PROMISE-NEXT: state->x = (state->x * 5 + 1) % 16;
// PROMISE-NEXT: ++state->rounds;
// PROMISE-NEXT: } while (state->x % 4 != 0 && state->rounds < 5);
// PROMISE-NEXT: return asyncshift::promisify<int>(
// PROMISE-LABEL: asyncshift::promise<int> first_positive(int key) {
// PROMISE: .then([=](int v) -> int {
// PROMISE-NEXT: int i = v;
// PROMISE-NEXT: do {
// PROMISE-NEXT: if (i > 0) {
// PROMISE-NEXT: return i;
// PROMISE-NEXT: }
// PROMISE-NEXT: } while (++i < 3);
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error("none"));

// FUTURE-LABEL: asyncshift::future<int> settle_down(int key) {
// FUTURE: } while (state->x % 4 != 0 && state->rounds < 5);
// FUTURE-LABEL: asyncshift::future<int> first_positive(int key) {
// FUTURE: } while (++i < 3);
// FUTURE-NEXT: throw asyncshift::error_exception(asyncshift::error("none"));
