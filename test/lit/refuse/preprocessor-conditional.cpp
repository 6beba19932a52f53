// A preprocessor conditional inside a function to convert is refused: the
// AST holds only the branch this compile selects, and the rewritten function
// kept that branch whatever the build later defined (a build step run
// without the build's -DNDEBUG dropped the `#ifndef NDEBUG` op from the
// callback build only: a different trace). Conditionals outside the
// function, and `#define`s, are fine.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -- %{tool_flags} -DNDEBUG 2>&1 | FileCheck %s --implicit-check-not=error:
#include "ops.h"

#ifndef VERBOSE
#define VERBOSE 0
#endif

void load(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
#ifndef NDEBUG
    // CHECK: :[[@LINE-1]]:1: error: '#ifndef' inside a function to convert: the tool sees only the branch this compile selects, and the converted function would keep that branch whatever the build defines; cannot convert {{.*}} [asyncshift-preprocessor-conditional]
    write_int(0, v, [](asyncshift::error) {});
#endif
    write_int(key, v, [=](asyncshift::error err) { done(err, v); });
  });
}

void store(int key, asyncshift::callback<> done) {
  write_int(key, VERBOSE, done);
}

void pick(int key, asyncshift::callback<int> done) {
  #  if VERBOSE
  // CHECK: :[[@LINE-1]]:3: error: '#if' inside a function {{.*}} [asyncshift-preprocessor-conditional]
  log_line("pick");
  #  endif
  read_int(key, done);
}
