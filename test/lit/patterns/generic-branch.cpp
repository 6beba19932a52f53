// A generic branch (`[=](std::size_t i, auto cb)`) of parallel and
// each_series converts as a branch taking callback<T> does: the tool reads it
// from the lambda's instantiation, whose handler is the runtime's
// borrowed_sink (parallel) or sink callback, a class derived from callback<T>
// (each_series). Same input as
// pattern-06-parallel.cpp with `auto` for the handlers, checked against that
// test's expected output: the two must print the same.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %S/pattern-06-parallel.cpp --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
// RUN: FileCheck %S/pattern-06-parallel.cpp --check-prefix=CORO_VALUES --input-file=%t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %S/pattern-06-parallel.cpp --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %S/pattern-06-parallel.cpp --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"

void write_each(int n, asyncshift::callback<> done) {
  asyncshift::each_series(
      static_cast<std::size_t>(n),
      [=](std::size_t i, auto step) {
        read_int(static_cast<int>(i), [=](asyncshift::error err, int v) {
          if (err) return step(err);
          write_int(static_cast<int>(i), v + 1, step);
        });
      },
      [=](asyncshift::error err) {
        if (err) {
          log_line("failed");
          return done(err);
        }
        done({});
      });
}

void fan(int n, asyncshift::callback<int> done) {
  asyncshift::parallel<int>(
      static_cast<std::size_t>(n),
      [=](std::size_t i, auto got) {
        read_int(static_cast<int>(i), [=](asyncshift::error err, int v) {
          if (err) return got(err);
          int doubled = v * 2;
          write_int(static_cast<int>(i), doubled, [=](asyncshift::error err) {
            if (err) return got(err);
            got({}, doubled);
          });
        });
      },
      [=](asyncshift::error err, std::vector<int> values) {
        if (err) return done(err);
        int sum = 0;
        for (int v : values) sum += v;
        done({}, sum);
      });
}
