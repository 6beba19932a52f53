// Loops that are almost the counter idiom are refused with the reason that
// applies: a statement before the counter that the idiom has no place for
// (it was told the continuation does not end with the counter), and a
// missing guard for a bound of 0, named with the loop's own bound (it was
// told to add `if (n == 0)`, whatever the bound was).
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err
// RUN: not test -e %t.out.cpp
#include "ops.h"
#include <memory>
#include <vector>

void read_logged(std::vector<int> keys, asyncshift::callback<std::vector<int>> done) {
  if (keys.empty()) return done({}, {});
  auto pending = std::make_shared<std::size_t>(keys.size());
  auto failed = std::make_shared<bool>(false);
  auto results = std::make_shared<std::vector<int>>(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // CHECK: :[[@LINE-1]]:3: error: loop looks like the counter idiom but the continuation has a statement between its error check and `if (--*pending == 0) ...` that is not `(*results)[i] = v;` (it would run once per branch, also after another failed); cannot convert [asyncshift-async-in-loop]
    read_int(keys[i], [=](asyncshift::error err, int v) {
      if (*failed) return;
      if (err) {
        *failed = true;
        return done(err);
      }
      log_line("got " + std::to_string(v));
      (*results)[i] = v;
      if (--*pending == 0) done({}, *results);
    });
  }
}

void read_unguarded(std::vector<int> keys, asyncshift::callback<std::vector<int>> done) {
  std::size_t n = keys.size();
  if (n == 0) return done({}, {});
  auto pending = std::make_shared<std::size_t>(keys.size());
  auto failed = std::make_shared<bool>(false);
  auto results = std::make_shared<std::vector<int>>(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // CHECK: :[[@LINE-1]]:3: error: loop looks like the counter idiom but with a bound of 0 the counter idiom never completes; add `if (keys.size() == 0) return ...;` before it (testing the loop's bound as written); cannot convert [asyncshift-async-in-loop]
    read_int(keys[i], [=](asyncshift::error err, int v) {
      if (*failed) return;
      if (err) {
        *failed = true;
        return done(err);
      }
      (*results)[i] = v;
      if (--*pending == 0) done({}, *results);
    });
  }
}

// The flag read outside the idiom: named, with what may use it.
void touch_all_reported(std::vector<int> keys, asyncshift::callback<> done) {
  if (keys.empty()) return done({});
  auto pending = std::make_shared<std::size_t>(keys.size());
  auto failed = std::make_shared<bool>(false);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // CHECK: :[[@LINE-1]]:3: error: loop looks like the counter idiom but the flag 'failed' is used outside the idiom (only the guard, the error branch's `*failed = true;` and one beside the last completion may use it); cannot convert [asyncshift-async-in-loop]
    write_int(keys[i], 0, [=](asyncshift::error err) {
      if (*failed) return;
      if (err) {
        *failed = true;
        return done(err);
      }
      if (--*pending == 0) done({});
    });
  }
  log_line(*failed ? "failed" : "started");
}
