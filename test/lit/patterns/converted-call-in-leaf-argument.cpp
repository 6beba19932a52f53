// A function this run converts, called without waiting inside another
// argument of a leaf call (an asyncshift::series step): the step keeps its
// callback, so the call is started and delivered to that callback, as calls
// from code that keeps its callbacks are. It was left in callback form and
// did not compile.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
#include "ops.h"
#include <vector>

void scaled(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    done({}, v * 10);
  });
}

void both(int key, asyncshift::callback<int> done) {
  asyncshift::series<int>(
      2, [=](std::size_t i, asyncshift::callback<int> step) { scaled(key + static_cast<int>(i), step); },
      [=](asyncshift::error err, std::vector<int> vs) {
        if (err)
          return done(err);
        done({}, vs[0] + vs[1]);
      });
}
// CORO-LABEL: asyncshift::task<int> both(int key) {
// CORO:       [=](std::size_t i, asyncshift::callback<int> step) {
// CORO-NEXT:  asyncshift::start(scaled(key + static_cast<int>(i)), step);
// PROMISE-LABEL: asyncshift::promise<int> both(int key) {
// PROMISE:       [=](std::size_t i, asyncshift::callback<int> step) {
// PROMISE-NEXT:  scaled(key + static_cast<int>(i)).then_callback(step);
