// Arms of an `if` that reach a named continuation and one that completes the
// function instead. The chain styles continue after the `if` with the named
// continuation's steps, so the completing path ran them too: the "other"
// path below started the 'finish' write (a silent difference). They refuse;
// the coroutine styles, which return from that path, convert it.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=promise %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
#include "ops.h"

void lookup(int seed, asyncshift::callback<int> done) {
  auto finish = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    read_int(v % 1000, done);
  };
  if (seed % 2 == 0)
    return read_int(seed, finish);
  // CHECK: :[[@LINE-2]]:3: error: a path of this 'if' completes the function without calling named continuation 'finish', which the others call; cannot convert to this style (--style=coro and coro-values convert it) [asyncshift-unsupported-join]
  if (seed % 3 == 0)
    return read_int(seed + 1, finish);
  read_int(seed + 2, done);
}
// CORO:      if (seed % 2 == 0) {
// CORO-NEXT:   auto v_2 = co_await asyncshift::promisify<int>(
// CORO:        co_return co_await asyncshift::promisify<int>(
// CORO-NEXT:     [&](auto cb) { read_int(seed + 2, cb); });
// CORO:      co_return co_await asyncshift::promisify<int>(
// CORO-NEXT:   [&](auto cb) { read_int(v % 1000, cb); });

// An arm that fails the function joins nothing and converts: its rejection
// skips the named continuation's steps, as the original's path skips them.
void checked(int seed, asyncshift::callback<int> done) {
  auto finish = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    done({}, v + 1);
  };
  if (seed < 0)
    return done(asyncshift::error("negative seed"));
  read_int(seed, finish);
}
