// Look-alikes of asyncshift-mixed-sync-async: every path completes on the
// same side of the return.
// RUN: %asyncshift --check %s -- %{tool_flags} 2>&1 | count 0
#include "ops.h"

// Always asynchronous, with conditional work inside the continuation.
void always_async(bool dirty, asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    if (err)
      return done(err);
    if (!dirty)
      return done({});
    write_int(1, 1, done);
  });
}

// Always synchronous (a leaf).
void always_sync(int x, asyncshift::callback<int> cb) {
  if (x < 0)
    return cb(asyncshift::error("negative"));
  cb({}, x * 2);
}

// A sync leaf defined here keeps its caller synchronous.
void via_sync_leaf(int x, asyncshift::callback<int> done) {
  if (x == 0)
    return done({}, 0);
  always_sync(x, done);
}

// A named continuation called with a success takes only its async path.
void join_with_success(bool cached, asyncshift::callback<int> done) {
  auto next = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    write_int(1, v, [=](asyncshift::error err) { done(err, v); });
  };
  if (cached)
    next({}, 1);
  else
    read_int(1, next);
}
