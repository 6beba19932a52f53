// A handler stored in a member is refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

struct session {
  asyncshift::callback<> on_close;
  void close(asyncshift::callback<> done) {
    flush([=, this](asyncshift::error err) {
      if (err) return done(err);
      on_close = done;
      // CHECK: :[[@LINE-1]]:18: error: handler 'done' is used other than by calling or forwarding it; cannot convert [asyncshift-handler-escapes]
    });
  }
};
