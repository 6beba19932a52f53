// Statements after an async call run before its continuation: refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void racy(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) { done(err); });
  log_line("after");
  // CHECK: :[[@LINE-1]]:3: error: statement runs after an async call started and before its continuation; cannot convert [asyncshift-async-not-in-tail]
  // CHECK: :[[@LINE-3]]:3: note: the async call
}
