// A loop lambda started inside another loop lambda is refused: printers lower
// each to `for (;;)`, and the inner one's `continue`/`break` could not reach
// the enclosing loop. (Inside the outer, generic, lambda the inner start is
// a dependent call, so the idiom is not recognised at all.)
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

void grid(int rows, int cols, asyncshift::callback<> done) {
  auto row = [=](auto &self, int r) -> void {
    if (r == rows) return done({});
    write_int(r, 0, [=](asyncshift::error err) {
      if (err) return done(err);
      if (r + 1 == rows) {
        auto cell = [=](auto &again, int c) -> void {
          if (c == cols) return done({});
          write_int(r * cols + c, 0, [=](asyncshift::error err) {
            if (err) return done(err);
            again(again, c + 1);
          });
        };
        cell(cell, 0);
        return;
      }
      self(self, r + 1);
    });
  };
  row(row, 0);
}

// CHECK: nested-loop-lambda.cpp:[[@LINE-16]]:9: error: recursive lambda: {{.*}} [asyncshift-unsupported-statement]
