// A handler used inside a loop body is refused (a loop of async steps is
// written with asyncshift::each_series or the recursive-lambda idiom). A
// loop that waits for nothing and only completes the handler (a validation
// loop) is told so (async-in-loop-starts.cpp: one that starts work).
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
#include "ops.h"

void first_positive(int n, asyncshift::callback<int> done) {
  read_int(n, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    for (int i = 0; i < v; ++i) {
      // CHECK: :[[@LINE-1]]:5: error: the handler is completed inside a loop; cannot convert (nothing in it waits: find what fails first, as with std::find_if, and complete the handler after the loop) [asyncshift-async-in-loop]
      if (i > 2) return done({}, i);
    }
    done({}, 0);
  });
}
