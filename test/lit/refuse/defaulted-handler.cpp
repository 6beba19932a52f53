// An async function whose handler parameter has a default argument (here or
// on an earlier declaration) is refused: a call that leaves the handler out
// would have none once the function is converted (before, `log_value(1)` was
// rewritten as `asyncshift::start(log_value(), 1)`, which did not compile).
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
#include "ops.h"

void log_value(int k, asyncshift::callback<> done = {}) {
  // CHECK: :[[@LINE-1]]:46: error: handler parameter of 'log_value' has a default argument: a call that leaves it out would have no handler once converted; cannot convert yet (drop the default and pass a handler at each call) [asyncshift-defaulted-handler]
  read_int(k, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    log_line(std::to_string(v));
    done({});
  });
}

void send_later(int k, asyncshift::callback<> done = nullptr);
// CHECK: :[[@LINE-1]]:47: error: handler parameter of 'send_later' has a default argument{{.*}}[asyncshift-defaulted-handler]
void send_later(int k, asyncshift::callback<> done) {
  write_int(k, k, [=](asyncshift::error err) { done(err); });
}

void caller() {
  log_value(1);
  send_later(2);
}
