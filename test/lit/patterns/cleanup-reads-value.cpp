// Pattern 2 with a cleanup that reads the failed call's value (default-made
// on failure, as `cb(err)` leaves it: every style warns that a value passed
// with the error would be lost, asyncshift-value-read-with-error). A chain cannot run that cleanup in a
// tap_error: there `v` named the outer continuation's `v` (fuzz seed 1
// program 78: a digest mismatch with injected failures). The chain settles
// and runs the continuation's own check instead, as the coroutine does.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: FileCheck %s --check-prefix=WARN --input-file=%t.promise.err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHAIN --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: FileCheck %s --check-prefix=WARN --input-file=%t.future.err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHAIN --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: FileCheck %s --check-prefix=WARN --input-file=%t.coro.err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

void shadowed(asyncshift::callback<> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    read_int(v, [=](asyncshift::error err, int v) {
      if (err) {
        log_line("failed with " + std::to_string(v));
        return done(err);
      }
      log_line("got " + std::to_string(v));
      done({});
    });
  });
}
// CHAIN-LABEL: shadowed() {
// CHAIN: .then([=](int v) {
// CHAIN-NEXT: return asyncshift::settle(
// CHAIN: .then([=](asyncshift::result<int> settled) {
// CHAIN-NEXT: asyncshift::error err = settled.err;
// CHAIN-NEXT: auto v = settled.value;
// CHAIN-NEXT: if (err) {
// CHAIN-NEXT: log_line("failed with " + std::to_string(v));
// CHAIN-NOT: tap_error
// WARN: warning: 'v' is read here where 'err' is set: converted, it holds a default value here{{.*}}[asyncshift-value-read-with-error]
// CORO-LABEL: asyncshift::task<> shadowed() {
// CORO: auto [err, v_2] = co_await asyncshift::settle(
// CORO: log_line("failed with " + std::to_string(v_2));
