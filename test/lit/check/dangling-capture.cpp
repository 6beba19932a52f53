// asyncshift-dangling-capture: a continuation captures by reference a local
// or parameter that is gone by the time it runs.
// RUN: not %asyncshift --check %s -- %{tool_flags} > %t.out 2> %t.err
// RUN: count 0 < %t.out
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not='error:'
#include "ops.h"

#include <memory>

// The default capture by reference takes the handler and a local.
void default_by_reference(asyncshift::callback<int> done) {
  int base = 1;
  read_int(1, [&](asyncshift::error err, int v) {
    if (err)
      return done(err);
      // CHECK: :[[@LINE-1]]:14: error: continuation captures 'done' by reference, but 'done' is destroyed before the continuation runs [asyncshift-dangling-capture]
      // CHECK: :[[@LINE-4]]:3: note: the continuation runs after this call returns
      // CHECK: :[[@LINE-7]]:53: note: 'done' declared here
      // CHECK: :[[@LINE+7]]:1: note: goes out of scope here
    done({}, v + base);
    // CHECK: :[[@LINE-1]]:18: error: continuation captures 'base' by reference, but 'base' is destroyed before the continuation runs [asyncshift-dangling-capture]
    // CHECK: :[[@LINE-9]]:3: note: the continuation runs after this call returns
    // CHECK: :[[@LINE-11]]:7: note: 'base' declared here
    // CHECK: :[[@LINE+2]]:1: note: goes out of scope here
  });
}

// An explicit capture by reference.
void explicit_capture(asyncshift::callback<int> done) {
  int base = 1;
  read_int(1, [&base, done](asyncshift::error err, int v) { done(err, v + base); });
  // CHECK: :[[@LINE-1]]:17: error: continuation captures 'base' by reference, but 'base' is destroyed before the continuation runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE-2]]:3: note: the continuation runs after this call returns
  // CHECK: :[[@LINE-4]]:7: note: 'base' declared here
  // CHECK: :[[@LINE+1]]:1: note: goes out of scope here
}

// A local of the enclosing continuation, gone when that continuation returns.
void local_of_continuation(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    int doubled = v * 2;
    write_int(1, doubled, [&doubled, done](asyncshift::error err) { done(err, doubled); });
    // CHECK: :[[@LINE-1]]:29: error: continuation captures 'doubled' by reference, but 'doubled' is destroyed before the continuation runs [asyncshift-dangling-capture]
    // CHECK: :[[@LINE-2]]:5: note: the continuation runs after this call returns
    // CHECK: :[[@LINE-4]]:9: note: 'doubled' declared here
    // CHECK: :[[@LINE+1]]:3: note: goes out of scope here
  });
}

// A named continuation handed to an async call.
void named_continuation(asyncshift::callback<int> done) {
  int base = 1;
  auto next = [&base, done](asyncshift::error err, int v) { done(err, v + base); };
  // CHECK: :[[@LINE-1]]:17: error: continuation captures 'base' by reference, but 'base' is destroyed before the continuation runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE+3]]:3: note: the continuation runs after this call returns
  // CHECK: :[[@LINE-4]]:7: note: 'base' declared here
  // CHECK: :[[@LINE+2]]:1: note: goes out of scope here
  read_int(1, next);
}

// A parameter, by an init-capture of a reference.
void init_capture(int key, asyncshift::callback<> done) {
  flush([&k = key, done](asyncshift::error err) {
  // CHECK: :[[@LINE-1]]:11: error: continuation captures 'key' by reference, but 'key' is destroyed before the continuation runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE-2]]:3: note: the continuation runs after this call returns
  // CHECK: :[[@LINE-4]]:23: note: 'key' declared here
  // CHECK: :[[@LINE+4]]:1: note: goes out of scope here
    log_line(std::to_string(k));
    done(err);
  });
}

// Plain code that returns right after starting the work.
void start_and_leave() {
  int count = 0;
  flush([&count](asyncshift::error err) {
  // CHECK: :[[@LINE-1]]:11: error: continuation captures 'count' by reference, but 'count' is destroyed before the continuation runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE-2]]:3: note: the continuation runs after this call returns
  // CHECK: :[[@LINE-4]]:7: note: 'count' declared here
  // CHECK: :[[@LINE+4]]:1: note: goes out of scope here
    if (!err)
      ++count;
  });
}

// A parallel branch runs at once, but each_series's run later, and so does
// a continuation inside a parallel branch.
void series_branch_by_reference(std::vector<int> ids, asyncshift::callback<> done) {
  std::string prefix = "item:";
  // CHECK: :[[@LINE+3]]:9: error: lambda captures 'prefix' by reference, but 'prefix' is destroyed before the lambda runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE+2]]:78: error: continuation captures 'prefix' by reference{{.*}} [asyncshift-dangling-capture]
  asyncshift::each_series(ids.size(),
      [&prefix, ids](std::size_t i, asyncshift::callback<> cb) { flush([cb, &prefix](asyncshift::error e) { cb(e); }); }, done);
}
void parallel_continuation_by_reference(std::vector<int> ids, asyncshift::callback<> done) {
  std::string prefix = "item:";
  // CHECK: :[[@LINE+2]]:78: error: continuation captures 'prefix' by reference{{.*}} [asyncshift-dangling-capture]
  asyncshift::parallel(ids.size(),
      [&prefix, ids](std::size_t i, asyncshift::callback<> cb) { flush([cb, &prefix](asyncshift::error e) { cb(e); }); }, done);
}

// A wrapper that keeps what it is given, or wraps it in a lambda of its own,
// runs it later: a wrapper is exempt only when its body calls it directly.
std::vector<std::function<void()>> kept;
template <class F>
void keep(F f) {
  kept.push_back(f);
}
template <class F>
void keep_wrapped(F f) {
  kept.push_back([f] { f(); });
}
void kept_by_reference(std::string data, asyncshift::callback<> done) {
  // CHECK: :[[@LINE+1]]:10: error: lambda captures 'data' by reference, but 'data' is destroyed before the lambda runs [asyncshift-dangling-capture]
  keep([&data, done] { write_int(1, static_cast<int>(data.size()), done); });
}
void kept_wrapped_by_reference(std::string data, asyncshift::callback<> done) {
  // CHECK: :[[@LINE+1]]:18: error: lambda captures 'data' by reference, but 'data' is destroyed before the lambda runs [asyncshift-dangling-capture]
  keep_wrapped([&data, done] { write_int(2, static_cast<int>(data.size()), done); });
}

// A reference names what it is bound to: a local, an element of a by-value
// parameter, a part of a structured binding's copy.
void reference_to_a_local(asyncshift::callback<> done) {
  std::string s = "x";
  const std::string &r = s;
  fetch("u", [&r, done](asyncshift::error err, std::string) {
  // CHECK: :[[@LINE-1]]:16: error: continuation captures 'r' by reference, but what 'r' refers to is destroyed before the continuation runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE-2]]:3: note: the continuation runs after this call returns
  // CHECK: :[[@LINE-4]]:22: note: 'r' refers to 's'
  // CHECK: :[[@LINE-6]]:15: note: 's' declared here
    log_line(r);
    done(err);
  });
}
void element_of_a_parameter(std::vector<std::string> keys, asyncshift::callback<> done) {
  auto left = std::make_shared<std::size_t>(keys.size());
  for (const auto &k : keys)
    fetch(k, [&k, left, done](asyncshift::error err, std::string) {
    // CHECK: :[[@LINE-1]]:16: error: continuation captures 'k' by reference, but what 'k' refers to is destroyed before the continuation runs [asyncshift-dangling-capture]
    // CHECK: :[[@LINE-3]]:20: note: 'k' refers to 'keys'
      log_line(k);
      if (--*left == 0)
        done(err);
    });
}
void part_of_a_binding(std::pair<std::string, int> kv, asyncshift::callback<> done) {
  auto [k, v] = kv;
  fetch(k, [&k, done](asyncshift::error err, std::string) {
  // CHECK: :[[@LINE-1]]:14: error: continuation captures 'k' by reference, but what 'k' refers to is destroyed before the continuation runs [asyncshift-dangling-capture]
  // CHECK: :[[@LINE-3]]:8: note: 'k' names a part of this structured binding
    log_line(k);
    done(err);
  });
}
