// A variable whose type is an alias declared inside the function (in a
// continuation) crosses a wait. The chain styles' per-call state is declared
// before that step, where the alias is not visible: its field is spelt as
// what the alias names. It printed `num n{};` and did not compile.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp
// RUN: FileCheck %s --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"
#include <vector>

void total(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    using num = long;
    typedef std::vector<num> nums;
    num n = v;
    nums all{n, n};
    write_int(key, v, [=](asyncshift::error err) {
      if (err)
        return done(err);
      done({}, static_cast<int>(n + all[1]));
    });
  });
}
// CHECK:      struct total_state {
// CHECK-NEXT: long n{};
// CHECK-NEXT: std::vector<long> all{};
// CHECK-NEXT: };
// CHECK:      using num = long;
// CHECK:      state->n = v;
// CHECK-NEXT: state->all = nums{state->n, state->n};
