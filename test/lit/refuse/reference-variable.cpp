// A continuation that captures a reference variable by copy copies what it
// refers to when the continuation is made. Converted code would go on reading
// through the reference after the wait (a coroutine frame keeps the
// reference), and see a later change or a dead object: refused in every style.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -o %t.out.cpp -- %{tool_flags} 2> %t.promise.err
// RUN: FileCheck %s --input-file=%t.promise.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

std::string current_mode();
const std::string &mode_ref();

void describe(int key, asyncshift::callback<std::string> done) {
  const std::string &mode = mode_ref();
  // CHECK: :[[@LINE+1]]:18: error: continuation copies 'mode', a reference: {{.*}} (declare 'mode' as a copy, not a reference) [asyncshift-reference-variable]
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, mode + std::to_string(v));
  });
  // CHECK: :[[@LINE-6]]:22: note: 'mode' is declared here
}

// A copy converts.
void describe_copy(int key, asyncshift::callback<std::string> done) {
  const std::string mode = mode_ref();
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, mode + std::to_string(v));
  });
}

// A reference used before the call only, and one declared in a continuation
// and used there, never cross a wait.
void before_only(int key, asyncshift::callback<int> done) {
  const std::string &mode = mode_ref();
  log_line(mode);
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    const std::string &again = mode_ref();
    log_line(again);
    done({}, v);
  });
}

// A reference to a constant-initialized object is not captured at all by
// Clang (g++ copies what it refers to): the two compilers disagree about the
// original, so it is refused too.
std::string g_mode = "fast";
void describe_global(int key, asyncshift::callback<std::string> done) {
  const std::string &mode = g_mode;
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    // CHECK: :[[@LINE+1]]:14: error: continuation uses 'mode', a reference declared outside it that it does not capture {{.*}}[asyncshift-reference-variable]
    done({}, mode + std::to_string(v));
  });
  // CHECK: :[[@LINE-6]]:22: note: 'mode' is declared here
}

// The recursive-lambda idiom's lambda is checked the same way: its body
// becomes the body of a loop in the coroutine, after waits.
void count_in_mode(int n, asyncshift::callback<std::string> done) {
  const std::string &mode = g_mode;
  auto step = [=](auto &self, int i) -> void {
    // CHECK: :[[@LINE+1]]:33: error: loop lambda uses 'mode', a reference declared outside it that it does not capture {{.*}}[asyncshift-reference-variable]
    if (i == n) return done({}, mode);
    read_int(i, [=](asyncshift::error err, int) {
      if (err) return done(err);
      self(self, i + 1);
    });
  };
  step(step, 0);
}
