// In promise and future style, a named continuation receives an error only as
// the rejection of the operation before it. A call that hands it an error of
// its own (`finish(asyncshift::error("too small"), 0)`) is refused there, and
// the diagnostic points at that call and says so (it pointed at another call
// and said the continuation read its error other than by propagating it).
// The coroutine styles convert it.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=promise %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: %asyncshift --style=coro %s -- %{tool_flags} > %t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

void check(int key, asyncshift::callback<int> done) {
  auto finish = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    write_int(key, v, [=](asyncshift::error err) { done(err, v); });
  };
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return finish(err, 0);
    if (v < 3)
      // CHECK: :[[@LINE+1]]:14: error: named continuation 'finish' is called with an error that is not the outcome of an operation before it ('asyncshift::error("too small")'), and a chain hands a named continuation an error only as the rejection of the operation before it; cannot convert to this style yet (call the handler with that error instead, or use --style=coro or coro-values) [asyncshift-unsupported-join]
      return finish(asyncshift::error("too small"), 0);
    finish({}, v);
  });
}
