// The handler parameter goes with the comments after it; the comments of the
// parameter before it stay with that one, before or after the comma. (The
// handler's comment was left on the parameter before it, whose own comment
// was dropped.)
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

void copy(int key /* source */, asyncshift::callback<int> done /* called once */) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v);
  });
}

void copy_twice(int key, // the key to copy
                asyncshift::callback<int> done // called once
) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    read_int(v, done);
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> copy(int key /* source */) {
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: co_return v;
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<int> copy_twice(int key // the key to copy
// CORO-NEXT: ) {
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: co_return co_await asyncshift::promisify<int>(
// CORO-NEXT: [&](auto cb) { read_int(v, cb); });
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> copy(int key /* source */) {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v};
// CORO_VALUES-NEXT: }
// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> copy_twice(int key // the key to copy
// CORO_VALUES-NEXT: ) {
// CORO_VALUES-NEXT: auto [err, v] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); }));
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(v, cb); }));
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> copy(int key /* source */) {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); });
// PROMISE-NEXT: }
// PROMISE-LABEL: asyncshift::promise<int> copy_twice(int key // the key to copy
// PROMISE-NEXT: ) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// PROMISE-NEXT: .then([=](int v) {
// PROMISE-NEXT: return asyncshift::promisify<int>(
// PROMISE-NEXT: [=](auto cb) mutable { read_int(v, std::move(cb)); });
// PROMISE-NEXT: });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> copy(int key /* source */) {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); });
// FUTURE-NEXT: }
// FUTURE-LABEL: asyncshift::future<int> copy_twice(int key // the key to copy
// FUTURE-NEXT: ) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(key, std::move(cb)); })
// FUTURE-NEXT: .then([=](int v) {
// FUTURE-NEXT: return asyncshift::promisify<int>(
// FUTURE-NEXT: [=](auto cb) mutable { read_int(v, std::move(cb)); });
// FUTURE-NEXT: });
// FUTURE-NEXT: }

