// Look-alikes of asyncshift-dangling-capture: captures by copy, references
// to what outlives the continuation, and continuations that run before the
// variable's scope ends.
// RUN: %asyncshift --check %s -- %{tool_flags} 2>&1 | count 0
#include "ops.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

void loop_run();

void by_copy(asyncshift::callback<int> done) {
  int base = 1;
  read_int(1, [=](asyncshift::error err, int v) { done(err, v + base); });
}

// A static local outlives everything.
void static_local(asyncshift::callback<> done) {
  static int calls = 0;
  flush([&, done](asyncshift::error err) {
    ++calls;
    done(err);
  });
}

// Plain code that waits for the loop before its locals go.
int wait_for_result() {
  int result = 0;
  read_int(1, [&result](asyncshift::error err, int v) {
    if (!err)
      result = v;
  });
  loop_run();
  return result;
}

// A leaf defined here that completes before returning.
void sync_leaf(int x, asyncshift::callback<int> cb) { cb({}, x * 2); }

int compute_now(int x) {
  int out = 0;
  sync_leaf(x, [&out](asyncshift::error err, int v) {
    if (!err)
      out = v;
  });
  return out;
}

// Lambdas that are not continuations (run synchronously by the algorithm).
void sorted(std::vector<int> xs, asyncshift::callback<> done) {
  int pivot = 3;
  std::sort(xs.begin(), xs.end(), [&](int a, int b) { return (a < pivot) < (b < pivot); });
  done({});
}

// A named continuation captured by reference but only called, never handed on.
void called_not_handed(asyncshift::callback<int> done) {
  int base = 1;
  auto finish = [&](asyncshift::error err, int v) { done(err, v + base); };
  finish({}, 2);
}

// Member functions whose continuations capture `this`, on objects that outlive them.
struct session {
  int seen = 0;
  void start(asyncshift::callback<int> done) {
    read_int(1, [this, done](asyncshift::error err, int v) {
      ++seen;
      done(err, v);
    });
  }
  // Captures `this` but runs it before returning.
  void tally(asyncshift::callback<> done) {
    auto bump = [this] { ++seen; };
    bump();
    done({});
  }
  // [*this] copies the object into the continuation.
  void start_copy(asyncshift::callback<int> done) {
    read_int(1, [*this, done](asyncshift::error err, int v) mutable {
      ++seen;
      done(err, v);
    });
  }
};

session global_session;

// A global, a static local, an object behind a pointer or reference.
void long_lived_objects(session &by_ref, session *by_ptr, asyncshift::callback<int> done) {
  static session kept;
  global_session.start([](asyncshift::error, int) {});
  kept.start([](asyncshift::error, int) {});
  by_ref.start([](asyncshift::error, int) {});
  by_ptr->start(done);
}

// A local whose member function runs its lambda at once, or copies the object.
void harmless_locals(asyncshift::callback<> done) {
  session s;
  s.start_copy([](asyncshift::error, int) {});
  s.tally(done);
}

// Plain code that waits for the loop before the object goes.
int wait_for_session() {
  session s;
  s.start([](asyncshift::error, int) {});
  loop_run();
  return s.seen;
}

// parallel calls every branch before it returns: a branch may take the
// caller's locals by reference (each_series may not: its branches run later).
void parallel_branch_by_reference(std::vector<int> ids, asyncshift::callback<std::vector<std::string>> done) {
  std::string prefix = "item:";
  asyncshift::parallel<std::string>(
      ids.size(),
      [&prefix, ids](std::size_t i, asyncshift::callback<std::string> cb) { fetch(prefix + std::to_string(ids[i]), cb); },
      done);
}

// Wrappers whose bodies show that they run what they are given before they
// return (a lock, a tracing span, a timer): its captures are still alive.
template <class F>
void locked(F &&f) {
  f();
}
template <class F>
void forwarded(F &&f) {
  std::forward<F>(f)();
}
void timed(const std::string &, const std::function<void()> &f) { f(); }

void under_a_lock(std::string data, asyncshift::callback<> done) {
  locked([&] { write_int(1, static_cast<int>(data.size()), done); });
}
void forwarded_to(std::string data, asyncshift::callback<> done) {
  forwarded([&] { write_int(2, static_cast<int>(data.size()), done); });
}
void in_a_span(std::string data, asyncshift::callback<> done) {
  timed("span", [&] { write_int(3, static_cast<int>(data.size()), done); });
}

// References to what outlives the continuation: a reference parameter (the
// caller's object), an element of one, a static.
void element_of_a_reference(const std::vector<std::string> &keys, asyncshift::callback<> done) {
  auto left = std::make_shared<std::size_t>(keys.size());
  for (const auto &k : keys)
    fetch(k, [&k, left, done](asyncshift::error err, std::string) {
      log_line(k);
      if (--*left == 0)
        done(err);
    });
}
void reference_to_a_static(asyncshift::callback<> done) {
  static std::string s = "x";
  const std::string &r = s;
  fetch("u", [&r, done](asyncshift::error err, std::string) {
    log_line(r);
    done(err);
  });
}
