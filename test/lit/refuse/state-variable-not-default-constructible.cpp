// A variable that crosses a wait in promise or future style becomes a field of
// the per-call state, declared `T x{};` before the first step and assigned
// where the variable was declared: a type with neither a default constructor
// nor a way to assign it cannot be one. Refused at the variable, saying why;
// a coroutine frame keeps it.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=promise %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: %asyncshift --style=coro %s -- %{tool_flags} > %t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

struct box {
  explicit box(int v) : v(v) {}
  int v;
};

void boxed(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    // CHECK: :[[@LINE+1]]:9: error: variable 'b' is read after a later wait, so this style keeps it in the call's state, but its type cannot be default-constructed and assigned; cannot convert to this style (--style=coro and coro-values keep it in the coroutine frame) [asyncshift-state-variable]
    box b(v);
    write_int(key, v, [=](asyncshift::error err) {
      if (err)
        return done(err);
      done({}, b.v);
    });
  });
}
