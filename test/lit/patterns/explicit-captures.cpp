// Continuations that name their copies ([done, k]) instead of writing [=]
// convert like [=]: naming the handler in a capture list is a copy, not an
// escape. Sequence, named continuation and parallel branch, every style,
// built by both compilers.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --check %t.cpp -- %{tool_flags}
#include "ops.h"

void add_two(int k, asyncshift::callback<int> done) {
  read_int(k, [done, k](asyncshift::error err, int v) {
    if (err) return done(err);
    read_int(v, [done, v, k](asyncshift::error err, int w) {
      if (err) return done(err);
      done({}, v + w + k);
    });
  });
}

void open_or_create(bool exists, int id, asyncshift::callback<int> done) {
  auto after_open = [done, id](asyncshift::error err, int handle) {
    if (err) return done(err);
    write_int(handle, id, [done, handle](asyncshift::error err) {
      if (err) return done(err);
      done({}, handle);
    });
  };
  if (exists) {
    return after_open({}, id);
  } else {
    read_int(id, [after_open](asyncshift::error err, int created) { after_open(err, created + 1); });
  }
}

void fan(int n, asyncshift::callback<int> done) {
  asyncshift::parallel<int>(
      static_cast<std::size_t>(n),
      [](std::size_t i, asyncshift::callback<int> got) {
        read_int(static_cast<int>(i), [got](asyncshift::error err, int v) {
          if (err) return got(err);
          got({}, v * 2);
        });
      },
      [done](asyncshift::error err, std::vector<int> values) {
        if (err) return done(err);
        int sum = 0;
        for (int v : values) sum += v;
        done({}, sum);
      });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> add_two(int k) {
// CORO-NEXT: auto v =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(k, cb); });
// CORO-NEXT: auto w =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(v, cb); });
// CORO-NEXT: co_return v + w + k;
// CORO-NEXT: }
// CORO-LABEL: asyncshift::task<int> open_or_create(bool exists, int id) {
// CORO-LABEL: asyncshift::task<int> fan(int n) {
// CORO: asyncshift::when_all
