// Look-alikes of asyncshift-callback-not-called: every path calls, forwards,
// passes on or stores the handler, or deliberately has none to call.
// RUN: %asyncshift --check %s -- %{tool_flags} 2>&1 | count 0
#include "ops.h"

#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

void forwards(asyncshift::callback<> done) { flush(done); }

void returns_forward(int key, asyncshift::callback<int> done) { return read_int(key, done); }

// Passing the handler on inside another callable counts.
void passes_on(asyncshift::callback<> done) {
  std::function<void(asyncshift::error)> k = [=](asyncshift::error err) { done(err); };
  flush(k);
}

struct mailbox {
  asyncshift::callback<> pending;
  std::vector<asyncshift::callback<>> queue;
  void park(asyncshift::callback<> done) { pending = done; }
  void enqueue(asyncshift::callback<> done) { queue.push_back(std::move(done)); }
  // An empty handler asks for no completion.
  void optional(asyncshift::callback<> done) {
    if (!done)
      return;
    done({});
  }
  void member(asyncshift::callback<> done) {
    flush([this, done](asyncshift::error err) { finish(err, done); });
  }
  void finish(asyncshift::error err, asyncshift::callback<> done) { done(err); }
};

// A path that throws or aborts does not return to the caller at all.
void throws(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    if (v < 0)
      throw std::runtime_error("corrupt");
    if (v > 1000)
      std::abort();
    done({}, v);
  });
}

// The recursive-lambda idiom (SPEC pattern 7), its test after each wait (a
// test before the first one would complete synchronously when n == 0:
// check/mixed-sync-async.cpp).
void each_recursive(int n, asyncshift::callback<> done) {
  auto step = [=](auto &self, int i) -> void {
    write_int(i, i, [=](asyncshift::error err) {
      if (err)
        return done(err);
      if (i + 1 >= n)
        return done({});
      self(self, i + 1);
    });
  };
  step(step, 0);
}

// The combinators take the handler and the branches' handlers.
void combinators(std::size_t n, asyncshift::callback<> done) {
  asyncshift::each_series(
      n, [=](std::size_t i, asyncshift::callback<> next) { write_int(int(i), 0, next); },
      [=](asyncshift::error err) {
        if (err)
          return done(err);
        asyncshift::parallel(
            n, [=](std::size_t i, asyncshift::callback<> branch) { write_int(int(i), 1, branch); }, done);
      });
}

// A loop whose body completes on some iterations, and a completion after it.
void validate_all(std::vector<int> keys, asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    if (err)
      return done(err);
    for (int key : keys)
      if (key < 0)
        return done(asyncshift::error("negative key"));
    done({});
  });
}

// Fire-and-forget work beside the completion.
void fire_and_forget(asyncshift::callback<> done) {
  flush([](asyncshift::error) {});
  done({});
}

// The counter idiom (SPEC pattern 6) under a branch Clang can evaluate but the
// source does not spell as a constant: its arm is still walked, so the
// lambda's `if (*failed) return;` is seen as a join. (Found by the fuzzer:
// Clang's CFG prunes the arm and the lambda was judged alone.)
void counter_under_constant(asyncshift::callback<std::vector<int>> done) {
  const int base = 44;
  if (base % 5 == 0) {
    const std::size_t count = 3;
    auto pending = std::make_shared<std::size_t>(count);
    auto failed = std::make_shared<bool>(false);
    auto results = std::make_shared<std::vector<int>>(count);
    for (std::size_t i = 0; i < count; ++i) {
      read_int(int(i), [=](asyncshift::error err, int v) {
        if (*failed)
          return;
        if (err) {
          *failed = true;
          return done(err);
        }
        (*results)[i] = v;
        if (--*pending == 0)
          done({}, *results);
      });
    }
  } else {
    read_int(0, [=](asyncshift::error err, int v) {
      if (err)
        return done(err);
      done({}, {v});
    });
  }
}
