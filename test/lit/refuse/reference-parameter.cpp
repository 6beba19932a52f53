// A reference parameter would dangle once the converted function suspends.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void by_ref(const std::string &url, asyncshift::callback<std::string> done) {
  // CHECK: :[[@LINE-1]]:32: error: parameter 'url' is a reference; cannot convert {{.*}}[asyncshift-reference-parameter]
  fetch(url, done);
}
