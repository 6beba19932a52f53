// A loop whose body starts async work is refused, and pointed to the
// idioms that write a loop of async steps.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
#include "ops.h"

#include <memory>
#include <vector>

void write_once(int n, asyncshift::callback<> done) {
  do {
    // CHECK: :[[@LINE-1]]:3: error: async call or handler use inside a loop body; cannot convert (use asyncshift::each_series or the recursive-lambda idiom) [asyncshift-async-in-loop]
    write_int(n, n, done);
  } while (false);
}

// A range-for that starts a call per element (the counter idiom's shape,
// with no index): the message names the ways to write it.
void write_all(std::vector<int> keys, asyncshift::callback<> done) {
  auto pending = std::make_shared<std::size_t>(keys.size());
  for (int k : keys)
    // CHECK: :[[@LINE-1]]:3: error: async call or handler use inside a range-for loop body; cannot convert (to start them all at once, use asyncshift::parallel over the container's size, or write the counter idiom with an index: `for (std::size_t i = 0; i < n; ++i)`; one after another, asyncshift::each_series or the recursive-lambda idiom) [asyncshift-async-in-loop]
    write_int(k, 0, [=](asyncshift::error err) {
      if (--*pending == 0)
        done(err);
    });
}
