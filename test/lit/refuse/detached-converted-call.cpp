// A call of a converted function from code that is not converted is refused for now.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void step(asyncshift::callback<> done) { flush(done); }

void kick() {
  step([](asyncshift::error) {});
  // CHECK: :[[@LINE-1]]:3: error: call of 'step' from code that is not converted; not supported yet {{.*}}[asyncshift-detached-converted-call]
}
