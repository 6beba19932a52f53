// A named continuation used other than by calling it is refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void keep(asyncshift::callback<> done) {
  auto next = [=](asyncshift::error err) { done(err); };
  auto copy = next;
  // CHECK: :[[@LINE-1]]:15: error: named continuation {{.*}} is used other than by calling it or passing it as a handler; cannot convert [asyncshift-escaping-continuation]
  flush(copy);
}
