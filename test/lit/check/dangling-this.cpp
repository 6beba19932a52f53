// asyncshift-dangling-capture through `this`: a member function leaves a
// continuation that captures `this`, and it is called on a local object that
// is gone by the time the continuation runs.
// RUN: not %asyncshift --check %s -- %{tool_flags} > %t.out 2> %t.err
// RUN: count 0 < %t.out
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not='error:'
#include "ops.h"

struct uploader {
  int tries = 0;

  void upload(int key, asyncshift::callback<int> done) {
    read_int(key, [this, done](asyncshift::error err, int v) {
      ++tries;
      done(err, v);
    });
  }

  // Reaches the continuation through another member function.
  void upload_twice(int key, asyncshift::callback<int> done) { upload(key, done); }

  // The continuation is run before the call returns: nothing dangles.
  void count_now(asyncshift::callback<> done) {
    auto bump = [this] { ++tries; };
    bump();
    done({});
  }
};

// The object is a local of callback code.
void local_object(asyncshift::callback<int> done) {
  uploader u;
  u.upload(1, done);
  // CHECK: :[[@LINE-1]]:3: error: 'u' is destroyed before the continuation that 'upload' leaves, which captures 'this', runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE-22]]:20: note: 'upload' starts a continuation that captures 'this' and runs after the call returns
  // CHECK: :[[@LINE-4]]:12: note: 'u' declared here
  // CHECK: :[[@LINE+1]]:1: note: goes out of scope here
}

// Through a member function that calls the one that captures `this`.
void local_object_indirect(asyncshift::callback<int> done) {
  uploader u;
  u.upload_twice(1, done);
  // CHECK: :[[@LINE-1]]:3: error: 'u' is destroyed before the continuation that 'upload_twice' leaves, which captures 'this', runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE-32]]:20: note: 'upload_twice' starts a continuation that captures 'this' and runs after the call returns
  // CHECK: :[[@LINE-4]]:12: note: 'u' declared here
  // CHECK: :[[@LINE+1]]:1: note: goes out of scope here
}

// A local of a continuation: gone when the continuation returns.
void local_of_continuation(asyncshift::callback<int> done) {
  flush([done](asyncshift::error err) {
    if (err)
      return done(err);
    uploader u;
    u.upload(2, done);
    // CHECK: :[[@LINE-1]]:5: error: 'u' is destroyed before the continuation that 'upload' leaves, which captures 'this', runs [asyncshift-dangling-capture]
    // CHECK: :[[@LINE-45]]:20: note: 'upload' starts a continuation that captures 'this' and runs after the call returns
    // CHECK: :[[@LINE-4]]:14: note: 'u' declared here
    // CHECK: :[[@LINE+1]]:3: note: goes out of scope here
  });
}

// Plain code that starts the work and returns at once.
void start_and_leave() {
  uploader u;
  u.upload(3, [](asyncshift::error, int) {});
  // CHECK: :[[@LINE-1]]:3: error: 'u' is destroyed before the continuation that 'upload' leaves, which captures 'this', runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE-56]]:20: note: 'upload' starts a continuation that captures 'this' and runs after the call returns
  // CHECK: :[[@LINE-4]]:12: note: 'u' declared here
  // CHECK: :[[@LINE+1]]:1: note: goes out of scope here
}
