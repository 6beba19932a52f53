// A call of a converted function inside the handler of another, from code
// that keeps its callbacks (a driver, main): each is started and delivered
// to its own handler, the inner ones inside the outer one's handler text.
// (It was refused as asyncshift-detached-converted-call. Inside a converted
// function such a call is still refused: refuse/detached-converted-call.cpp.)
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

void step(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v + 1);
  });
}

// A driver that keeps its callbacks starts the next call from the first
// one's handler, and a third from the second's.
void driver() {
  step(1, [](asyncshift::error err, int a) {
    if (err) return log_line("first failed");
    step(a, [](asyncshift::error, int b) {
      step(b, [](asyncshift::error, int c) { log_line(std::to_string(c)); });
    });
  });
  step(10, [](asyncshift::error, int) {});
}

// ---- expected output
// CORO-LABEL: void driver() {
// CORO-NEXT: asyncshift::start(step(1), [](asyncshift::error err, int a) {
// CORO-NEXT: if (err)
// CORO-NEXT: return log_line("first failed");
// CORO-NEXT: asyncshift::start(step(a), [](asyncshift::error, int b) {
// CORO-NEXT: asyncshift::start(step(b), [](asyncshift::error, int c) {
// CORO-NEXT: log_line(std::to_string(c));
// CORO-NEXT: });
// CORO-NEXT: });
// CORO-NEXT: });
// CORO-NEXT: asyncshift::start(step(10), [](asyncshift::error, int) {});
// CORO-NEXT: }

// CORO_VALUES-LABEL: void driver() {
// CORO_VALUES-NEXT: asyncshift::start(step(1), [](asyncshift::error err, int a) {
// CORO_VALUES-NEXT: if (err)
// CORO_VALUES-NEXT: return log_line("first failed");
// CORO_VALUES-NEXT: asyncshift::start(step(a), [](asyncshift::error, int b) {
// CORO_VALUES-NEXT: asyncshift::start(step(b), [](asyncshift::error, int c) {
// CORO_VALUES-NEXT: log_line(std::to_string(c));
// CORO_VALUES-NEXT: });
// CORO_VALUES-NEXT: });
// CORO_VALUES-NEXT: });
// CORO_VALUES-NEXT: asyncshift::start(step(10), [](asyncshift::error, int) {});
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: void driver() {
// PROMISE-NEXT: step(1).then_callback([](asyncshift::error err, int a) {
// PROMISE-NEXT: if (err)
// PROMISE-NEXT: return log_line("first failed");
// PROMISE-NEXT: step(a).then_callback([](asyncshift::error, int b) {
// PROMISE-NEXT: step(b).then_callback(
// PROMISE-NEXT: [](asyncshift::error, int c) { log_line(std::to_string(c)); });
// PROMISE-NEXT: });
// PROMISE-NEXT: });
// PROMISE-NEXT: step(10).then_callback([](asyncshift::error, int) {});
// PROMISE-NEXT: }

// FUTURE-LABEL: void driver() {
// FUTURE-NEXT: step(1).then_callback([](asyncshift::error err, int a) {
// FUTURE-NEXT: if (err)
// FUTURE-NEXT: return log_line("first failed");
// FUTURE-NEXT: step(a).then_callback([](asyncshift::error, int b) {
// FUTURE-NEXT: step(b).then_callback(
// FUTURE-NEXT: [](asyncshift::error, int c) { log_line(std::to_string(c)); });
// FUTURE-NEXT: });
// FUTURE-NEXT: });
// FUTURE-NEXT: step(10).then_callback([](asyncshift::error, int) {});
// FUTURE-NEXT: }

