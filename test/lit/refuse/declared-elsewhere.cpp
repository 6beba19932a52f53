// A function declared in a header and defined here cannot change its
// signature: the tool rewrites the files it is given, not the headers they
// include. Refused, with the way out: a leaf annotation on the declaration
// keeps the function in callback style, and then the rest converts.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -o %t.leaf.cpp -- %{tool_flags} -DONLY_THE_LEAF
// RUN: FileCheck %s --check-prefix=LEAF --input-file=%t.leaf.cpp
// RUN: %gxx -Wno-attributes -DONLY_THE_LEAF %t.leaf.cpp && %clangxx -DONLY_THE_LEAF %t.leaf.cpp
#include "declared_elsewhere.h"
#include "ops.h"

#ifndef ONLY_THE_LEAF
void load_user(int id, asyncshift::callback<int> done) {
  // CHECK: :[[@LINE-1]]:6: error: 'load_user' is also declared in another file (a header), and the tool converts a function only in the file that defines it, so that declaration would keep the callback form; cannot convert {{.*}}[asyncshift-declared-elsewhere]
  // CHECK: declared_elsewhere.h:7:6: note: declared here
  read_int(id, done);
}
#endif

// LEAF: void load_group(int id, asyncshift::callback<int> done) {
// LEAF-NEXT: read_int(id, done);
// LEAF: asyncshift::task<int> load_both(int id) {
void load_group(int id, asyncshift::callback<int> done) {
  read_int(id, done);
}

void load_both(int id, asyncshift::callback<int> done) {
  load_group(id, [=](asyncshift::error err, int group) {
    if (err) return done(err);
    done({}, group + 1);
  });
}
