// A variable that crosses a wait in promise or future style becomes a field of
// the per-call state, and a lambda written in the source reaches it through
// the state: a lambda that copied it ([=] or [x]) would see a later change.
// Refused at the copy; a coroutine frame keeps the variable, and the copy.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=promise %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: %asyncshift --style=coro %s -- %{tool_flags} > %t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// A copy of a variable that does not change afterwards converts.
// RUN: sed -e 's/    count = 0;/    log_line("unchanged");/' %s > %t.unchanged.cpp
// RUN: %asyncshift --style=promise %t.unchanged.cpp -- %{tool_flags} > %t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
#include "ops.h"

void report(int key, asyncshift::callback<> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    int count = v;
    auto before = [=] { return "count was " + std::to_string(count); };
    // CHECK: :[[@LINE-1]]:62: error: a lambda copies 'count', which changes after that; 'count' is read after a later wait, so this style keeps it in the call's state, where the lambda would see the change; cannot convert to this style (copy it into a variable of its own that does not change; --style=coro and coro-values keep it in the coroutine frame) [asyncshift-state-variable]
    count = 0;
    log_line(before());
    write_int(key, v, [=](asyncshift::error err) {
      if (err)
        return done(err);
      log_line("count now " + std::to_string(count));
      done({});
    });
  });
}
