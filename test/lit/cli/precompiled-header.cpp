// A precompiled header among the compiler arguments (as a build that
// precompiles its headers passes one) changes nothing the tool prints: the
// rewrite and the diagnostics are those of the plain parse. The other lit
// suites parse their inputs this way (%{tool_flags}), for speed.
// RUN: %strip %s > %t.cpp
// RUN: %clang_driver %flags -x c++-header %S/../Inputs/ops.h -o %t.pch
// RUN: %asyncshift --style=promise %t.cpp -- %flags > %t.plain.cpp 2> %t.plain.err
// RUN: %asyncshift --style=promise %t.cpp -- %flags -include-pch %t.pch > %t.pch.cpp 2> %t.pch.err
// RUN: diff %t.plain.cpp %t.pch.cpp
// RUN: diff %t.plain.err %t.pch.err
// RUN: FileCheck %s --input-file=%t.pch.cpp
// RUN: FileCheck %s --check-prefix=DIAG --input-file=%t.pch.err
#include "ops.h"

// CHECK: asyncshift::promise<int> load(int key) {
void load(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v + 1);
  });
}

// DIAG: precompiled-header.cpp.tmp.cpp:[[@LINE+1]]:6: warning: 'maybe' completes 'done' synchronously on some paths
void maybe(int key, asyncshift::callback<> done) {
  if (key == 0) return done({});
  flush(done);
}
