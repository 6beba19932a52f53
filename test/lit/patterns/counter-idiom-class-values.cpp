// Pattern 6 by hand (the counter idiom) over class-type values: the store
// `(*results)[i] = v;` is then a call of std::string's operator=, not the
// built-in `=`. It was refused as asyncshift-async-in-loop ("the
// continuation does not end with `if (--*pending == 0) ...`"); it converts
// as the scalar idiom does (pattern-06-07-idioms.cpp).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE_WARN --input-file=%t.promise.err --implicit-check-not=error: --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"
#include <memory>
#include <vector>

void fetch_all(std::size_t n, asyncshift::callback<std::vector<std::string>> done) {
  if (n == 0) return done({}, {});
  auto pending = std::make_shared<std::size_t>(n);
  auto failed = std::make_shared<bool>(false);
  auto results = std::make_shared<std::vector<std::string>>(n);
  for (std::size_t i = 0; i < n; ++i) {
    fetch("/page/" + std::to_string(i), [=](asyncshift::error err, std::string body) {
      if (*failed) return;
      if (err) {
        *failed = true;
        return done(err);
      }
      (*results)[i] = body;
      if (--*pending == 0) done({}, *results);
    });
  }
}
// CORO-LABEL: asyncshift::task<std::vector<std::string>> fetch_all(std::size_t n) {
// CORO: auto results = co_await asyncshift::when_all(n, std::move(branch));
// CORO-NEXT: co_return results;
// PROMISE-LABEL: asyncshift::promise<std::vector<std::string>> fetch_all(std::size_t n) {
// PROMISE: return asyncshift::make_promise(asyncshift::when_all(n, [=](std::size_t i) {
// PROMISE-NEXT: return asyncshift::promisify<std::string>(
// PROMISE_WARN: warning: 'fetch_all' completes 'done' synchronously on some paths and asynchronously on others; {{.*}} [asyncshift-sync-completion-reordered]
