// A header given with the files that include it, defining a function the run
// converts (an inline member): a file that includes the header reads the
// callback form and would keep calling it (the output did not compile). Both
// are refused, exit 1, nothing written, also with -i (found by a user trial).
// RUN: rm -rf %t && mkdir -p %t/gen
// RUN: sed -n -e '/^.. BEGIN-HEADER/,/^.. END-HEADER/p' %s | sed -e '1d' -e '$d' -e 's|^// ||' > %t/store.h
// RUN: sed -e 's|^// *CHECK.*$|//|' %s > %t/use.cpp
// RUN: not %asyncshift --style=coro --out-dir %t/gen %t/store.h %t/use.cpp -- %flags -I%t 2> %t/err
// RUN: FileCheck %s --input-file=%t/err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: not test -e %t/gen/store.coro.h
// RUN: not test -e %t/gen/use.coro.cpp
// RUN: cp %t/store.h %t/store.h.orig && cp %t/use.cpp %t/use.cpp.orig
// RUN: not %asyncshift --style=coro -i %t/store.h %t/use.cpp -- %flags -I%t 2> %t/err.inplace
// RUN: FileCheck %s --input-file=%t/err.inplace --implicit-check-not=error:
// RUN: cmp %t/store.h %t/store.h.orig
// RUN: cmp %t/use.cpp %t/use.cpp.orig
#include "store.h"

counter_store g_store;

void total(int key, asyncshift::callback<int> done) {
  g_store.add(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v * 2);
  });
}

// CHECK: use.cpp:[[@LINE-6]]:11: error: 'counter_store::add' is converted by this run (it is defined in '{{.*}}store.h'), but this file reads its declaration elsewhere and uses it in callback style; cannot convert {{.*}}[asyncshift-declared-elsewhere]

// BEGIN-HEADER
// #pragma once
// #include "ops.h"
// struct counter_store {
//   int base = 10;
//   void add(int key, asyncshift::callback<int> done) {
//     read_int(key, [=, this](asyncshift::error err, int v) {
//       if (err) return done(err);
//       done({}, v + base);
//     });
//   }
// };
// END-HEADER
