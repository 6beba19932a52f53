// A `catch` before the first wait completes synchronously: promise style,
// which completes from the microtask queue, warns (as for any function that
// completes synchronously on some paths only); the other styles keep the order.
// RUN: %asyncshift --style=promise %s -o %t.promise.cpp -- %{tool_flags} 2> %t.promise.err
// RUN: FileCheck %s --input-file=%t.promise.err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %gxx %t.promise.cpp
// RUN: %asyncshift --style=future %s -o %t.future.cpp -- %{tool_flags} 2> %t.future.err
// RUN: count 0 < %t.future.err
#include "ops.h"

#include <stdexcept>
#include <string>

void parse_then_read(std::string text, asyncshift::callback<int> done) {
  // CHECK: :[[@LINE-1]]:6: warning: 'parse_then_read' completes 'done' synchronously on some paths and asynchronously on others; promise style runs every continuation from the microtask queue{{.*}} [asyncshift-sync-completion-reordered]
  // CHECK: :[[@LINE+4]]:5: note: assuming an exception is thrown here
  // CHECK: :[[@LINE+4]]:5: note: entering this handler
  int n = 0;
  try {
    n = std::stoi(text);
  } catch (const std::exception &e) {
    return done(asyncshift::error(e.what()));
  }
  read_int(n, done);
}
