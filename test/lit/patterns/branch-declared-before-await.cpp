// A parallel branch becomes a lambda that when_all keeps and calls. In the
// coroutine styles that lambda is declared on the line before the await and
// moved into when_all, never written inside the co_await expression: g++ 12
// destroys a lambda that is a temporary of a co_await expression twice, so a
// branch capturing a std::string (as here) freed it twice and crashed
// (test/equivalence/workloads/fanout_patterns.cpp runs it). The branch logs
// before it completes, so that it stays a coroutine: one that only maps its
// operation's value is promisify(...).map(...) (mapped-operation-branch.cpp).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
// RUN: FileCheck %s --check-prefix=CORO_VALUES --input-file=%t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
#include "ops.h"

#include <string>

void tag_all(int n, std::string tag, asyncshift::callback<std::vector<std::string>> done) {
  asyncshift::parallel<std::string>(
      static_cast<std::size_t>(n),
      [=](std::size_t i, asyncshift::callback<std::string> got) {
        read_int(static_cast<int>(i), [=](asyncshift::error err, int v) {
          if (err) return got(err);
          log_line(tag);
          got({}, tag + std::to_string(v));
        });
      },
      done);
}
// CORO-LABEL: asyncshift::task<std::vector<std::string>> tag_all(int n, std::string tag) {
// CORO-NEXT: auto branch = [=](std::size_t i) -> asyncshift::task<std::string> {
// CORO-NEXT: auto v = co_await asyncshift::promisify<int>(
// CORO-NEXT: [&](auto cb) { read_int(static_cast<int>(i), cb); });
// CORO-NEXT: log_line(tag);
// CORO-NEXT: co_return tag + std::to_string(v);
// CORO-NEXT: };
// CORO-NEXT: co_return co_await asyncshift::when_all(static_cast<std::size_t>(n),
// CORO-NEXT: std::move(branch));
// CORO-NEXT: }
// CORO-NOT: when_all({{.*}}[=]

// CORO_VALUES-LABEL: tag_all(int n, std::string tag) {
// CORO_VALUES-NEXT: auto branch =
// CORO_VALUES: co_return {{[{][{]}}}, tag + std::to_string(v)};
// CORO_VALUES-NEXT: };
// CORO_VALUES-NEXT: co_return co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::when_all(static_cast<std::size_t>(n), std::move(branch)));
// CORO_VALUES-NOT: when_all({{.*}}[=]
