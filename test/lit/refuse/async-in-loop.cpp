// An async call inside a loop body is refused (use each_series or the recursive-lambda idiom).
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void write_all(int n, asyncshift::callback<> done) {
  for (int i = 0; i < n; ++i) {
    // CHECK: :[[@LINE-1]]:3: error: async call or handler use inside a loop body; cannot convert (use asyncshift::each_series or the recursive-lambda idiom) [asyncshift-async-in-loop]
    write_int(i, i, [=](asyncshift::error err) { done(err); });
  }
}
