// --depfile lists every file the input read, for build systems.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %asyncshift --style=coro %s -o %t/out.cpp --depfile %t/out.d -- %flags
// RUN: FileCheck %s --input-file=%t/out.d
#include "ops.h"

void go(asyncshift::callback<> done) { flush(done); }

// CHECK: out.cpp:
// CHECK-DAG: depfile.cpp
// CHECK-DAG: Inputs/ops.h
// CHECK-DAG: asyncshift/callback.hpp
