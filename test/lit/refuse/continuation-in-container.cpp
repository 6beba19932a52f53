// A named continuation stored in a container (here: kept for later) in an
// async function is refused. (A function that only keeps its handler, or a
// lambda completing it, waits on nothing: a leaf, left as it is,
// patterns/leaf-keeps-handler.cpp.)
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

#include <functional>
#include <vector>

std::vector<std::function<void(asyncshift::error)>> pending;

void later(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    if (err) return done(err);
    auto next = [=](asyncshift::error err) { done(err); };
    pending.push_back(next);
    // CHECK: :[[@LINE-1]]:23: error: continuation is stored by the standard library ('std::vector{{.*}}push_back'); cannot convert [asyncshift-escaping-continuation]
  });
}
