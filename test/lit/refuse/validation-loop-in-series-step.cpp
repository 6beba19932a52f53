// A loop that waits for nothing inside an each_series step: the coroutine
// styles write the series as a loop whose step ends with `continue;` or
// `break;`, which the inner loop would take for its own, so they refuse it
// (the chain styles convert it: the step is a function of its own there).
// RUN: rm -f %t.out.cpp %t.promise.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: %asyncshift --style=promise %s -o %t.promise.cpp -- %{tool_flags}
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
#include "ops.h"

#include <vector>

void series_check(std::vector<int> keys, asyncshift::callback<> done) {
  asyncshift::each_series(
      keys.size(),
      [=](std::size_t i, asyncshift::callback<> step) {
        read_int(keys[i], [=](asyncshift::error err, int v) {
          if (err) return step(err);
          for (int d = 0; d < 3; ++d)
            // CHECK: :[[@LINE-1]]:11: error: the step's callback is called inside a loop in an each_series step, and this style's step completes with `continue;` or `break;`, which would end that loop instead; cannot convert to this style (--style=promise and future convert it; or find what fails first, as with std::find_if, and call the callback after the loop) [asyncshift-async-in-loop]
            if (v == d) return step(asyncshift::error("small"));
          step({});
        });
      },
      [=](asyncshift::error err) { done(err); });
}

// PROMISE: for (int d = 0; d < 3; ++d) {
// PROMISE-NEXT: if (v == d) {
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error("small"));
