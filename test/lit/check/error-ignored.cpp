// asyncshift-error-ignored: a continuation names its error parameter but a
// path finishes without reading it (the failure is silently dropped).
// RUN: not %asyncshift --check %s -- %{tool_flags} > %t.out 2> %t.err
// RUN: count 0 < %t.out
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not='error:'
#include "ops.h"

// Never read: a failure completes as a success with a default value.
void never_read(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) { done({}, v); });
  // CHECK: :[[@LINE-1]]:37: error: continuation names its error 'err' but can finish without reading it [asyncshift-error-ignored]
  // CHECK: :[[@LINE-2]]:64: note: reaches the end without reading 'err'
}

// Read too late: the early success path drops the error.
void read_too_late(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
  // CHECK: :[[@LINE-1]]:37: error: continuation names its error 'err' but can finish without reading it [asyncshift-error-ignored]
  // CHECK: :[[@LINE+2]]:9: note: assuming 'v == 0' is true
  // CHECK: :[[@LINE+2]]:7: note: returns here without reading 'err'
    if (v == 0)
      return done({}, 0);
    if (err)
      return done(err);
    done({}, v);
  });
}

// A named continuation that only looks at the value.
void named_continuation(asyncshift::callback<int> done) {
  auto next = [=](asyncshift::error err, int v) { done({}, v + 1); };
  // CHECK: :[[@LINE-1]]:37: error: named continuation 'next' names its error 'err' but can finish without reading it [asyncshift-error-ignored]
  // CHECK: :[[@LINE-2]]:68: note: reaches the end without reading 'err'
  read_int(1, next);
}

// Fire-and-forget with a named error: name it only if it is read.
void named_fire_and_forget(asyncshift::callback<> done) {
  flush([](asyncshift::error err) { log_line("flushed"); });
  // CHECK: :[[@LINE-1]]:30: error: continuation names its error 'err' but can finish without reading it [asyncshift-error-ignored]
  // CHECK: :[[@LINE-2]]:58: note: reaches the end without reading 'err'
  done({});
}

// A handler that is there, told of success whatever happened: dropped,
// though an empty handler would have released the path.
void guarded_but_dropped(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
  // CHECK: :[[@LINE-1]]:31: error: continuation names its error 'err' but can finish without reading it [asyncshift-error-ignored]
    if (!done)
      return;
    done({});
  });
}

// A loop that does not read the error is no excuse.
void loop_without_the_error(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
  // CHECK: :[[@LINE-1]]:31: error: continuation names its error 'err' but can finish without reading it [asyncshift-error-ignored]
    for (int i = 0; i < 3; ++i)
      log_line("tick");
    done({});
  });
}
