// A function whose name is written in code this compile's preprocessor skips
// (another definition under `#ifdef FAST_PATH`, a call under `#ifdef
// AUDIT`): the tool sees one configuration, and converting it would leave
// the skipped code calling or defining the callback form, which does not
// compile when a build takes it (found by a user trial). Refused, exit 1,
// nothing written. Code under `#if 0`, which no build takes, does not count.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: %asyncshift --style=coro %s -o %t.fast.cpp -- %{tool_flags} -DFAST_PATH -DAUDIT 2> %t.fast.err || true
// RUN: FileCheck %s --check-prefix=FAST --input-file=%t.fast.err --implicit-check-not=error:
#include "ops.h"

#ifdef FAST_PATH
void load(int k, asyncshift::callback<int> done) { read_int(k, done); }
#else
void load(int k, asyncshift::callback<int> done) {
  // CHECK: :[[@LINE-1]]:6: error: 'load' is also named in code this compile skips (line 16): a definition or call there would keep the callback form, and not compile in a build that takes it; cannot convert (keep what differs between builds in functions left in callback style, or mark this one {{.*}}) [asyncshift-preprocessor-conditional]
  // FAST: :[[@LINE-4]]:6: error: 'load' is also named in code this compile skips (line 18)
  read_int(k, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    read_int(v, done);
  });
}
#endif

void audit_all(int k, asyncshift::callback<int> done) {
  // CHECK: :[[@LINE-1]]:6: error: 'audit_all' is also named in code this compile skips (line 43)
  // FAST-NOT: 'audit_all'
  read_int(k, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v);
  });
}

#if 0
void audit_all(int k, asyncshift::callback<int> done) { read_int(k, done); }
#endif

int run_audit() {
#ifdef AUDIT
  audit_all(1, [](asyncshift::error, int) {});
#endif
  return 0;
}
