// The handler used inside an expression (here: a condition) is refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void maybe(asyncshift::callback<> done) {
  if (static_cast<bool>(done)) {
    // CHECK: :[[@LINE-1]]:7: error: the handler or a named continuation is used in a condition; cannot convert [asyncshift-async-in-expression]
    flush(done);
  } else {
    flush(done);
  }
}
