// A loop that waits for nothing inside an each_series step: the coroutine
// styles write the series as a loop whose step ends with `continue;` or
// `break;`, which the inner loop would take for its own. coro converts a loop
// that only fails the step (a failure is thrown there); every other
// completion in such a loop is refused, and coro-values (which keeps a
// failure for after the series with `break;`) refuses them all. The chain
// styles convert both: the step is a function of its own there.
// RUN: rm -f %t.out.cpp %t.values.cpp %t.promise.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=coro-values %s -o %t.values.cpp -- %{tool_flags} 2> %t.values.err
// RUN: FileCheck %s --check-prefix=VALUES --input-file=%t.values.err --implicit-check-not=error:
// RUN: not test -e %t.values.cpp
// RUN: %asyncshift --style=promise %s -o %t.promise.cpp -- %{tool_flags}
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp
// RUN: sed -e '/^.. BEGIN-ENDS-STEP/,/^.. END-ENDS-STEP/d' %s > %t.fails-only.cpp
// RUN: %asyncshift --style=coro %t.fails-only.cpp -o %t.coro.cpp -- %{tool_flags}
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

#include <vector>

// Only fails from inside the loop: coro throws; coro-values would `break;`.
void series_check(std::vector<int> keys, asyncshift::callback<> done) {
  asyncshift::each_series(
      keys.size(),
      [=](std::size_t i, asyncshift::callback<> step) {
        read_int(keys[i], [=](asyncshift::error err, int v) {
          if (err) return step(err);
          for (int d = 0; d < 3; ++d)
            // VALUES: :[[@LINE+1]]:32: error: the step's callback is called inside a loop in an each_series step, and this style's step ends here with `continue;` or `break;`, which would end that loop instead; cannot convert to this style (--style=promise and future convert it; or find what fails first, as with std::find_if, and call the callback after the loop) [asyncshift-async-in-loop]
            if (v == d) return step(asyncshift::error("small"));
          step({});
        });
      },
      done);
}

// BEGIN-ENDS-STEP
// Ends the step with success from inside the loop: refused by both.
void series_skip(std::vector<int> keys, asyncshift::callback<> done) {
  asyncshift::each_series(
      keys.size(),
      [=](std::size_t i, asyncshift::callback<> step) {
        read_int(keys[i], [=](asyncshift::error err, int v) {
          if (err) return step(err);
          for (int d = 0; d < 3; ++d)
            // CHECK: :[[@LINE+2]]:32: error: the step's callback is called inside a loop in an each_series step, and this style's step ends here with `continue;` or `break;`, which would end that loop instead; cannot convert to this style (--style=promise and future convert it, and this style a loop that only fails the step; or find what fails first, as with std::find_if, and call the callback after the loop) [asyncshift-async-in-loop]
            // VALUES: :[[@LINE+1]]:32: error: the step's callback
            if (v == d) return step({});
          step({});
        });
      },
      done);
}
// END-ENDS-STEP

// PROMISE: for (int d = 0; d < 3; ++d) {
// PROMISE: if (v == d) {
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error("small"));

// CORO-LABEL: asyncshift::task<> series_check(
// CORO: for (int d = 0; d < 3; ++d) {
// CORO: if (v == d) {
// CORO-NEXT: throw asyncshift::error_exception(asyncshift::error("small"));
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-NEXT: }
// CORO-NEXT: }
