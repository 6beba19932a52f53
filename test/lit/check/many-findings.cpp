// --check reports every finding of a file: clang's default limit of 20
// errors cut the report short ("too many errors emitted").
// RUN: not %asyncshift --check %s -- %flags 2>&1 | FileCheck %s --implicit-check-not=fatal
// RUN: not %asyncshift --check %s -- %flags 2>&1 | grep -c 'asyncshift-callback-called-twice' | FileCheck %s --check-prefix=COUNT
#include "ops.h"

#define TWICE(name)                                                                                                    \
  void name(asyncshift::callback<> done) {                                                                             \
    done({});                                                                                                          \
    done({});                                                                                                          \
  }
TWICE(f01) TWICE(f02) TWICE(f03) TWICE(f04) TWICE(f05) TWICE(f06) TWICE(f07) TWICE(f08) TWICE(f09) TWICE(f10)
TWICE(f11) TWICE(f12) TWICE(f13) TWICE(f14) TWICE(f15) TWICE(f16) TWICE(f17) TWICE(f18) TWICE(f19) TWICE(f20)
TWICE(f21) TWICE(f22) TWICE(f23) TWICE(f24) TWICE(f25)

// CHECK: error: {{.*}}[asyncshift-callback-called-twice]
// COUNT: 25
