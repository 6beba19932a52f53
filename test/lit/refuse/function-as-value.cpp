// A converted function named as a value — its address taken, or stored in a
// std::function — is refused at that use: the conversion changes the
// function's type, and the use would no longer compile (before, the output
// did not compile: "conversion from 'asyncshift::task<int>(int)' to
// 'std::function<...>' requested"). Calls, and passing the function to the
// runtime (ASYNCSHIFT_WORKLOAD's registration, overloaded for every style),
// convert.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: sed -e '/^void keep_pointer/,/^}/d' -e '/^void keep_function/,/^}/d' %s > %t.calls.cpp
// RUN: %asyncshift --style=coro %t.calls.cpp -- %{tool_flags} > %t.calls.coro.cpp
// RUN: FileCheck %s --check-prefix=CALLS --input-file=%t.calls.coro.cpp
// RUN: %gxx %t.calls.coro.cpp && %clangxx %t.calls.coro.cpp
#include "ops.h"

#include <asyncshift/bench.hpp>

#include <functional>

void get_value(int k, asyncshift::callback<int> done) {
  read_int(k, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    done({}, v + 1);
  });
}

void entry(std::uint64_t k, asyncshift::callback<> done) {
  get_value(static_cast<int>(k), [=](asyncshift::error err, int) { done(err); });
}
ASYNCSHIFT_WORKLOAD("function-as-value", entry);

void keep_pointer() {
  void (*fp)(int, asyncshift::callback<int>) = &get_value;
  // CHECK: :[[@LINE-1]]:49: error: 'get_value' is used here as a value, not called; converting it changes its type, so this use would no longer compile; cannot convert (call it, or mark it {{\[\[}}clang::annotate("asyncshift::leaf")]] to keep it in callback style) [asyncshift-function-as-value]
  fp(1, {});
}

void keep_function() {
  std::function<void(int, asyncshift::callback<int>)> f = get_value;
  // CHECK: :[[@LINE-1]]:59: error: 'get_value' is used here as a value, not called; {{.*}}[asyncshift-function-as-value]
  f(2, {});
}

// CALLS-LABEL: asyncshift::task<> entry(std::uint64_t k)
// CALLS: co_await get_value(static_cast<int>(k))
// CALLS: ASYNCSHIFT_WORKLOAD("function-as-value", entry);
