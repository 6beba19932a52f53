// asyncshift-callback-not-called: a path leaves a continuation or an async
// function without calling, forwarding or passing on its handler (the
// caller waits forever).
// RUN: not %asyncshift --check %s -- %{tool_flags} > %t.out 2> %t.err
// RUN: count 0 < %t.out
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not='error:'
#include "ops.h"

#include <string>

// The success path is conditional and nothing covers the rest.
void missing_else(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
  // CHECK: :[[@LINE-1]]:15: error: continuation can finish without calling, forwarding or passing on handler 'done' [asyncshift-callback-not-called]
  // CHECK: :[[@LINE+3]]:9: note: assuming 'err' is false
  // CHECK: :[[@LINE+4]]:9: note: assuming 'v > 0' is false
  // CHECK: :[[@LINE+5]]:3: note: reaches the end without calling 'done'
    if (err)
      return done(err);
    if (v > 0)
      done({}, v);
  });
}

// A plain `return;` on one path.
void plain_return(bool cancelled, asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
  // CHECK: :[[@LINE-1]]:9: error: continuation can finish without calling, forwarding or passing on handler 'done' [asyncshift-callback-not-called]
  // CHECK: :[[@LINE+3]]:9: note: assuming 'err' is false
  // CHECK: :[[@LINE+4]]:9: note: assuming 'cancelled' is true
  // CHECK: :[[@LINE+4]]:7: note: returns here without calling 'done'
    if (err)
      return done(err);
    if (cancelled)
      return;
    done({});
  });
}

// A switch without a default.
void no_default(asyncshift::callback<std::string> done) {
  read_int(1, [=](asyncshift::error err, int v) {
  // CHECK: :[[@LINE-1]]:15: error: continuation can finish without calling, forwarding or passing on handler 'done' [asyncshift-callback-not-called]
  // CHECK: :[[@LINE+3]]:9: note: assuming 'err' is false
  // CHECK: :[[@LINE+4]]:13: note: no case matches
  // CHECK: :[[@LINE+9]]:3: note: reaches the end without calling 'done'
    if (err)
      return done(err);
    switch (v) {
    case 0:
      return done({}, "zero");
    case 1:
      return fetch("one", done);
    }
  });
}

// A named continuation that forgets one path.
void named_continuation(asyncshift::callback<int> done) {
  auto next = [=](asyncshift::error err, int v) {
  // CHECK: :[[@LINE-1]]:8: error: named continuation 'next' can finish without calling, forwarding or passing on handler 'done' [asyncshift-callback-not-called]
  // CHECK: :[[@LINE+3]]:9: note: assuming 'err' is false
  // CHECK: :[[@LINE+4]]:9: note: assuming 'v != 0' is false
  // CHECK: :[[@LINE+5]]:3: note: reaches the end without calling 'done'
    if (err)
      return done(err);
    if (v != 0)
      done({}, v);
  };
  read_int(1, next);
}

// The only async call's continuation does not capture the handler.
void dropped(asyncshift::callback<> done) {
// CHECK: :[[@LINE-1]]:6: error: 'dropped' can finish without calling, forwarding or passing on its handler 'done' [asyncshift-callback-not-called]
// CHECK: :[[@LINE+2]]:1: note: reaches the end without calling 'done'
  flush([](asyncshift::error) { log_line("flushed"); });
}

// A leaf (no async call) that forgets its handler on one path.
void leaf(int x, asyncshift::callback<int> cb) {
// CHECK: :[[@LINE-1]]:6: error: 'leaf' can finish without calling, forwarding or passing on its handler 'cb' [asyncshift-callback-not-called]
// CHECK: :[[@LINE+2]]:7: note: assuming 'x >= 0' is false
// CHECK: :[[@LINE+3]]:1: note: reaches the end without calling 'cb'
  if (x >= 0)
    cb({}, x);
}

// A goto skips the completion (the rewriter refuses goto; the checker follows it).
void with_goto(bool skip, asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
  // CHECK: :[[@LINE-1]]:9: error: continuation can finish without calling, forwarding or passing on handler 'done' [asyncshift-callback-not-called]
  // CHECK: :[[@LINE+3]]:9: note: assuming 'err' is false
  // CHECK: :[[@LINE+4]]:9: note: assuming 'skip' is true
  // CHECK: :[[@LINE+8]]:3: note: reaches the end without calling 'done'
    if (err)
      return done(err);
    if (skip)
      goto out;
    done({});
  out:
    log_line("done");
  });
}
