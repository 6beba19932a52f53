// A continuation that captures by reference is refused: it runs after the scope ends.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void by_reference(asyncshift::callback<int> done) {
  int local = 1;
  read_int(1, [&](asyncshift::error err, int v) {
    // CHECK: :[[@LINE-1]]:16: error: continuation captures {{.*}} by reference; cannot convert {{.*}}[asyncshift-reference-capture]
    if (err) return done(err);
    done({}, v + local);
  });
}
