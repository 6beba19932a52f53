// A named continuation used after being moved is refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

#include <utility>

void twice_moved(bool again, asyncshift::callback<> done) {
  auto next = [=](asyncshift::error err) { done(err); };
  if (again) {
    flush(std::move(next));
    // CHECK: :[[@LINE-1]]:11: error: named continuation 'next' is moved here and used elsewhere; cannot convert {{.*}}[asyncshift-moved-continuation]
  } else {
    next({});
  }
}
