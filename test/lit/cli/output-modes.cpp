// -o, --out-dir and -i write the same code; -i replaces the file atomically
// and keeps its permissions; --out-dir names the file <stem>.<style><ext>;
// -o - writes to stdout, not to a file named "-".
// RUN: rm -rf %t && mkdir -p %t/gen
// RUN: sed -e 's|^// *CHECK.*$|//|' %s > %t/input.cpp && chmod 640 %t/input.cpp
// RUN: %asyncshift --style=coro %t/input.cpp -- %flags > %t/stdout.cpp
// RUN: %asyncshift --style=coro %t/input.cpp -o %t/o.cpp -- %flags
// RUN: %asyncshift --style=coro %t/input.cpp --out-dir %t/gen -- %flags
// RUN: diff %t/stdout.cpp %t/o.cpp
// RUN: diff %t/stdout.cpp %t/gen/input.coro.cpp
// RUN: cd %t && %asyncshift --style=coro input.cpp -o - -- %flags > %t/dash.cpp
// RUN: diff %t/stdout.cpp %t/dash.cpp
// RUN: not ls %t/- 2>/dev/null
// RUN: not %asyncshift --style=coro input.cpp -o - --depfile %t/d.d -- %flags 2>&1 | FileCheck %s --check-prefix=DEPFILE
// RUN: %asyncshift --style=coro -i %t/input.cpp -- %flags
// RUN: diff %t/stdout.cpp %t/input.cpp
// RUN: stat -c %%a %t/input.cpp | FileCheck %s --check-prefix=PERMS
// RUN: ls -a %t | FileCheck %s --check-prefix=NOTEMP
// RUN: FileCheck %s --input-file=%t/o.cpp
#include "ops.h"

void go(asyncshift::callback<> done) { flush(done); }

// CHECK: asyncshift::task<> go() {
// PERMS: 640
// DEPFILE: asyncshift: error: --depfile needs an output file to name; -o - writes to stdout
// NOTEMP-NOT: asyncshift-{{.*}}.tmp
