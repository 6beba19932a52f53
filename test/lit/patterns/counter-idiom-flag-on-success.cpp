// The counter idiom with `*failed = true;` beside the last completion as well
// (it changes nothing: every branch has run by then) converts, the flag
// dropped with the rest of the idiom (it was refused as a use outside it).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"
#include <memory>
#include <vector>

void read_all(std::vector<int> keys, asyncshift::callback<std::vector<int>> done) {
  if (keys.empty()) return done({}, {});
  auto pending = std::make_shared<std::size_t>(keys.size());
  auto failed = std::make_shared<bool>(false);
  auto results = std::make_shared<std::vector<int>>(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    read_int(keys[i], [=](asyncshift::error err, int v) {
      if (*failed) return;
      if (err) {
        *failed = true;
        return done(err);
      }
      (*results)[i] = v;
      if (--*pending == 0) {
        *failed = true;
        done({}, *results);
      }
    });
  }
}

// ---- expected output
// CORO-LABEL: asyncshift::task<std::vector<int>> read_all(std::vector<int> keys) {
// CORO-NEXT: if (keys.empty()) {
// CORO-NEXT: co_return {};
// CORO-NEXT: }
// CORO-NEXT: auto branch = [=](std::size_t i) {
// CORO-NEXT: return asyncshift::promisify<int>([=](auto cb) { read_int(keys[i], cb); });
// CORO-NEXT: };
// CORO-NEXT: auto results = co_await asyncshift::when_all(keys.size(), std::move(branch));
// CORO-NEXT: co_return results;
// CORO-NEXT: }

// FUTURE-LABEL: asyncshift::future<std::vector<int>> read_all(std::vector<int> keys) {
// FUTURE-NEXT: if (keys.empty()) {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<std::vector<int>>(
// FUTURE-NEXT: std::vector<int>{});
// FUTURE-NEXT: }
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(keys.size(), [=](std::size_t i) {
// FUTURE-NEXT: return asyncshift::promisify<int>(
// FUTURE-NEXT: [=](auto cb) { read_int(keys[i], std::move(cb)); });
// FUTURE-NEXT: }));
// FUTURE-NEXT: }

