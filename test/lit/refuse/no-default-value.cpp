// A value type with no default constructor. coro-values settles every
// operation into asyncshift::result<T>, which holds a T on failure too, so it
// refuses any function that waits for one; coro declares a named
// continuation's value before the paths that call it, so it refuses that
// (promise and future refuse it as a variable crossing continuations). Both
// printed `box x{};` (or result<box>) and did not compile. A plain sequence
// converts in coro, promise and future.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro-values %s -o %t.out.cpp -- %{tool_flags} 2> %t.values.err
// RUN: FileCheck %s --check-prefix=VALUES --input-file=%t.values.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: sed -e '/BEGIN JOIN/,/END JOIN/d' %s > %t.sequence.cpp
// RUN: %asyncshift --style=coro %t.sequence.cpp -- %{tool_flags} > %t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=future %t.sequence.cpp -- %{tool_flags} > %t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"

struct box {
  explicit box(int v) : v(v) {}
  int v;
};
void read_box(int key, asyncshift::callback<box> cb);

// VALUES: :[[@LINE+1]]:6: error: coro-values settles each operation into asyncshift::result<T>, which holds a T even on failure, and 'box' cannot be default-constructed; cannot convert to this style [asyncshift-value-type]
void unbox(int key, asyncshift::callback<int> done) {
  read_box(key, [=](asyncshift::error err, box x) {
    if (err)
      return done(err);
    done({}, x.v);
  });
}

// BEGIN JOIN
// VALUES: :[[@LINE+1]]:6: error: coro-values settles
void unbox_or_default(bool cached, int key, asyncshift::callback<int> done) {
  // CORO: :[[@LINE+1]]:3: error: named continuation parameter 'x' becomes a variable declared before the paths that call 'after' and assigned on each, but 'box' cannot be default-constructed and assigned; cannot convert [asyncshift-join-type]
  auto after = [=](asyncshift::error err, box x) {
    if (err)
      return done(err);
    write_int(key, x.v, [=](asyncshift::error err) { done(err, x.v); });
  };
  if (cached)
    return after({}, box(3));
  read_box(key, [=](asyncshift::error err, box x) { after(err, x); });
}
// END JOIN
