// A missing input file gets one readable message and exit status 1.
// RUN: not %asyncshift --style=coro %t.does-not-exist.cpp -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// CHECK: asyncshift: error: no such file: '{{.*}}does-not-exist.cpp'
// CHECK-NOT: error
