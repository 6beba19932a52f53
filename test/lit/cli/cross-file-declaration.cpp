// A function one file of the run converts, which another file declares
// itself (no header) and calls in callback style: that file would keep the
// old call and the program would not link. Both files are refused, exit 1,
// nothing written; a third file of the run is still written. Marked a leaf
// in both places, both files are kept and written.
// RUN: rm -rf %t && mkdir -p %t/gen %t/leaf
// RUN: sed -e 's|^// *CHECK.*$|//|' %s > %t/a.cpp
// RUN: printf '#include "ops.h"\nvoid twice(int v, asyncshift::callback<int> done);\nvoid user(asyncshift::callback<int> done) {\n  twice(1, done);\n}\n' > %t/b.cpp
// RUN: printf '#include "ops.h"\nvoid other(asyncshift::callback<> done) { flush(done); }\n' > %t/c.cpp
// RUN: not %asyncshift --style=coro --out-dir %t/gen %t/a.cpp %t/b.cpp %t/c.cpp -- %flags 2> %t/err
// RUN: FileCheck %s --input-file=%t/err --implicit-check-not=error:
// RUN: not test -e %t/gen/a.coro.cpp
// RUN: not test -e %t/gen/b.coro.cpp
// RUN: test -e %t/gen/c.coro.cpp
// RUN: sed -e 's|^void twice|[[clang::annotate("asyncshift::leaf")]] void twice|' %t/a.cpp > %t/leaf/a.cpp
// RUN: sed -e 's|^void twice|[[clang::annotate("asyncshift::leaf")]] void twice|' %t/b.cpp > %t/leaf/b.cpp
// RUN: %asyncshift --style=coro --out-dir %t/leaf/gen %t/leaf/a.cpp %t/leaf/b.cpp -- %flags
#include "ops.h"

void twice(int v, asyncshift::callback<int> done) {
  read_int(v, [=](asyncshift::error err, int x) {
    if (err) return done(err);
    read_int(x, done);
  });
}

// CHECK: b.cpp:4:3: error: 'twice' is converted by this run (it is defined in '{{.*}}a.cpp'), but this file reads its declaration elsewhere and uses it in callback style; cannot convert {{.*}}[asyncshift-declared-elsewhere]
