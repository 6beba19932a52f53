// A detached call of a converted function inside the handler of another
// detached call is refused (each would need its own rewriting).
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void step(int key, asyncshift::callback<> done) { write_int(key, 1, done); }

void kick(asyncshift::callback<> done) {
  step(1, [](asyncshift::error) { step(2, [](asyncshift::error) {}); });
  // CHECK: :[[@LINE-1]]:35: error: detached call of 'step' inside the arguments of another; cannot convert [asyncshift-detached-converted-call]
  flush(done);
}
