// A continuation that takes its value by `const T&` (or `T&&`) and reads it
// after a later wait. The parameter names the value its callback passed, and
// the inner continuation's `[=]` copies it, so it is a value like any other:
// promise and future style keep it in the per-call state (it was refused as
// a reference), the coroutine styles declare it as written.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=CHAIN --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=CHAIN --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

void fetch_twice(std::string url, asyncshift::callback<std::string> done) {
  fetch(url, [=](asyncshift::error err, const std::string &body) {
    if (err) return done(err);
    flush([=](asyncshift::error err) {
      if (err) return done(err);
      done({}, body + body);
    });
  });
}

void fetch_moved(std::string url, asyncshift::callback<std::string> done) {
  fetch(url, [=](asyncshift::error err, std::string &&body) {
    if (err) return done(err);
    flush([=](asyncshift::error err) {
      if (err) return done(err);
      done({}, body);
    });
  });
}

// CHAIN-LABEL: fetch_twice(std::string url) {
// CHAIN: std::string body{};
// CHAIN: .then([=](std::string body) {
// CHAIN-NEXT: state->body = body;
// CHAIN: return state->body + state->body;
// CHAIN-LABEL: fetch_moved(std::string url) {
// CHAIN: std::string body{};
// CHAIN: .then([=](std::string body) {
// CHAIN-NEXT: state->body = body;
