// A chain step whose one arm joins a named continuation that only fails, and
// whose code after the arm completes with a value. The joining arm says
// nothing about the step's value, so the step is typed by what follows it:
// the step was typed by the continuation's parameter (none), printed
// `-> asyncshift::future<>` and `make_ready_future()` for `done({}, s)`, and
// did not compile (fuzz seed 2929 program 4).
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

#include <string>

void label_of(bool big, asyncshift::callback<std::string> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    if (v > 2) {
      auto refuse = [=](asyncshift::error err) {
        if (err) return done(err);
        return done(asyncshift::error("too large"));
      };
      if (big) {
        read_int(2, [=](asyncshift::error err, int) {
          if (err) return refuse(err);
          refuse({});
        });
      } else {
        refuse({});
      }
      return;
    }
    done({}, std::string("small"));
  });
}

// ---- expected output
// PROMISE-LABEL: asyncshift::promise<std::string> label_of(bool big) {
// PROMISE: .then([=](int v) -> asyncshift::promise<std::string> {
// PROMISE-NEXT: if (v > 2) {
// PROMISE-NEXT: return [&]() -> asyncshift::promise<> {
// PROMISE: }()
// PROMISE-NEXT: .then([=]() -> std::string {
// PROMISE-NEXT: throw asyncshift::error_exception(
// PROMISE-NEXT: asyncshift::error("too large"));
// PROMISE: } else {
// PROMISE-NEXT: return asyncshift::promise<std::string>::resolve(
// PROMISE-NEXT: std::string("small"));

// FUTURE-LABEL: asyncshift::future<std::string> label_of(bool big) {
// FUTURE: .then([=](int v) -> asyncshift::future<std::string> {
// FUTURE-NEXT: if (v > 2) {
// FUTURE-NEXT: return [&]() -> asyncshift::future<> {
// FUTURE: }()
// FUTURE-NEXT: .then([=]() -> std::string {
// FUTURE-NEXT: throw asyncshift::error_exception(
// FUTURE-NEXT: asyncshift::error("too large"));
// FUTURE: } else {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<std::string>(
// FUTURE-NEXT: std::string("small"));
