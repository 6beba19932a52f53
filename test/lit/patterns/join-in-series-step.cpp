// A named continuation joined inside a step of a series that keeps its error
// (here a series nested in another's step): the call that passes the
// continuation as its handler does not throw on failure, so the join must
// receive the error and keep its own check. Before, the check was dropped and
// a failed read_int went on to the next step (fuzz seed 1 program 923).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE_WARN --input-file=%t.promise.err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// Promise style warns where the original completes synchronously on some paths only.
// PROMISE_WARN: warning: lambda completes 'step' synchronously on some paths and asynchronously on others; promise style runs every continuation from the microtask queue{{.*}} [asyncshift-sync-completion-reordered]
#include "ops.h"

void nested_series_join(int n, asyncshift::callback<> done) {
  asyncshift::each_series(
      2,
      [=](std::size_t i, asyncshift::callback<> step) {
        asyncshift::each_series(
            2,
            [=](std::size_t s, asyncshift::callback<> step) {
              auto next = [=](asyncshift::error err, int v) {
                if (err) return step(err);
                log_line(std::to_string(v));
                step({});
              };
              if (i < s) {
                read_int(static_cast<int>(s), next);
              } else {
                next({}, n);
              }
            },
            step);
      },
      [=](asyncshift::error err) {
        if (err) return done(err);
        done({});
      });
}
// CORO-LABEL: asyncshift::task<> nested_series_join(int n) {
// CORO: asyncshift::error [[SERIES:err_[0-9]+]];
// CORO: asyncshift::error [[JOIN:err]];
// CORO: auto [[[SITE:err_[0-9]+]], v_2] =
// CORO: [[JOIN]] = [[SITE]];
// CORO: } else {
// CORO-NEXT: [[JOIN]] = {};
// CORO: if ([[JOIN]]) {
// CORO-NEXT: [[SERIES]] = [[JOIN]];
// CORO-NEXT: break;
// CORO-NEXT: }
// CORO-NEXT: log_line(std::to_string(v));
