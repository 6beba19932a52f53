// A function that completes its handler synchronously on some paths and
// asynchronously on others (the checker's asyncshift-mixed-sync-async): the
// rewriter converts it in every style, and promise style warns, since its
// continuations run from the microtask queue and work started in the same
// turn may start in another order than in the original
// (docs/transforms/README.md, "What promise style cannot keep"). The warning
// does not stop the output: exit status 0 and the file is written.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -o %t.promise.cpp -- %{tool_flags} 2> %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE_WARN --input-file=%t.promise.err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// The styles that run continuations inline keep the order, and say nothing.
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
#include "ops.h"

#include <vector>

// A cache hit completes at once, a miss from the loop.
void cached(int key, asyncshift::callback<int> done) {
  if (key % 2 == 0)
    return done({}, key * 3);
  read_int(key, done);
}
// PROMISE_WARN: :[[@LINE-5]]:6: warning: 'cached' completes 'done' synchronously on some paths and asynchronously on others; promise style runs every continuation from the microtask queue, so after a synchronous completion it runs later than in the original, and work in the same turn may start in another order (--style=future, coro or coro-values keep the order; or make every path asynchronous) [asyncshift-sync-completion-reordered]
// PROMISE_WARN: :[[@LINE-5]]:7: note: assuming 'key % 2 == 0' is true
// PROMISE_WARN: :[[@LINE-5]]:12: note: completes 'done' synchronously here, before the call returns
// PROMISE_WARN: :[[@LINE-5]]:3: note: completes 'done' asynchronously here, after the call returned

// Its callers' branches reach their reads in another order in promise style
// when some keys are even and some odd.
void sum_pair(int key, asyncshift::callback<int> done) {
  asyncshift::parallel<int>(
      2, [=](std::size_t i, asyncshift::callback<int> cb) { cached(key + static_cast<int>(i), cb); },
      [=](asyncshift::error err, std::vector<int> vs) {
        if (err)
          return done(err);
        done({}, vs[0] + vs[1]);
      });
}

// PROMISE-LABEL: asyncshift::promise<int> cached(int key) {
// PROMISE-LABEL: asyncshift::promise<int> sum_pair(int key) {
// PROMISE: asyncshift::promise<int>::all(
