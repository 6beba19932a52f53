// The rewriter runs the checker before it builds a function's IR and refuses
// a function whose handler some path calls twice or never, with the
// checker's finding, reported once, and writes nothing.
// RUN: %strip %s > %t.cpp
// RUN: not %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.out 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not='error:'
#include "ops.h"

void join_twice(asyncshift::callback<int> done) {
  auto next = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    done({}, v);
  };
  read_int(1, [=](asyncshift::error err, int v) {
    if (err)
      next(err, 0);
    next({}, v);
    // CHECK: :[[@LINE-1]]:5: error: handler 'done' may be called twice on this path: 'next' calls it again [asyncshift-callback-called-twice]
  });
}

void forgets(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    // CHECK: :[[@LINE-1]]:9: error: continuation can finish without calling, forwarding or passing on handler 'done' [asyncshift-callback-not-called]
    if (err)
      return done(err);
  });
}
