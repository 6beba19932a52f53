// --out-dir names each output <stem>.<style><ext>: two inputs with one name in
// different directories would write the same file, the second over the first.
// That is refused before anything runs; nothing is written. The same file
// given twice is not a collision.
// RUN: rm -rf %t && mkdir -p %t/a %t/b %t/gen
// RUN: sed -e 's|^// *CHECK.*$|//|' %s > %t/a/x.cpp && cp %t/a/x.cpp %t/b/x.cpp
// RUN: not %asyncshift --style=coro --out-dir %t/gen %t/a/x.cpp %t/b/x.cpp -- %flags 2> %t/err
// RUN: FileCheck %s --input-file=%t/err --implicit-check-not=error:
// RUN: ls %t/gen | count 0
// RUN: %asyncshift --style=coro --out-dir %t/gen %t/a/x.cpp %t/a/../a/x.cpp -- %flags
// RUN: ls %t/gen | FileCheck %s --check-prefix=ONE
#include "ops.h"

void go(asyncshift::callback<> done) { flush(done); }

// CHECK: asyncshift: error: '{{.*}}/a/x.cpp' and '{{.*}}/b/x.cpp' would both be written to '{{.*}}/gen/x.coro.cpp'; run them with different --out-dir directories
// ONE: x.coro.cpp
