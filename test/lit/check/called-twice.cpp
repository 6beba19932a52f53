// asyncshift-callback-called-twice: some path completes the handler twice.
// Each function is one way to get there; the notes walk the path.
// RUN: not %asyncshift --check %s -- %{tool_flags} > %t.out 2> %t.err
// RUN: count 0 < %t.out
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not='error:'
#include "ops.h"

#include <memory>
#include <string>
#include <vector>

// A failure that does not return falls through to the success call.
void missing_return(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err)
      done(err);
    done({}, v);
    // CHECK: :[[@LINE-1]]:5: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
    // CHECK: :[[@LINE-4]]:9: note: assuming 'err' is true
    // CHECK: :[[@LINE-4]]:7: note: 'done' already called here
  });
}

// Forwarding the handler and then calling it.
void forward_then_call(asyncshift::callback<> done) {
  flush(done);
  done({});
  // CHECK: :[[@LINE-1]]:3: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
  // CHECK: :[[@LINE-3]]:3: note: 'done' already passed on here
}

// A switch case that falls through into the next one.
void fallthrough(int key, asyncshift::callback<> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    switch (v) {
    case 0:
      done({});
    case 1:
      done({});
      // CHECK: :[[@LINE-1]]:7: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
      // CHECK: :[[@LINE-8]]:9: note: assuming 'err' is false
      // CHECK: :[[@LINE-6]]:5: note: taking case '0'
      // CHECK: :[[@LINE-6]]:7: note: 'done' already called here
      break;
    default:
      done({});
    }
  });
}

// A named continuation reached twice on one path.
void join_twice(asyncshift::callback<int> done) {
  auto next = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    done({}, v);
  };
  read_int(1, [=](asyncshift::error err, int v) {
    if (err)
      next(err, 0);
    next({}, v);
    // CHECK: :[[@LINE-1]]:5: error: handler 'done' may be called twice on this path: 'next' calls it again [asyncshift-callback-called-twice]
    // CHECK: :[[@LINE-4]]:9: note: assuming 'err' is true
    // CHECK: :[[@LINE-4]]:7: note: 'next', which calls 'done', already called here
  });
}

// Two async calls that both complete the handler on every path.
void two_owners(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) { done(err); });
  write_int(1, 2, [=](asyncshift::error err) { done(err); });
  // CHECK: :[[@LINE-1]]:3: error: handler 'done' may be called twice on this path: it is passed on again here [asyncshift-callback-called-twice]
  // CHECK: :[[@LINE-3]]:3: note: 'done' already passed on here
}

// A loop passes the handler on once per iteration (the rewriter refuses the
// loop; the checker still follows its paths).
void per_item(int n, asyncshift::callback<> done) {
  for (int i = 0; i < n; ++i)
    write_int(i, i, [=](asyncshift::error err) { done(err); });
    // CHECK: :[[@LINE-1]]:5: error: handler 'done' may be called twice on this path: it is passed on again here [asyncshift-callback-called-twice]
    // CHECK: :[[@LINE-3]]:19: note: assuming 'i < n' is true
    // CHECK: :[[@LINE-3]]:5: note: 'done' already passed on here
    // CHECK: :[[@LINE-5]]:19: note: assuming 'i < n' is true
}

// A copy of the handler is still the handler.
void through_a_copy(asyncshift::callback<> done) {
  auto copy = done;
  flush([=](asyncshift::error err) {
    copy(err);
    done(err);
    // CHECK: :[[@LINE-1]]:5: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
    // CHECK: :[[@LINE-3]]:5: note: 'done' already called here (through 'copy')
  });
}

// A generic branch of parallel (`auto step`) is read from its instantiation,
// as a branch taking callback<> is: forwarding the handler and then calling it.
void generic_branch(int n, asyncshift::callback<> done) {
  asyncshift::parallel(
      static_cast<std::size_t>(n),
      [=](std::size_t i, auto step) {
        write_int(static_cast<int>(i), 1, step);
        step({});
        // CHECK: :[[@LINE-1]]:9: error: handler 'step' may be called twice on this path [asyncshift-callback-called-twice]
        // CHECK: :[[@LINE-3]]:9: note: 'step' already passed on here
      },
      done);
}

// A continuation that completes the handler only when its error is set is no
// join branch (nothing shared guards it): beside a completion of its own, a
// failure completes the handler a second time.
void failure_only_then_done(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    if (err)
      return done(err);
  });
  done({});
  // CHECK: :[[@LINE-1]]:3: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
  // CHECK: :[[@LINE-6]]:3: note: 'done' already passed on here
  // CHECK: :[[@LINE-7]]:9: note: this lambda completes 'done' whenever its error is set, guarded by no shared counter or flag: it is no branch of a join
}

// The same in a loop (found by a user trial): every failure completes again.
void failure_only_in_loop(int n, asyncshift::callback<> done) {
  for (int i = 0; i < n; ++i)
    write_int(i, i, [=](asyncshift::error err) {
      if (err)
        return done(err);
    });
  // CHECK: :[[@LINE-4]]:5: error: handler 'done' may be called twice on this path: it is passed on again here [asyncshift-callback-called-twice]
  // CHECK: :[[@LINE-5]]:21: note: this lambda completes 'done' whenever its error is set, guarded by no shared counter or flag: it is no branch of a join
  done({});
  // CHECK: :[[@LINE-1]]:3: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
  // CHECK: :[[@LINE-8]]:21: note: this lambda completes 'done' whenever its error is set, guarded by no shared counter or flag: it is no branch of a join
}

// A flag that is never set where the handler is called: its test still passes.
void flag_never_set(std::vector<std::string> paths, asyncshift::callback<std::string> done) {
  read_int(0, [=](asyncshift::error err, int) {
    if (err)
      return done(err);
    bool found = false;
    for (const auto &p : paths)
      if (!p.empty()) {
        done({}, p);
        break;
      }
    if (!found)
      done(asyncshift::error("none"));
    // CHECK: :[[@LINE-1]]:7: error: handler 'done' may be called twice on this path [asyncshift-callback-called-twice]
  });
}

