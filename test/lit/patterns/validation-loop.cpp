// A loop that waits for nothing and completes the handler from inside (a
// validation loop) stays a loop in every style: its completions become the
// style's return or failure, after a wait or before the first one.
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

#include <vector>

void first_big(int key, std::vector<int> limits, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    for (int limit : limits) {
      if (limit < 0) return done(asyncshift::error("bad"));
      if (v > limit) return done({}, limit);
    }
    done({}, v);
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> first_big(int key,
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: for (int limit : limits) {
// CORO-NEXT: if (limit < 0) {
// CORO-NEXT: throw asyncshift::error_exception(asyncshift::error("bad"));
// CORO-NEXT: }
// CORO-NEXT: if (v > limit) {
// CORO-NEXT: co_return limit;
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-NEXT: co_return v;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> first_big(int key,
// CORO_VALUES: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: for (int limit : limits) {
// CORO_VALUES-NEXT: if (limit < 0) {
// CORO_VALUES-NEXT: co_return asyncshift::error("bad");
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (v > limit) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, limit};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> first_big(int key,
// PROMISE: .then([=](int v) -> int {
// PROMISE-NEXT: for (int limit : limits) {
// PROMISE-NEXT: if (limit < 0) {
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error("bad"));
// PROMISE-NEXT: }
// PROMISE-NEXT: if (v > limit) {
// PROMISE-NEXT: return limit;
// PROMISE-NEXT: }
// PROMISE-NEXT: }
// PROMISE-NEXT: return v;
// PROMISE-NEXT: });

// FUTURE-LABEL: asyncshift::future<int> first_big(int key,
// FUTURE: .then([=](int v) -> int {
// FUTURE-NEXT: for (int limit : limits) {
// FUTURE-NEXT: if (limit < 0) {
// FUTURE-NEXT: throw asyncshift::error_exception(asyncshift::error("bad"));
// FUTURE-NEXT: }
// FUTURE-NEXT: if (v > limit) {
// FUTURE-NEXT: return limit;
// FUTURE-NEXT: }
// FUTURE-NEXT: }
// FUTURE-NEXT: return v;
// FUTURE-NEXT: });
