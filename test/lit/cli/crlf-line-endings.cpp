// A source with CRLF line endings keeps them in every style: the rewritten
// functions too (promise and future wrote their new text with LF only,
// leaving a file of mixed endings; found by a user trial).
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed -e 's|^// *CHECK.*$|//|' -e 's/$/\r/' %s > %t/crlf.cpp
// RUN: %asyncshift --style=promise %t/crlf.cpp -o %t/promise.cpp -- %{tool_flags}
// RUN: %asyncshift --style=future %t/crlf.cpp -o %t/future.cpp -- %{tool_flags}
// RUN: %asyncshift --style=coro %t/crlf.cpp -o %t/coro.cpp -- %{tool_flags}
// RUN: not grep -v -P '\r$' %t/promise.cpp %t/future.cpp %t/coro.cpp
// RUN: FileCheck %s --input-file=%t/promise.cpp
#include "ops.h"

void twice(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    read_int(v, done);
  });
}

// CHECK: asyncshift::promise<int> twice(int key) {
