// A variable of a class declared inside the function (in a continuation)
// that crosses a wait: the chain styles' per-call state, declared before that
// step, cannot name the class. Refused in promise and future style (it
// printed `pt p{};` and did not compile); a coroutine frame keeps it.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=promise %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: %asyncshift --style=coro %s -- %{tool_flags} > %t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

void corner(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    struct point {
      int x, y;
    };
    // CHECK: :[[@LINE+1]]:11: error: variable 'p' is read after a later wait, so this style keeps it in the call's state, but its type cannot be named before the steps (declared inside the function, or unnamed); cannot convert to this style (--style=coro and coro-values keep it in the coroutine frame) [asyncshift-state-variable]
    point p{v, v + 1};
    write_int(key, v, [=](asyncshift::error err) {
      if (err)
        return done(err);
      done({}, p.x + p.y);
    });
  });
}
