// asyncshift-mixed-sync-async: a function completes its handler before it
// returns on some paths and after on others, so its caller cannot know
// whether code after the call runs before or after the completion.
// RUN: not %asyncshift --check %s -- %{tool_flags} > %t.out 2> %t.err
// RUN: count 0 < %t.out
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not='error:'
#include "ops.h"

#include <vector>

// A cache hit completes at once; a miss completes from the loop.
void cached_read(bool hit, int key, asyncshift::callback<int> done) {
// CHECK: :[[@LINE-1]]:6: error: 'cached_read' completes 'done' synchronously on some paths and asynchronously on others [asyncshift-mixed-sync-async]
// CHECK: :[[@LINE+3]]:7: note: assuming 'hit' is true
// CHECK: :[[@LINE+3]]:12: note: completes 'done' synchronously here, before the call returns
// CHECK: :[[@LINE+3]]:3: note: completes 'done' asynchronously here, after the call returned
  if (hit)
    return done({}, key);
  read_int(key, done);
}

// Validation that fails synchronously.
void validated_write(int key, int value, asyncshift::callback<> done) {
// CHECK: :[[@LINE-1]]:6: error: 'validated_write' completes 'done' synchronously on some paths and asynchronously on others [asyncshift-mixed-sync-async]
// CHECK: :[[@LINE+3]]:7: note: assuming 'key < 0' is true
// CHECK: :[[@LINE+3]]:12: note: completes 'done' synchronously here, before the call returns
// CHECK: :[[@LINE+3]]:3: note: completes 'done' asynchronously here, after the call returned
  if (key < 0)
    return done(asyncshift::error("bad key"));
  write_int(key, value, [=](asyncshift::error err) { done(err); });
}

// Through a named continuation called directly on one path.
void through_a_join(bool cached, asyncshift::callback<int> done) {
// CHECK: :[[@LINE-1]]:6: error: 'through_a_join' completes 'done' synchronously on some paths and asynchronously on others [asyncshift-mixed-sync-async]
// CHECK: :[[@LINE+8]]:7: note: assuming 'cached' is true
// CHECK: :[[@LINE+8]]:5: note: completes 'done' synchronously here, before the call returns
// CHECK: :[[@LINE+9]]:5: note: completes 'done' asynchronously here, after the call returned
  auto next = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    done({}, v);
  };
  if (cached)
    next({}, 1);
  else
    read_int(1, next);
}

// A parallel branch (a lambda with its own handler).
void branches(std::size_t n, asyncshift::callback<std::vector<int>> done) {
  asyncshift::parallel<int>(
      n,
      [=](std::size_t i, asyncshift::callback<int> cb) {
      // CHECK: :[[@LINE-1]]:7: error: lambda completes 'cb' synchronously on some paths and asynchronously on others [asyncshift-mixed-sync-async]
      // CHECK: :[[@LINE+3]]:13: note: assuming 'i == 0' is true
      // CHECK: :[[@LINE+3]]:18: note: completes 'cb' synchronously here, before the call returns
      // CHECK: :[[@LINE+3]]:9: note: completes 'cb' asynchronously here, after the call returned
        if (i == 0)
          return cb({}, 0);
        read_int(int(i), cb);
      },
      done);
}

// A 'catch' before the first wait completes synchronously.
void parse_then_read(std::string text, asyncshift::callback<int> done) {
  // CHECK: :[[@LINE-1]]:6: error: 'parse_then_read' completes 'done' synchronously on some paths and asynchronously on others [asyncshift-mixed-sync-async]
  // CHECK: :[[@LINE+6]]:5: note: assuming an exception is thrown here
  // CHECK: :[[@LINE+6]]:5: note: entering this handler
  // CHECK: :[[@LINE+6]]:12: note: completes 'done' synchronously here, before the call returns
  // CHECK: :[[@LINE+7]]:3: note: completes 'done' asynchronously here, after the call returned
  int n = 0;
  try {
    n = std::stoi(text);
  } catch (const std::exception &e) {
    return done(asyncshift::error(e.what()));
  }
  read_int(n, done);
}

// The recursive-lambda idiom: its first round runs before the function
// returns, so a test that ends the loop before the first wait completes
// synchronously (here when keys is empty).
void sum_all(std::vector<int> keys, asyncshift::callback<int> done) {
  // CHECK: :[[@LINE-1]]:6: error: 'sum_all' completes 'done' synchronously on some paths and asynchronously on others [asyncshift-mixed-sync-async]
  // CHECK: :[[@LINE+3]]:34: note: completes 'done' synchronously here, before the call returns
  // CHECK: :[[@LINE+3]]:5: note: completes 'done' asynchronously here, after the call returned
  auto loop = [=](auto &self, std::size_t i, int acc) -> void {
    if (i == keys.size()) return done({}, acc);
    read_int(keys[i], [=](asyncshift::error err, int v) {
      if (err) return done(err);
      self(self, i + 1, acc + v);
    });
  };
  loop(loop, 0, 0);
}
