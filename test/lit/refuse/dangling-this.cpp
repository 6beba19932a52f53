// A member function whose continuation captures `this`, called on a local
// object that is gone before the continuation runs, is refused in every
// style: the converted code would keep the object alive (in the coroutine
// frame, or in the chain's captures) until the work ends, which the
// original does not.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
#include "ops.h"

struct uploader {
  int tries = 0;
  void upload(int key, asyncshift::callback<int> done) {
    read_int(key, [this, done](asyncshift::error err, int v) {
      ++tries;
      done(err, v);
    });
  }
};

void local_object(asyncshift::callback<int> done) {
  uploader u;
  u.upload(1, done);
  // CHECK: :[[@LINE-1]]:3: error: 'u' is destroyed before the continuation that 'upload' leaves, which captures 'this', runs; cannot convert (the converted code would keep the object alive until that work ends, which the original does not: give it a lifetime that covers the work) [asyncshift-dangling-capture]
  // CHECK: :[[@LINE-11]]:20: note: 'upload' starts a continuation that captures 'this' and runs after the call returns
  // CHECK: :[[@LINE-4]]:12: note: 'u' declared here
}

// An object that outlives the call converts.
uploader shared_uploader;
void long_lived(asyncshift::callback<int> done) { shared_uploader.upload(2, done); }
