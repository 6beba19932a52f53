// A named continuation called from two places that logs its error before
// propagating it: a chain hands the continuation only values (the error is
// the rejection of the operation before it), so promise and future style
// refuse it, saying what to do; the coroutine styles convert it.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=promise %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: %asyncshift --style=coro %s -- %{tool_flags} > %t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

void ensure(int id, bool cached, asyncshift::callback<int> done) {
  auto next = [=](asyncshift::error err, int v) {
    if (err) {
      log_line("could not read: " + err.message());
      return done(err);
    }
    done({}, v + 1);
  };
  // CHECK: :[[@LINE+1]]:3: error: named continuation 'next' reads the error it receives other than by propagating it (`if (err) return done(err);`), and a chain that joins at a named continuation hands it only values; cannot convert to this style yet (--style=coro or coro-values converts it; in this style, propagate the error unchanged and log or translate it where the call completes) [asyncshift-unsupported-join]
  if (cached)
    read_int(id, next);
  else
    read_int(id + 1, next);
}
