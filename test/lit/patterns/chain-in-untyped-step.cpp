// Promise and future styles: a chain returned from a step whose lambda does
// not spell its type stays make_promise / make_future, whose first operation
// starts inside the step. A fused chain (make_promise_chain) would convert,
// and start, after the step's lambda has returned, and its first start reads
// the step's locals (here `b`) by reference: ASan's stack-use-after-scope in
// fuzz seed 9191, program 23.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"

void guarded(int k, asyncshift::callback<int> done) {
  read_int(k, [=](asyncshift::error err, int a) {
    if (err) return done(err);
    int b = a + 1;
    if (b > 2) {
      read_int(b, [=](asyncshift::error err, int c) {
        if (err) return done(err);
        done({}, c + 1);
      });
      return;
    }
    done(asyncshift::error("too small"));
  });
}

// ---- expected output
// PROMISE-LABEL: asyncshift::promise<int> guarded(int k) {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// PROMISE-NEXT: .then([=](int a) {
// PROMISE-NEXT: int b = a + 1;
// PROMISE-NEXT: if (b > 2) {
// PROMISE-NEXT: return asyncshift::make_promise<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(b, std::move(cb)); })
// PROMISE-NEXT: .then([=](int c) -> int { return c + 1; });
// FUTURE-LABEL: asyncshift::future<int> guarded(int k) {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(k, std::move(cb)); })
// FUTURE-NEXT: .then([=](int a) {
// FUTURE-NEXT: int b = a + 1;
// FUTURE-NEXT: if (b > 2) {
// FUTURE-NEXT: return asyncshift::make_future<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(b, std::move(cb)); })
// FUTURE-NEXT: .then([=](int c) -> int { return c + 1; });
