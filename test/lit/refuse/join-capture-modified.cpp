// A named continuation copies what it captures when it is defined; the
// converted code has no copy and reads the variable itself when the
// continuation's steps run. A change to a captured variable after the
// definition, directly or through a local reference to it, is refused in
// every style: the reference case converted silently and every style read
// the changed value.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
#include "ops.h"

void direct(int seed, asyncshift::callback<int> done) {
  int budget = seed % 10;
  auto after = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    write_int(v, budget, [=](asyncshift::error err) { done(err, v); });
  };
  budget += 7;
  // CHECK: :[[@LINE-1]]:3: error: 'budget' is modified after named continuation 'after' captured it; cannot convert [asyncshift-join-capture-modified]
  read_int(seed, after);
}

void through_reference(int seed, asyncshift::callback<int> done) {
  int budget = seed % 10;
  auto after = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    write_int(v, budget, [=](asyncshift::error err) { done(err, v); });
  };
  auto &remaining = budget;
  remaining += 7;
  // CHECK: :[[@LINE-1]]:3: error: 'budget' is modified (through reference 'remaining') after named continuation 'after' captured it; cannot convert [asyncshift-join-capture-modified]
  read_int(seed, after);
}

// A reference made before the definition, used after it.
void reference_made_before(int seed, asyncshift::callback<int> done) {
  int budget = seed % 10;
  int &left = budget;
  auto after = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    write_int(v, budget, [=](asyncshift::error err) { done(err, v); });
  };
  ++left;
  // CHECK: :[[@LINE-1]]:3: error: 'budget' is modified (through reference 'left') after named continuation 'after' captured it; cannot convert [asyncshift-join-capture-modified]
  read_int(seed, after);
}

// Look-alikes that convert: a change before the definition, a const reference.
void unchanged_after(int seed, asyncshift::callback<int> done) {
  int budget = seed % 10;
  budget += 7;
  auto after = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    write_int(v, budget, [=](asyncshift::error err) { done(err, v); });
  };
  const int &seen = budget;
  log_line(std::to_string(seen));
  read_int(seed, after);
}
