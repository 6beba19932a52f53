// ASYNCSHIFT_WORKLOAD's entry is `void entry(std::uint64_t k,
// asyncshift::callback<> done)` or what the tool rewrites it into. Anything
// else (here a handler with a value) is one message that says what it must
// be: it was a page of `registration` overload candidates (user trial 9).
// RUN: not %gxx %s 2> %t.gxx.err
// RUN: FileCheck %s --input-file=%t.gxx.err
// RUN: not %clangxx %s 2> %t.clang.err
// RUN: FileCheck %s --input-file=%t.clang.err
#include <asyncshift/bench.hpp>

void valued(std::uint64_t k, asyncshift::callback<std::int64_t> done) { done({}, static_cast<std::int64_t>(k)); }

ASYNCSHIFT_WORKLOAD("valued", valued);
// CHECK: ASYNCSHIFT_WORKLOAD's entry must be `void entry(std::uint64_t k, asyncshift::callback<> done)`
