// A loop whose body starts async work is refused, and pointed to the
// idioms that write a loop of async steps.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
#include "ops.h"

void write_once(int n, asyncshift::callback<> done) {
  do {
    // CHECK: :[[@LINE-1]]:3: error: async call or handler use inside a loop body; cannot convert (use asyncshift::each_series or the recursive-lambda idiom) [asyncshift-async-in-loop]
    write_int(n, n, done);
  } while (false);
}
