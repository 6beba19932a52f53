// Structured bindings used after a wait. A coroutine frame keeps them as they
// are; the chain styles keep the declaration in its step and copy each
// binding a later step reads into the per-call state, whose field is spelt
// as the type the binding deduced (not `tuple_element<1, P>::type`). Those
// bindings were dropped: `hi` was undeclared in the next `.then`.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp
// RUN: FileCheck %s --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
#include "ops.h"
#include <string>
#include <utility>

std::pair<int, std::string> split(int v);
struct point {
  int x;
  long y;
};
point where(int v);

void measure(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    auto [lo, hi] = split(v);
    auto [x, y] = where(v);
    write_int(key, lo + x, [=](asyncshift::error err) {
      if (err)
        return done(err);
      done({}, static_cast<int>(hi.size() + y));
    });
  });
}
// CHECK:      struct measure_state {
// CHECK-NEXT: std::string hi{};
// CHECK-NEXT: long y{};
// CHECK-NEXT: };
// CHECK:      auto [lo, hi] = split(v);
// CHECK-NEXT: state->hi = std::move(hi);
// CHECK-NEXT: auto [x, y] = where(v);
// CHECK-NEXT: state->y = std::move(y);
// CHECK:      write_int(key, lo + x, std::move(cb));
// CHECK:      static_cast<int>(state->hi.size() + state->y)
