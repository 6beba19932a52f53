// Source that does not compile is reported by the compiler, and nothing is written.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void broken(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) { done(err) });
  // CHECK: :[[@LINE-1]]:{{[0-9]+}}: error: expected ';'
}
