// goto in an async function is refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void jumpy(bool again, asyncshift::callback<> done) {
retry:
  // CHECK: :[[@LINE-1]]:1: error: label in an async function; cannot convert [asyncshift-goto]
  if (again) {
    again = false;
    goto retry;
  }
  flush(done);
}
