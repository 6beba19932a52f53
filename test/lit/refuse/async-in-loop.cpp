// A handler used inside a loop body is refused where the loop could not stay
// a loop (a loop of async steps is written with asyncshift::each_series or the
// recursive-lambda idiom: async-in-loop-starts.cpp). A loop that waits for
// nothing converts (patterns/validation-loop.cpp, do-loop.cpp,
// endless-loop.cpp) unless its body completes the handler without returning
// (the loop would go on after the handler ran) or returns without completing
// it.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
#include "ops.h"

void first_square(int n, asyncshift::callback<int> done) {
  read_int(n, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    int i = 0;
    while (true) {
      if (i * i > v) {
        done({}, i);
        // CHECK: :[[@LINE-1]]:9: error: the handler is completed inside a loop without returning at once; cannot convert (make it `return done(...);`) [asyncshift-async-in-loop]
        break;
      }
      ++i;
    }
  });
}

void leave_early(int n, asyncshift::callback<int> done) {
  read_int(n, [=](asyncshift::error err, int v) {
    // CHECK: :[[@LINE-1]]:15: error: continuation can finish without calling, forwarding or passing on handler 'done' [asyncshift-callback-not-called]
    if (err) return done(err);
    while (v > 0) {
      if (v == 3) return;
      if (v == 5) return done({}, v);
      --v;
    }
    done({}, 0);
  });
}
