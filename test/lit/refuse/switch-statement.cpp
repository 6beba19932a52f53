// Async work inside a statement the converter does not take apart (SPEC §3
// has no switch) is refused, and the diagnostic names the statement as it is
// written.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void by_kind(int kind, asyncshift::callback<int> done) {
  switch (kind) {
  // CHECK: :[[@LINE-1]]:3: error: async work inside a 'switch' statement; cannot convert [asyncshift-unsupported-statement]
  case 0:
    read_int(0, done);
    break;
  default:
    done({}, 0);
  }
}
