// A converted function called with a braced list (`first({key, key + 1},
// ...)`): g++ 12 cannot compile a std::initializer_list's backing array inside
// a co_await expression ("array used as initializer"), so the coroutine
// styles make the call (a lazy task: nothing runs before the await) on the
// line before and await the task. A braced list in a leaf's call stays where
// it is: it is inside the start lambda's body, a function of its own.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.values.cpp 2> %t.values.err
// RUN: count 0 < %t.values.err
// RUN: FileCheck %s --check-prefix=VALUES --input-file=%t.values.cpp
// RUN: %gxx %t.values.cpp && %clangxx %t.values.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
#include "ops.h"

#include <vector>

void sum_keys(std::vector<int> keys, asyncshift::callback<int> done) {
  read_int(keys[0], [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v + static_cast<int>(keys.size()));
  });
}

void lookup(int key, asyncshift::callback<int> done) {
  sum_keys({key, key + 1}, [=](asyncshift::error err, int total) {
    if (err) return done(err);
    fetch(std::to_string(total), [=](asyncshift::error err, std::string body) {
      if (err) return done(err);
      done({}, static_cast<int>(body.size()));
    });
  });
}

void forward(int key, asyncshift::callback<int> done) { sum_keys(std::vector<int>{key, 2}, done); }

// CORO-LABEL: asyncshift::task<int> lookup(int key) {
// CORO-NEXT: auto call = sum_keys({key, key + 1});
// CORO-NEXT: auto total = co_await std::move(call);
// CORO-LABEL: asyncshift::task<int> forward(int key) {
// CORO-NEXT: auto call = sum_keys(std::vector<int>{key, 2});
// CORO-NEXT: co_return co_await std::move(call);

// VALUES-LABEL: asyncshift::task<asyncshift::result<int>> lookup(int key) {
// VALUES-NEXT: auto call = sum_keys({key, key + 1});
// VALUES-NEXT: auto [err, total] = co_await std::move(call);
// VALUES-LABEL: asyncshift::task<asyncshift::result<int>> forward(int key) {
// VALUES-NEXT: auto call = sum_keys(std::vector<int>{key, 2});
// VALUES-NEXT: co_return co_await std::move(call);
