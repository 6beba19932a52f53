// A structured binding that names what another object holds (`auto &[a, b]`,
// or a tuple of references from std::tie) is a reference: a continuation
// copies what it names when it is made, and converted code would read the
// object after the wait. Refused in every style, as a reference variable is.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -o %t.out.cpp -- %{tool_flags} 2> %t.future.err
// RUN: FileCheck %s --input-file=%t.future.err
// RUN: not test -e %t.out.cpp
#include "ops.h"
#include <tuple>
#include <utility>

std::pair<int, int> &slot(int v);
int low_mark, high_mark;

void by_reference(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    auto &[lo, hi] = slot(v);
    // CHECK: :[[@LINE+1]]:25: error: continuation copies 'hi', a reference: {{.*}} (declare 'hi' as a copy, not a reference) [asyncshift-reference-variable]
    write_int(key, lo, [=](asyncshift::error err) {
      if (err) return done(err);
      done({}, hi);
    });
    // CHECK: :[[@LINE-6]]:16: note: 'hi' is declared here
  });
}

void through_tie(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    auto [lo, hi] = std::tie(low_mark, high_mark);
    // CHECK: :[[@LINE+1]]:29: error: continuation copies 'hi', a reference: {{.*}} [asyncshift-reference-variable]
    write_int(key, lo + v, [=](asyncshift::error err) {
      if (err) return done(err);
      done({}, hi);
    });
  });
}
