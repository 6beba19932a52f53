// -o, --out-dir and -i write the same code; -i replaces the file atomically
// and keeps its permissions; --out-dir names the file <stem>.<style><ext>.
// RUN: rm -rf %t && mkdir -p %t/gen
// RUN: sed -e 's|^// *CHECK.*$|//|' %s > %t/input.cpp && chmod 640 %t/input.cpp
// RUN: %asyncshift --style=coro %t/input.cpp -- %flags > %t/stdout.cpp
// RUN: %asyncshift --style=coro %t/input.cpp -o %t/o.cpp -- %flags
// RUN: %asyncshift --style=coro %t/input.cpp --out-dir %t/gen -- %flags
// RUN: diff %t/stdout.cpp %t/o.cpp
// RUN: diff %t/stdout.cpp %t/gen/input.coro.cpp
// RUN: %asyncshift --style=coro -i %t/input.cpp -- %flags
// RUN: diff %t/stdout.cpp %t/input.cpp
// RUN: stat -c %%a %t/input.cpp | FileCheck %s --check-prefix=PERMS
// RUN: ls -a %t | FileCheck %s --check-prefix=NOTEMP
// RUN: FileCheck %s --input-file=%t/o.cpp
#include "ops.h"

void go(asyncshift::callback<> done) { flush(done); }

// CHECK: asyncshift::task<> go() {
// PERMS: 640
// NOTEMP-NOT: asyncshift-{{.*}}.tmp
