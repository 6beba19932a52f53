// A precompiled header given as the input is not parsed, so nothing would be
// rewritten: one readable message, exit status 1, no output file. (Before, the
// tool exited 1 with nothing on stderr; found by the mutation driver.)
// RUN: rm -f %t.out.cpp
// RUN: %clang_driver %flags -x c++-header %S/../Inputs/ops.h -o %t.pch
// RUN: not %asyncshift --style=coro %t.pch -o %t.out.cpp -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
// CHECK: asyncshift: error: '{{.*}}.pch' was not compiled as C++ source; asyncshift reads C++ source files
