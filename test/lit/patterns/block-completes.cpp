// A nested block (`{ ... }`) that waits for nothing and completes the handler
// from inside is kept as written in every style, as a validation loop is:
// its completions become the style's return or failure.
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

void checked_double(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    {
      const int twice = v * 2;
      if (twice > 100) return done(asyncshift::error("too big"));
      if (twice == 0) return done({}, 1);
    }
    done({}, v * 2);
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> checked_double(int key) {
// CORO: read_int(key, cb); });
// CORO-NEXT: {
// CORO-NEXT: const int twice = v * 2;
// CORO-NEXT: if (twice > 100) {
// CORO-NEXT: throw asyncshift::error_exception(asyncshift::error("too big"));
// CORO-NEXT: }
// CORO-NEXT: if (twice == 0) {
// CORO-NEXT: co_return 1;
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-NEXT: co_return v * 2;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> checked_double(int key) {
// CORO_VALUES: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: {
// CORO_VALUES-NEXT: const int twice = v * 2;
// CORO_VALUES-NEXT: if (twice > 100) {
// CORO_VALUES-NEXT: co_return asyncshift::error("too big");
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (twice == 0) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, 1};
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v * 2};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> checked_double(int key) {
// PROMISE: .then([=](int v) -> int {
// PROMISE-NEXT: {
// PROMISE-NEXT: const int twice = v * 2;
// PROMISE-NEXT: if (twice > 100) {
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error("too big"));
// PROMISE-NEXT: }
// PROMISE-NEXT: if (twice == 0) {
// PROMISE-NEXT: return 1;
// PROMISE-NEXT: }
// PROMISE-NEXT: }
// PROMISE-NEXT: return v * 2;
// PROMISE-NEXT: });

// FUTURE-LABEL: asyncshift::future<int> checked_double(int key) {
// FUTURE: .then([=](int v) -> int {
// FUTURE-NEXT: {
// FUTURE-NEXT: const int twice = v * 2;
// FUTURE-NEXT: if (twice > 100) {
// FUTURE-NEXT: throw asyncshift::error_exception(asyncshift::error("too big"));
// FUTURE-NEXT: }
// FUTURE-NEXT: if (twice == 0) {
// FUTURE-NEXT: return 1;
// FUTURE-NEXT: }
// FUTURE-NEXT: }
// FUTURE-NEXT: return v * 2;
// FUTURE-NEXT: });
