// A continuation with an init-capture is refused: flattened code has no
// capture list, so the name it declares would be left undeclared (before
// this refusal the coroutine read `n` that no longer existed). Moving the
// handler into the capture is refused the same way.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
#include "ops.h"

#include <utility>

void computed(int k, asyncshift::callback<int> done) {
  read_int(k, [=, n = k * 2](asyncshift::error err, int v) {
    // CHECK: :[[@LINE-1]]:19: error: continuation init-captures 'n'; cannot convert (flattened code has no capture list: declare it before the call, or capture a variable by copy) [asyncshift-init-capture]
    if (err) return done(err);
    done({}, v + n);
  });
}

void moved_handler(asyncshift::callback<int> done) {
  read_int(1, [done = std::move(done)](asyncshift::error err, int v) {
    // CHECK: :[[@LINE-1]]:16: error: continuation init-captures 'done'; cannot convert {{.*}}[asyncshift-init-capture]
    if (err) return done(err);
    done({}, v);
  });
}
