// Types the source spells through a using-declaration (`std::int64_t` is
// `using ::int64_t;` in namespace std) keep that spelling wherever the tool
// prints a type: task/promise/future results, promisify and parallel item
// types, template arguments. Every style, built by both compilers.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: FileCheck %s --check-prefix=NOBARE --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: FileCheck %s --check-prefix=NOBARE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: FileCheck %s --check-prefix=NOBARE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
// RUN: FileCheck %s --check-prefix=NOBARE --input-file=%t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
#include "ops.h"

#include <vector>

namespace store {
using std::size_t;
void load(std::int64_t key, asyncshift::callback<std::int64_t> cb);
void sizes(asyncshift::callback<std::vector<std::uint64_t>> cb);
} // namespace store

void total(std::int64_t n, asyncshift::callback<std::int64_t> done) {
  asyncshift::parallel<std::int64_t>(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<std::int64_t> got) { store::load(static_cast<std::int64_t>(i), got); },
      [=](asyncshift::error err, std::vector<std::int64_t> values) {
        if (err) return done(err);
        std::int64_t sum = 0;
        for (auto v : values) sum += v;
        done({}, sum);
      });
}

void biggest(asyncshift::callback<std::uint64_t> done) {
  store::sizes([=](asyncshift::error err, std::vector<std::uint64_t> all) {
    if (err) return done(err);
    std::uint64_t best = 0;
    for (auto s : all) best = s > best ? s : best;
    done({}, best);
  });
}

// CORO-LABEL: asyncshift::task<std::int64_t> total(std::int64_t n)
// CORO: asyncshift::promisify<std::int64_t>(
// CORO-LABEL: asyncshift::task<std::uint64_t> biggest()
// CORO: asyncshift::promisify<std::vector<std::uint64_t>>(
// PROMISE-LABEL: asyncshift::promise<std::int64_t> total(std::int64_t n)
// PROMISE: asyncshift::make_promise(
// PROMISE: asyncshift::promisify<std::int64_t>(
// PROMISE-LABEL: asyncshift::promise<std::uint64_t> biggest()
// PROMISE: asyncshift::make_promise_chain<std::vector<std::uint64_t>>(
// FUTURE-LABEL: asyncshift::future<std::int64_t> total(std::int64_t n)
// FUTURE-LABEL: asyncshift::future<std::uint64_t> biggest()
// Nowhere a 64-bit integer type without its std:: qualifier, in any style:
// NOBARE-NOT: {{[^:u]}}int64_t
// NOBARE-NOT: {{[^:]}}uint64_t
