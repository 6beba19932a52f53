// A chain step whose one arm joins a named continuation after an inner `if`
// (both of whose arms call it at once) and whose other arm completes. The
// joining arm is a chain of its own (the `if` at its head), so it returns a
// promise even with no async call in it, and the completing arm must return a
// settled one: a bare `return;` beside it did not compile ("inconsistent
// types deduced for lambda return type"; fuzz seed 13 program 55, with
// --strings).
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

void settle_up(bool big, asyncshift::callback<> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    if (v > 2) {
      auto finish = [=](asyncshift::error err) {
        if (err) return done(err);
        log_line("finished");
        done({});
      };
      if (big) {
        finish({});
      } else {
        log_line("small");
        finish({});
      }
      return;
    }
    return done({});
  });
}

// ---- expected output
// PROMISE-LABEL: asyncshift::promise<> settle_up(bool big) {
// PROMISE: .then([=](int v) -> asyncshift::promise<> {
// PROMISE-NEXT: if (v > 2) {
// PROMISE-NEXT: return [&]() -> asyncshift::promise<> {
// PROMISE: }()
// PROMISE-NEXT: .then([=] { log_line("finished"); });
// PROMISE-NEXT: } else {
// PROMISE-NEXT: return asyncshift::promise<>::resolve();
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<> settle_up(bool big) {
// FUTURE: .then([=](int v) -> asyncshift::future<> {
// FUTURE-NEXT: if (v > 2) {
// FUTURE-NEXT: return [&]() -> asyncshift::future<> {
// FUTURE: }()
// FUTURE-NEXT: .then([=] { log_line("finished"); });
// FUTURE-NEXT: } else {
// FUTURE-NEXT: return asyncshift::make_ready_future();
// FUTURE-NEXT: }
