// A path that never calls the handler is refused (the caller would hang).
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void forgetful(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    // CHECK: :[[@LINE-1]]:15: error: continuation can finish without calling, forwarding or passing on handler 'done' [asyncshift-callback-not-called]
    if (err) return done(err);
    if (v > 0) done({}, v);
    // CHECK: :[[@LINE-1]]:9: note: assuming 'v > 0' is false
  });
  // CHECK: :[[@LINE-1]]:3: note: reaches the end without calling 'done'
}
