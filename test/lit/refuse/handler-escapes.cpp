// A handler used other than by calling or forwarding it (here: stored) is refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

asyncshift::callback<> saved;

void remember(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    if (err) return done(err);
    saved = done;
    // CHECK: :[[@LINE-1]]:13: error: handler 'done' is used other than by calling or forwarding it; cannot convert [asyncshift-handler-escapes]
  });
}
