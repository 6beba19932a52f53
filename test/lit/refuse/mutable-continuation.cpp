// A mutable continuation is refused: its captured copies would become shared.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void counter(asyncshift::callback<int> done) {
  int n = 0;
  read_int(1, [=](asyncshift::error err, int v) mutable {
    // CHECK: :[[@LINE-1]]:15: error: 'mutable' continuation; cannot convert {{.*}}[asyncshift-mutable-continuation]
    n += v;
    if (err) return done(err);
    done({}, n);
  });
}
