// What a compile command may hold that asyncshift cannot use as it is.
// A flag clang does not know (g++'s -fconcepts-diagnostics-depth=3, common in
// a compile_commands.json made for g++) is dropped with one warning naming it,
// and the file is converted; clang alone would print a bare error for it and
// go on. A standard older than C++20 gets one error saying so (the runtime and
// the generated styles are C++20), not a screen of errors from inside the
// runtime's headers, and nothing is written.
// RUN: rm -rf %t && mkdir -p %t/gcc %t/old
// RUN: sed -e 's|^// *[A-Z]*:.*$|//|' %s > %t/gcc/input.cpp
// RUN: printf '[{"directory": "%t/gcc", "file": "%t/gcc/input.cpp", "command": "g++-12 -std=c++20 -fconcepts-diagnostics-depth=3 %flags -c %t/gcc/input.cpp"}]' > %t/gcc/compile_commands.json
// RUN: %asyncshift --style=coro -p %t/gcc %t/gcc/input.cpp > %t/gcc/out.cpp 2> %t/gcc/err
// RUN: FileCheck %s --input-file=%t/gcc/out.cpp
// RUN: FileCheck %s --check-prefix=UNKNOWN --input-file=%t/gcc/err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %asyncshift --check -p %t/gcc %t/gcc/input.cpp 2> %t/gcc/check-err
// RUN: FileCheck %s --check-prefix=UNKNOWN --input-file=%t/gcc/check-err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: cp %t/gcc/input.cpp %t/old/input.cpp
// RUN: printf '[{"directory": "%t/old", "file": "%t/old/input.cpp", "command": "g++-12 %flags -std=c++17 -c %t/old/input.cpp"}]' > %t/old/compile_commands.json
// RUN: not %asyncshift --style=coro -p %t/old %t/old/input.cpp -o %t/old/out.cpp 2> %t/old/err
// RUN: FileCheck %s --check-prefix=OLD --input-file=%t/old/err --implicit-check-not=error:
// RUN: not test -e %t/old/out.cpp
#include "ops.h"

void go(asyncshift::callback<> done) { flush(done); }

// CHECK: asyncshift::task<> go() {
// UNKNOWN: asyncshift: warning: ignoring '-fconcepts-diagnostics-depth=3' in the compile command of '{{.*}}input.cpp': clang does not know this flag (a compiler-specific option)
// OLD: asyncshift: error: '{{.*}}input.cpp' is compiled as c++17; asyncshift and its runtime need C++20 (add -std=c++20 to the compile command, or after --)
