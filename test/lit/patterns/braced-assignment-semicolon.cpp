// An expression statement that ends in `}` (`out = {v, v + 1};`) keeps its
// semicolon. Its range in the AST ends at the `}`, and the `;` was looked
// for only after statements not ending in `}` (meant for blocks), so every
// style printed `out = {v, v + 1} co_return out;`.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp
// RUN: FileCheck %s --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp
// RUN: FileCheck %s --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.values.cpp
// RUN: %gxx %t.values.cpp && %clangxx %t.values.cpp
#include "ops.h"
#include <vector>

struct span2 {
  int lo, hi;
};

void pair_of(int key, asyncshift::callback<std::vector<int>> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    std::vector<int> out;
    out = {v, v + 1};
    span2 s;
    s = span2{v, v};
    if (v > 0) {
      out.push_back(s.hi);
    }
    done({}, out);
  });
}
// CHECK: out = {v, v + 1};
// CHECK: s = span2{v, v};
// CHECK: if (v > 0) {
