// Async work inside a statement the converter does not take apart (SPEC §3
// has no switch) is refused, and the diagnostic names the statement as it is
// written.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"

#include <stdexcept>
#include <string>

void by_kind(int kind, asyncshift::callback<int> done) {
  switch (kind) {
  // CHECK: :[[@LINE-1]]:3: error: async work inside a 'switch' statement; cannot convert [asyncshift-unsupported-statement]
  case 0:
    read_int(0, done);
    break;
  default:
    done({}, 0);
  }
}

// A 'try' whose block completes the handler is refused (a completion
// there would run inside the 'try', where the 'catch' sees what it throws);
// one whose only 'catch' completes converts (patterns/catch-completes.cpp).
void parse_then_read(std::string text, asyncshift::callback<int> done) {
  int n = 0;
  try {
  // CHECK: :[[@LINE-1]]:3: error: the handler is completed inside a 'try' block; cannot convert (nothing in it waits: compute the outcome there, as an asyncshift::error or a flag, and complete the handler after it with `if (err) return done(err);`) [asyncshift-unsupported-statement]
    if (text.empty()) return done({}, 0);
    n = std::stoi(text);
  } catch (const std::exception &e) {
    return done(asyncshift::error(e.what()));
  }
  read_int(n, done);
}

// A 'try' whose block waits: refused as async work in it.
void parse_and_read(std::string text, asyncshift::callback<int> done) {
  try {
  // CHECK: :[[@LINE-1]]:3: error: async work inside a 'try' block; cannot convert (a failure of an async call arrives as its callback's error, not as an exception) [asyncshift-unsupported-statement]
    int n = std::stoi(text);
    read_int(n, [=](asyncshift::error err, int v) { done(err, v); });
  } catch (const std::exception &e) {
    return done(asyncshift::error(e.what()));
  }
}

// Two handlers, each completing: refused, saying so.
void parse_twice(std::string text, asyncshift::callback<int> done) {
  int n = 0;
  try {
  // CHECK: :[[@LINE-1]]:3: error: a 'try' with several 'catch' handlers completes the handler; cannot convert (catch one exception type, a common base such as 'const std::exception &', or '...') [asyncshift-unsupported-statement]
    n = std::stoi(text);
  } catch (const std::out_of_range &) {
    return done(asyncshift::error("too big"));
  } catch (const std::exception &e) {
    return done(asyncshift::error(e.what()));
  }
  read_int(n, done);
}

// A 'catch' that waits before it completes: refused, naming the handler.
void parse_or_default(std::string text, asyncshift::callback<int> done) {
  int n = 0;
  try {
  // CHECK: :[[@LINE-1]]:3: error: async work inside a 'catch' handler; cannot convert (a 'catch' may only complete the handler with `return done(...);`) [asyncshift-unsupported-statement]
    n = std::stoi(text);
  } catch (const std::exception &) {
    return read_int(0, done);
  }
  read_int(n, done);
}
