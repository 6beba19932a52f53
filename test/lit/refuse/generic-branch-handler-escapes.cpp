// A generic branch of parallel (`auto step`) is read from its instantiation,
// so what it does with its handler is checked as in a branch taking
// callback<>: here the handler is stored, and the function is refused.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

asyncshift::callback<> saved;

void fan(int n, asyncshift::callback<> done) {
  asyncshift::parallel(
      static_cast<std::size_t>(n),
      [=](std::size_t i, auto step) {
        saved = step;
        // CHECK: :[[@LINE-1]]:17: error: handler 'step' is used other than by calling or forwarding it; cannot convert [asyncshift-handler-escapes]
        write_int(static_cast<int>(i), 1, step);
      },
      done);
}
