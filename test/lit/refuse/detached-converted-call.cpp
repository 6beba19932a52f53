// Inside a converted function, a detached call of another converted function
// (its continuation never reaches this function's handler) is refused for now.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %flags 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void step(asyncshift::callback<> done) { flush(done); }

void kick(asyncshift::callback<> done) {
  step([](asyncshift::error) {});
  // CHECK: :[[@LINE-1]]:3: error: detached call of 'step', an async function this run converts; not supported yet [asyncshift-detached-converted-call]
  flush(done);
}
