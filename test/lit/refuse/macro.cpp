// An async call hidden in a macro is refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

#define READ_INTO(key, body) read_int(key, [=](asyncshift::error err, int v) body)

void macro_user(asyncshift::callback<int> done) {
  READ_INTO(1, { done(err, v); });
  // CHECK: :[[@LINE-1]]:3: error: {{.*}}macro expansion; cannot convert [asyncshift-macro]
}
