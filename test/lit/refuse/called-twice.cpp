// A path that calls the handler twice is refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void twice(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    if (err) done(err);
    done({});
    // CHECK: :[[@LINE-1]]:5: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
    // CHECK: :[[@LINE-3]]:9: note: assuming 'err' is true
    // CHECK: :[[@LINE-4]]:14: note: 'done' already called here
  });
}
