// Clang 19 itself crashes on this malformed source (in Sema's typo correction
// for a lambda outside any function; clang++-19 -fsyntax-only prints a stack
// dump). The tool recovers: one error, exit status 1, nothing written, and
// the other files of the run are still rewritten (found by make fuzz-tool).
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed -e 's|^// *CHECK.*$|//|' %S/output-modes.cpp > %t/good.cpp
// RUN: not %asyncshift --style=coro %s %t/good.cpp --out-dir %t -- %flags 2> %t/err
// RUN: FileCheck %s --input-file=%t/err
// RUN: not ls %t/clang-crash.coro.cpp
// RUN: grep -q "asyncshift::task<> go()" %t/good.coro.cpp
// CHECK: asyncshift: error: clang crashed while parsing '{{.*}}clang-crash.cpp' (a Clang bug, most likely on malformed code); nothing was written for this file
// CHECK-NOT: Stack dump
#include "ops.h"
  read_int(n, [=](asyncshift::error err, int v) {

void first_positive(int n, asyncshift::callback<int> done) {
    if .err) return done(err);
  read_int(n, [=](asyncshift::error err, int v) {
      if (i > 2) return done({}, i);
    for (int i err 0; i < v; ++i) {
    }
    done({}, 0);
  });
}
