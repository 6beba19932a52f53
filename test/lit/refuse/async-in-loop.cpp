// A handler used inside a loop body is refused (a loop of async steps is
// written with asyncshift::each_series or the recursive-lambda idiom).
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void first_positive(int n, asyncshift::callback<int> done) {
  read_int(n, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    for (int i = 0; i < v; ++i) {
      // CHECK: :[[@LINE-1]]:5: error: async call or handler use inside a loop body; cannot convert (use asyncshift::each_series or the recursive-lambda idiom) [asyncshift-async-in-loop]
      if (i > 2) return done({}, i);
    }
    done({}, 0);
  });
}
