// The Promises/A+ compliance suite (promises-aplus/promises-tests, clauses
// 2.1 to 2.3), ported to C++ case by case.
//
// The JavaScript suite runs most specs three times, through testFulfilled /
// testRejected: on a promise that is already settled, on one settled right
// after the spec registered its handlers ("immediately"), and on one settled
// 50 ms later ("eventually"). APLUS_FULFILLED / APLUS_REJECTED do the same:
// each expands to three tests. Timers run on the virtual clock, so the suite's
// 50-150 ms delays cost nothing. The adapter's `deferred()` is
// asyncshift::deferred; `resolved(v)` / `rejected(r)` are promise<T>::resolve
// and promise<T>::reject. A spec's `done()` is env.done(), and every test
// checks that it ran exactly once.
//
// What does not carry over from JavaScript: "non-function" handlers (2.2.1,
// 2.2.7.3-4) are, in C++, the absent handler (then without on_error,
// catch_error without on_value); 2.2.5 (handlers called without `this`)
// becomes "plain functions work as handlers"; 2.3.3's thenables are objects
// with `then_callback(callback)` (a future<T> is one), and its clauses about
// getters and `then` not being a function have no C++ counterpart; the
// thrown "reasons" of 2.2.7.2 are an error_exception, a std::exception and a
// non-standard exception.
#include <asyncshift/future.hpp>
#include <asyncshift/promise.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace asyncshift;

namespace {

/// What a spec can keep between its handlers (they run after the spec's
/// body has returned, so nothing of the body's stack survives).
struct aplus_env {
  loop& l;
  int done_calls = 0;
  int calls[4] = {0, 0, 0, 0};
  std::vector<int> order;
  bool flag = false;

  void done() { ++done_calls; }
  template <class F>
  void after(int ms, F f) {
    l.set_timeout(static_cast<std::int64_t>(ms) * 1'000'000, std::move(f));
  }
};

enum class timing { already, immediately, eventually };

using value_t = std::string;
const value_t dummy = "dummy";       // settled with, never tested against
const value_t sentinel = "sentinel"; // tested for equality
const value_t other = "other";       // a value we do not want to see
const error dummy_reason("dummy reason");
const error sentinel_reason("sentinel reason");
const error sentinel2_reason("sentinel2 reason");

template <class T, class Body>
void run_fulfilled(T value, timing t, Body body, int expected_done = 1) {
  loop l(clock_kind::virtual_time);
  aplus_env env{l};
  if (t == timing::already) {
    body(promise<T>::resolve(value), env);
  } else {
    deferred<T> d;
    body(d.get_promise(), env);
    if (t == timing::immediately)
      d.resolve(value);
    else
      env.after(50, [d, value] { d.resolve(value); });
  }
  l.run();
  EXPECT_EQ(env.done_calls, expected_done) << "done() must be called exactly once";
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

template <class T, class Body>
void run_rejected(error reason, timing t, Body body, int expected_done = 1) {
  loop l(clock_kind::virtual_time);
  aplus_env env{l};
  if (t == timing::already) {
    body(promise<T>::reject(reason), env);
  } else {
    deferred<T> d;
    body(d.get_promise(), env);
    if (t == timing::immediately)
      d.reject(reason);
    else
      env.after(50, [d, reason] { d.reject(reason); });
  }
  l.run();
  EXPECT_EQ(env.done_calls, expected_done) << "done() must be called exactly once";
}

/// A spec run through testFulfilled(value, ...): three tests.
#define APLUS_FULFILLED(suite, name, value)                                                                            \
  static void suite##_##name##_spec(promise<value_t> p, aplus_env& env);                                               \
  TEST(suite, name##_already_fulfilled) { run_fulfilled<value_t>(value, timing::already, suite##_##name##_spec); }     \
  TEST(suite, name##_immediately_fulfilled) {                                                                          \
    run_fulfilled<value_t>(value, timing::immediately, suite##_##name##_spec);                                         \
  }                                                                                                                    \
  TEST(suite, name##_eventually_fulfilled) { run_fulfilled<value_t>(value, timing::eventually, suite##_##name##_spec); } \
  static void suite##_##name##_spec([[maybe_unused]] promise<value_t> p, [[maybe_unused]] aplus_env& env)

/// A spec run through testRejected(reason, ...): three tests.
#define APLUS_REJECTED(suite, name, reason)                                                                            \
  static void suite##_##name##_spec(promise<value_t> p, aplus_env& env);                                               \
  TEST(suite, name##_already_rejected) { run_rejected<value_t>(reason, timing::already, suite##_##name##_spec); }      \
  TEST(suite, name##_immediately_rejected) { run_rejected<value_t>(reason, timing::immediately, suite##_##name##_spec); } \
  TEST(suite, name##_eventually_rejected) { run_rejected<value_t>(reason, timing::eventually, suite##_##name##_spec); } \
  static void suite##_##name##_spec([[maybe_unused]] promise<value_t> p, [[maybe_unused]] aplus_env& env)

/// A single spec with its own loop, checked to call done() exactly once.
#define APLUS_SPEC(suite, name)                                                                                        \
  static void suite##_##name##_spec(aplus_env& env);                                                                   \
  TEST(suite, name) {                                                                                                  \
    loop l(clock_kind::virtual_time);                                                                                  \
    aplus_env env{l};                                                                                                  \
    suite##_##name##_spec(env);                                                                                        \
    l.run();                                                                                                           \
    EXPECT_EQ(env.done_calls, 1) << "done() must be called exactly once";                                              \
  }                                                                                                                    \
  static void suite##_##name##_spec([[maybe_unused]] aplus_env& env)

} // namespace

// ---- 2.1.2: When fulfilled, a promise must not transition to any other state.

APLUS_FULFILLED(promises_aplus_2_1_2, a_fulfilled_promise_never_calls_on_rejected, dummy) {
  p.then([&env](value_t) { env.flag = true; },
         [&env](error) {
           EXPECT_FALSE(env.flag);
           env.done();
         });
  env.after(100, [&env] { env.done(); });
}

APLUS_SPEC(promises_aplus_2_1_2, trying_to_fulfill_then_immediately_reject_keeps_it_fulfilled) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) { env.flag = true; }, [&env](error) { env.done(); });
  d.resolve(dummy);
  d.reject(dummy_reason);
  env.after(100, [&env] {
    EXPECT_TRUE(env.flag);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_1_2, trying_to_fulfill_then_reject_delayed_keeps_it_fulfilled) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) { env.flag = true; }, [&env](error) { env.done(); });
  env.after(50, [d] {
    d.resolve(dummy);
    d.reject(dummy_reason);
  });
  env.after(100, [&env] {
    EXPECT_TRUE(env.flag);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_1_2, trying_to_fulfill_immediately_then_reject_delayed_keeps_it_fulfilled) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) { env.flag = true; }, [&env](error) { env.done(); });
  d.resolve(dummy);
  env.after(50, [d] { d.reject(dummy_reason); });
  env.after(100, [&env] {
    EXPECT_TRUE(env.flag);
    env.done();
  });
}

// ---- 2.1.3: When rejected, a promise must not transition to any other state.

APLUS_REJECTED(promises_aplus_2_1_3, a_rejected_promise_never_calls_on_fulfilled, dummy_reason) {
  p.then(
      [&env](value_t) {
        EXPECT_FALSE(env.flag);
        env.done();
      },
      [&env](error) { env.flag = true; });
  env.after(100, [&env] { env.done(); });
}

APLUS_SPEC(promises_aplus_2_1_3, trying_to_reject_then_immediately_fulfill_keeps_it_rejected) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) { env.done(); }, [&env](error) { env.flag = true; });
  d.reject(dummy_reason);
  d.resolve(dummy);
  env.after(100, [&env] {
    EXPECT_TRUE(env.flag);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_1_3, trying_to_reject_then_fulfill_delayed_keeps_it_rejected) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) { env.done(); }, [&env](error) { env.flag = true; });
  env.after(50, [d] {
    d.reject(dummy_reason);
    d.resolve(dummy);
  });
  env.after(100, [&env] {
    EXPECT_TRUE(env.flag);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_1_3, trying_to_reject_immediately_then_fulfill_delayed_keeps_it_rejected) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) { env.done(); }, [&env](error) { env.flag = true; });
  d.reject(dummy_reason);
  env.after(50, [d] { d.resolve(dummy); });
  env.after(100, [&env] {
    EXPECT_TRUE(env.flag);
    env.done();
  });
}

// ---- 2.2.1: Both onFulfilled and onRejected are optional.

APLUS_REJECTED(promises_aplus_2_2_1, a_then_without_an_error_handler_passes_the_rejection_on, sentinel_reason) {
  p.then([](value_t v) { return v + "!"; }).then([&env](value_t) { ADD_FAILURE() << "fulfilled"; }, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

APLUS_FULFILLED(promises_aplus_2_2_1, a_catch_without_a_value_handler_passes_the_value_on, sentinel) {
  p.catch_error([](error) { return other; }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

// ---- 2.2.2: If onFulfilled is a function...

// 2.2.2.1: it must be called after promise is fulfilled, with promise's value as its first argument.
APLUS_FULFILLED(promises_aplus_2_2_2, on_fulfilled_is_called_with_the_fulfillment_value, sentinel) {
  p.then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

// 2.2.2.2: it must not be called before promise is fulfilled.
APLUS_SPEC(promises_aplus_2_2_2, on_fulfilled_is_not_called_before_a_delayed_fulfillment) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) {
    EXPECT_TRUE(env.flag);
    env.done();
  });
  env.after(50, [d, &env] {
    d.resolve(dummy);
    env.flag = true;
  });
}

APLUS_SPEC(promises_aplus_2_2_2, on_fulfilled_is_never_called_when_never_fulfilled) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) { env.done(); });
  env.after(150, [&env] { env.done(); });
}

// 2.2.2.3: it must not be called more than once.
APLUS_SPEC(promises_aplus_2_2_2, on_fulfilled_is_called_once_on_an_already_fulfilled_promise) {
  promise<value_t>::resolve(dummy).then([&env](value_t) {
    EXPECT_EQ(++env.calls[0], 1);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_2_2, on_fulfilled_is_called_once_when_fulfilled_twice_immediately) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) {
    EXPECT_EQ(++env.calls[0], 1);
    env.done();
  });
  d.resolve(dummy);
  d.resolve(dummy);
}

APLUS_SPEC(promises_aplus_2_2_2, on_fulfilled_is_called_once_when_fulfilled_twice_delayed) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) {
    EXPECT_EQ(++env.calls[0], 1);
    env.done();
  });
  env.after(50, [d] {
    d.resolve(dummy);
    d.resolve(dummy);
  });
}

APLUS_SPEC(promises_aplus_2_2_2, on_fulfilled_is_called_once_when_fulfilled_immediately_then_delayed) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) {
    EXPECT_EQ(++env.calls[0], 1);
    env.done();
  });
  d.resolve(dummy);
  env.after(50, [d] { d.resolve(dummy); });
}

APLUS_SPEC(promises_aplus_2_2_2, each_on_fulfilled_is_called_once_when_then_calls_are_spaced_apart) {
  deferred<value_t> d;
  auto p = d.get_promise();
  p.then([&env](value_t) { EXPECT_EQ(++env.calls[0], 1); });
  env.after(50, [p, &env] { p.then([&env](value_t) { EXPECT_EQ(++env.calls[1], 1); }); });
  env.after(100, [p, &env] {
    p.then([&env](value_t) {
      EXPECT_EQ(++env.calls[2], 1);
      env.done();
    });
  });
  env.after(150, [d] { d.resolve(dummy); });
}

APLUS_SPEC(promises_aplus_2_2_2, each_on_fulfilled_is_called_once_when_then_is_interleaved_with_fulfillment) {
  deferred<value_t> d;
  auto p = d.get_promise();
  p.then([&env](value_t) { EXPECT_EQ(++env.calls[0], 1); });
  d.resolve(dummy);
  p.then([&env](value_t) {
    EXPECT_EQ(++env.calls[1], 1);
    env.done();
  });
}

// ---- 2.2.3: If onRejected is a function...

// 2.2.3.1: it must be called after promise is rejected, with promise's reason as its first argument.
APLUS_REJECTED(promises_aplus_2_2_3, on_rejected_is_called_with_the_rejection_reason, sentinel_reason) {
  p.then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

// 2.2.3.2: it must not be called before promise is rejected.
APLUS_SPEC(promises_aplus_2_2_3, on_rejected_is_not_called_before_a_delayed_rejection) {
  deferred<value_t> d;
  d.get_promise().then([](value_t) {}, [&env](error) {
    EXPECT_TRUE(env.flag);
    env.done();
  });
  env.after(50, [d, &env] {
    d.reject(dummy_reason);
    env.flag = true;
  });
}

APLUS_SPEC(promises_aplus_2_2_3, on_rejected_is_never_called_when_never_rejected) {
  deferred<value_t> d;
  d.get_promise().then([](value_t) {}, [&env](error) { env.done(); });
  env.after(150, [&env] { env.done(); });
}

// 2.2.3.3: it must not be called more than once.
APLUS_SPEC(promises_aplus_2_2_3, on_rejected_is_called_once_on_an_already_rejected_promise) {
  promise<value_t>::reject(dummy_reason).then([](value_t) {}, [&env](error) {
    EXPECT_EQ(++env.calls[0], 1);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_2_3, on_rejected_is_called_once_when_rejected_twice_immediately) {
  deferred<value_t> d;
  d.get_promise().then([](value_t) {}, [&env](error) {
    EXPECT_EQ(++env.calls[0], 1);
    env.done();
  });
  d.reject(dummy_reason);
  d.reject(dummy_reason);
}

APLUS_SPEC(promises_aplus_2_2_3, on_rejected_is_called_once_when_rejected_twice_delayed) {
  deferred<value_t> d;
  d.get_promise().then([](value_t) {}, [&env](error) {
    EXPECT_EQ(++env.calls[0], 1);
    env.done();
  });
  env.after(50, [d] {
    d.reject(dummy_reason);
    d.reject(dummy_reason);
  });
}

APLUS_SPEC(promises_aplus_2_2_3, on_rejected_is_called_once_when_rejected_immediately_then_delayed) {
  deferred<value_t> d;
  d.get_promise().then([](value_t) {}, [&env](error) {
    EXPECT_EQ(++env.calls[0], 1);
    env.done();
  });
  d.reject(dummy_reason);
  env.after(50, [d] { d.reject(dummy_reason); });
}

APLUS_SPEC(promises_aplus_2_2_3, each_on_rejected_is_called_once_when_then_calls_are_spaced_apart) {
  deferred<value_t> d;
  auto p = d.get_promise();
  p.then([](value_t) {}, [&env](error) { EXPECT_EQ(++env.calls[0], 1); });
  env.after(50, [p, &env] { p.then([](value_t) {}, [&env](error) { EXPECT_EQ(++env.calls[1], 1); }); });
  env.after(100, [p, &env] {
    p.then([](value_t) {}, [&env](error) {
      EXPECT_EQ(++env.calls[2], 1);
      env.done();
    });
  });
  env.after(150, [d] { d.reject(dummy_reason); });
}

APLUS_SPEC(promises_aplus_2_2_3, each_on_rejected_is_called_once_when_then_is_interleaved_with_rejection) {
  deferred<value_t> d;
  auto p = d.get_promise();
  p.then([](value_t) {}, [&env](error) { EXPECT_EQ(++env.calls[0], 1); });
  d.reject(dummy_reason);
  p.then([](value_t) {}, [&env](error) {
    EXPECT_EQ(++env.calls[1], 1);
    env.done();
  });
}

// ---- 2.2.4: onFulfilled or onRejected must not be called until the execution
// context stack contains only platform code.

APLUS_FULFILLED(promises_aplus_2_2_4, then_returns_before_on_fulfilled_is_called, dummy) {
  bool* then_has_returned = &env.flag;
  p.then([&env, then_has_returned](value_t) {
    EXPECT_TRUE(*then_has_returned);
    env.done();
  });
  *then_has_returned = true;
}

APLUS_REJECTED(promises_aplus_2_2_4, then_returns_before_on_rejected_is_called, dummy_reason) {
  bool* then_has_returned = &env.flag;
  p.then([](value_t) {}, [&env, then_has_returned](error) {
    EXPECT_TRUE(*then_has_returned);
    env.done();
  });
  *then_has_returned = true;
}

// Clean-stack execution ordering tests (fulfillment case).
APLUS_SPEC(promises_aplus_2_2_4, on_fulfilled_added_immediately_before_fulfillment_is_not_called_synchronously) {
  deferred<value_t> d;
  d.get_promise().then([&env](value_t) { env.flag = true; });
  d.resolve(dummy);
  EXPECT_FALSE(env.flag);
  env.done();
}

APLUS_SPEC(promises_aplus_2_2_4, on_fulfilled_added_immediately_after_fulfillment_is_not_called_synchronously) {
  deferred<value_t> d;
  d.resolve(dummy);
  d.get_promise().then([&env](value_t) { env.flag = true; });
  EXPECT_FALSE(env.flag);
  env.done();
}

APLUS_SPEC(promises_aplus_2_2_4, on_fulfilled_added_inside_another_on_fulfilled_runs_after_it_finishes) {
  auto p = promise<value_t>::resolve(dummy);
  p.then([p, &env](value_t) {
    p.then([&env](value_t) {
      EXPECT_TRUE(env.flag);
      env.done();
    });
    env.flag = true;
  });
}

APLUS_SPEC(promises_aplus_2_2_4, on_fulfilled_added_inside_an_on_rejected_runs_after_it_finishes) {
  auto p = promise<value_t>::reject(dummy_reason);
  auto p2 = promise<value_t>::resolve(dummy);
  p.then([](value_t) {}, [p2, &env](error) {
    p2.then([&env](value_t) {
      EXPECT_TRUE(env.flag);
      env.done();
    });
    env.flag = true;
  });
}

APLUS_SPEC(promises_aplus_2_2_4, on_fulfilled_runs_after_the_stack_that_fulfilled_asynchronously) {
  deferred<value_t> d;
  env.after(0, [d, &env] {
    d.resolve(dummy);
    env.flag = true;
  });
  d.get_promise().then([&env](value_t) {
    EXPECT_TRUE(env.flag);
    env.done();
  });
}

// Clean-stack execution ordering tests (rejection case).
APLUS_SPEC(promises_aplus_2_2_4, on_rejected_added_immediately_before_rejection_is_not_called_synchronously) {
  deferred<value_t> d;
  d.get_promise().then([](value_t) {}, [&env](error) { env.flag = true; });
  d.reject(dummy_reason);
  EXPECT_FALSE(env.flag);
  env.done();
}

APLUS_SPEC(promises_aplus_2_2_4, on_rejected_added_immediately_after_rejection_is_not_called_synchronously) {
  deferred<value_t> d;
  d.reject(dummy_reason);
  d.get_promise().then([](value_t) {}, [&env](error) { env.flag = true; });
  EXPECT_FALSE(env.flag);
  env.done();
}

APLUS_SPEC(promises_aplus_2_2_4, on_rejected_added_inside_an_on_fulfilled_runs_after_it_finishes) {
  auto p = promise<value_t>::resolve(dummy);
  auto p2 = promise<value_t>::reject(dummy_reason);
  p.then([p2, &env](value_t) {
    p2.then([](value_t) {}, [&env](error) {
      EXPECT_TRUE(env.flag);
      env.done();
    });
    env.flag = true;
  });
}

APLUS_SPEC(promises_aplus_2_2_4, on_rejected_added_inside_another_on_rejected_runs_after_it_finishes) {
  auto p = promise<value_t>::reject(dummy_reason);
  p.then([](value_t) {}, [p, &env](error) {
    p.then([](value_t) {}, [&env](error) {
      EXPECT_TRUE(env.flag);
      env.done();
    });
    env.flag = true;
  });
}

APLUS_SPEC(promises_aplus_2_2_4, on_rejected_runs_after_the_stack_that_rejected_asynchronously) {
  deferred<value_t> d;
  env.after(0, [d, &env] {
    d.reject(dummy_reason);
    env.flag = true;
  });
  d.get_promise().then([](value_t) {}, [&env](error) {
    EXPECT_TRUE(env.flag);
    env.done();
  });
}

// ---- 2.2.5: onFulfilled and onRejected must be called as functions. In C++:
// a plain function works as either handler.

namespace {
aplus_env* g_env = nullptr;
void plain_on_fulfilled(value_t v) {
  EXPECT_EQ(v, sentinel);
  g_env->done();
}
void plain_on_rejected(error e) {
  EXPECT_EQ(e, sentinel_reason);
  g_env->done();
}
void plain_ignore(value_t) {}
} // namespace

APLUS_FULFILLED(promises_aplus_2_2_5, a_plain_function_works_as_on_fulfilled, sentinel) {
  g_env = &env;
  p.then(&plain_on_fulfilled);
}

APLUS_REJECTED(promises_aplus_2_2_5, a_plain_function_works_as_on_rejected, sentinel_reason) {
  g_env = &env;
  p.then(&plain_ignore, &plain_on_rejected);
}

// ---- 2.2.6: then may be called multiple times on the same promise.

// 2.2.6.1: If/when promise is fulfilled, all respective onFulfilled callbacks
// must execute in the order of their originating calls to then.
APLUS_FULFILLED(promises_aplus_2_2_6, multiple_boring_fulfillment_handlers_all_see_the_value, sentinel) {
  for (int i = 0; i < 3; ++i)
    p.then(
        [&env, i](value_t v) {
          EXPECT_EQ(v, sentinel);
          ++env.calls[i];
          return other;
        },
        [&env](error) -> value_t {
          ++env.calls[3];
          return other;
        });
  p.then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    EXPECT_EQ(env.calls[0], 1);
    EXPECT_EQ(env.calls[1], 1);
    EXPECT_EQ(env.calls[2], 1);
    EXPECT_EQ(env.calls[3], 0) << "no rejection handler runs";
    env.done();
  });
}

APLUS_FULFILLED(promises_aplus_2_2_6, multiple_fulfillment_handlers_one_of_which_throws_all_see_the_value, sentinel) {
  for (int i = 0; i < 3; ++i)
    p.then(
         [&env, i](value_t v) -> value_t {
           EXPECT_EQ(v, sentinel);
           ++env.calls[i];
           if (i == 1) throw error_exception(error("other"));
           return other;
         },
         [&env](error) -> value_t {
           ++env.calls[3];
           return other;
         })
        .ignore_rejection();
  p.then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    EXPECT_EQ(env.calls[0] + env.calls[1] + env.calls[2], 3);
    EXPECT_EQ(env.calls[3], 0);
    env.done();
  });
}

APLUS_FULFILLED(promises_aplus_2_2_6, fulfillment_handlers_give_branching_chains_their_own_values, dummy) {
  auto semi_done = [&env] {
    if (++env.calls[0] == 3) env.done();
  };
  p.then([](value_t) { return sentinel; }).then([semi_done](value_t v) {
    EXPECT_EQ(v, sentinel);
    semi_done();
  });
  p.then([](value_t) -> value_t { throw error_exception(sentinel2_reason); }).catch_error([semi_done](error e) {
    EXPECT_EQ(e, sentinel2_reason);
    semi_done();
    return other;
  });
  p.then([](value_t) { return value_t("sentinel3"); }).then([semi_done](value_t v) {
    EXPECT_EQ(v, "sentinel3");
    semi_done();
  });
}

APLUS_FULFILLED(promises_aplus_2_2_6, fulfillment_handlers_are_called_in_the_original_order, dummy) {
  for (int i = 1; i <= 3; ++i) p.then([&env, i](value_t) { env.order.push_back(i); });
  p.then([&env](value_t) {
    EXPECT_EQ(env.order, (std::vector<int>{1, 2, 3}));
    env.done();
  });
}

APLUS_FULFILLED(promises_aplus_2_2_6, fulfillment_handlers_keep_their_order_even_when_one_is_added_inside_another, dummy) {
  p.then([p, &env](value_t) {
    env.order.push_back(1);
    p.then([&env](value_t) { env.order.push_back(3); });
  });
  p.then([&env](value_t) { env.order.push_back(2); });
  p.then([&env](value_t) {
    env.after(15, [&env] {
      EXPECT_EQ(env.order, (std::vector<int>{1, 2, 3}));
      env.done();
    });
  });
}

// 2.2.6.2: If/when promise is rejected, all respective onRejected callbacks
// must execute in the order of their originating calls to then.
APLUS_REJECTED(promises_aplus_2_2_6, multiple_boring_rejection_handlers_all_see_the_reason, sentinel_reason) {
  for (int i = 0; i < 3; ++i)
    p.then(
        [&env](value_t) {
          ++env.calls[3];
          return other;
        },
        [&env, i](error e) {
          EXPECT_EQ(e, sentinel_reason);
          ++env.calls[i];
          return other;
        });
  p.then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    EXPECT_EQ(env.calls[0], 1);
    EXPECT_EQ(env.calls[1], 1);
    EXPECT_EQ(env.calls[2], 1);
    EXPECT_EQ(env.calls[3], 0) << "no fulfillment handler runs";
    env.done();
  });
}

APLUS_REJECTED(promises_aplus_2_2_6, multiple_rejection_handlers_one_of_which_throws_all_see_the_reason, sentinel_reason) {
  for (int i = 0; i < 3; ++i)
    p.then(
         [&env](value_t) -> value_t {
           ++env.calls[3];
           return other;
         },
         [&env, i](error e) -> value_t {
           EXPECT_EQ(e, sentinel_reason);
           ++env.calls[i];
           if (i == 1) throw error_exception(error("other"));
           return other;
         })
        .ignore_rejection();
  p.then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    EXPECT_EQ(env.calls[0] + env.calls[1] + env.calls[2], 3);
    EXPECT_EQ(env.calls[3], 0);
    env.done();
  });
}

APLUS_REJECTED(promises_aplus_2_2_6, rejection_handlers_give_branching_chains_their_own_values, sentinel_reason) {
  auto semi_done = [&env] {
    if (++env.calls[0] == 3) env.done();
  };
  p.catch_error([](error) { return sentinel; }).then([semi_done](value_t v) {
    EXPECT_EQ(v, sentinel);
    semi_done();
  });
  p.catch_error([](error) -> value_t { throw error_exception(sentinel2_reason); }).catch_error([semi_done](error e) {
    EXPECT_EQ(e, sentinel2_reason);
    semi_done();
    return other;
  });
  p.catch_error([](error) { return value_t("sentinel3"); }).then([semi_done](value_t v) {
    EXPECT_EQ(v, "sentinel3");
    semi_done();
  });
}

APLUS_REJECTED(promises_aplus_2_2_6, rejection_handlers_are_called_in_the_original_order, dummy_reason) {
  for (int i = 1; i <= 3; ++i) p.then([](value_t) {}, [&env, i](error) { env.order.push_back(i); });
  p.then([](value_t) {}, [&env](error) {
    EXPECT_EQ(env.order, (std::vector<int>{1, 2, 3}));
    env.done();
  });
}

APLUS_REJECTED(promises_aplus_2_2_6, rejection_handlers_keep_their_order_even_when_one_is_added_inside_another, dummy_reason) {
  p.then([](value_t) {}, [p, &env](error) {
    env.order.push_back(1);
    p.then([](value_t) {}, [&env](error) { env.order.push_back(3); });
  });
  p.then([](value_t) {}, [&env](error) { env.order.push_back(2); });
  p.then([](value_t) {}, [&env](error) {
    env.after(15, [&env] {
      EXPECT_EQ(env.order, (std::vector<int>{1, 2, 3}));
      env.done();
    });
  });
}

// ---- 2.2.7: then must return a promise: promise2 = promise1.then(onFulfilled, onRejected).

APLUS_SPEC(promises_aplus_2_2_7, then_returns_a_promise) {
  deferred<value_t> d;
  auto p2 = d.get_promise().then([](value_t v) { return v; });
  static_assert(std::is_same_v<decltype(p2), promise<value_t>>);
  auto p3 = d.get_promise().then([](value_t) {});
  static_assert(std::is_same_v<decltype(p3), promise<void>>);
  auto p4 = d.get_promise().then([](value_t) { return promise<int>::resolve(1); });
  static_assert(std::is_same_v<decltype(p4), promise<int>>);
  EXPECT_TRUE(p2.valid() && p3.valid() && p4.valid());
  env.done();
}

// 2.2.7.2: If either onFulfilled or onRejected throws an exception e,
// promise2 must be rejected with e as the reason.
namespace {
struct not_a_std_exception {};
[[noreturn]] void throw_error_exception() { throw error_exception(sentinel_reason); }
[[noreturn]] void throw_std_exception() { throw std::runtime_error("sentinel runtime_error"); }
[[noreturn]] void throw_other() { throw not_a_std_exception{}; }
} // namespace

APLUS_FULFILLED(promises_aplus_2_2_7, on_fulfilled_throwing_an_error_exception_rejects_with_its_error, dummy) {
  p.then([](value_t) -> value_t { throw_error_exception(); }).catch_error([&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
    return other;
  });
}

APLUS_REJECTED(promises_aplus_2_2_7, on_rejected_throwing_an_error_exception_rejects_with_its_error, dummy_reason) {
  p.catch_error([](error) -> value_t { throw_error_exception(); }).catch_error([&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
    return other;
  });
}

APLUS_FULFILLED(promises_aplus_2_2_7, on_fulfilled_throwing_a_std_exception_rejects_with_its_message, dummy) {
  p.then([](value_t) -> value_t { throw_std_exception(); }).catch_error([&env](error e) {
    EXPECT_EQ(e.message(), "sentinel runtime_error");
    env.done();
    return other;
  });
}

APLUS_REJECTED(promises_aplus_2_2_7, on_rejected_throwing_a_std_exception_rejects_with_its_message, dummy_reason) {
  p.catch_error([](error) -> value_t { throw_std_exception(); }).catch_error([&env](error e) {
    EXPECT_EQ(e.message(), "sentinel runtime_error");
    env.done();
    return other;
  });
}

APLUS_FULFILLED(promises_aplus_2_2_7, on_fulfilled_throwing_anything_else_rejects, dummy) {
  p.then([](value_t) -> value_t { throw_other(); }).catch_error([&env](error e) {
    EXPECT_TRUE(static_cast<bool>(e));
    EXPECT_EQ(e.message(), "unknown exception");
    env.done();
    return other;
  });
}

APLUS_REJECTED(promises_aplus_2_2_7, on_rejected_throwing_anything_else_rejects, dummy_reason) {
  p.catch_error([](error) -> value_t { throw_other(); }).catch_error([&env](error e) {
    EXPECT_EQ(e.message(), "unknown exception");
    env.done();
    return other;
  });
}

// 2.2.7.3: If onFulfilled is not a function and promise1 is fulfilled,
// promise2 must be fulfilled with the same value.
APLUS_FULFILLED(promises_aplus_2_2_7, without_on_fulfilled_promise2_is_fulfilled_with_the_same_value, sentinel) {
  p.catch_error([](error) { return other; }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

APLUS_FULFILLED(promises_aplus_2_2_7, a_tap_error_lets_the_value_through_unchanged, sentinel) {
  p.tap_error([&env](const error&) { ++env.calls[0]; }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    EXPECT_EQ(env.calls[0], 0);
    env.done();
  });
}

// 2.2.7.4: If onRejected is not a function and promise1 is rejected, promise2
// must be rejected with the same reason.
APLUS_REJECTED(promises_aplus_2_2_7, without_on_rejected_promise2_is_rejected_with_the_same_reason, sentinel_reason) {
  p.then([](value_t) { return 1; }).then([](int) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

APLUS_REJECTED(promises_aplus_2_2_7, a_tap_error_sees_the_reason_and_passes_it_on, sentinel_reason) {
  p.tap_error([&env](const error& e) {
     EXPECT_EQ(e, sentinel_reason);
     ++env.calls[0];
   }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    EXPECT_EQ(env.calls[0], 1);
    env.done();
  });
}

// ---- 2.3.1: If promise and x refer to the same object, reject promise with a TypeError.

// (The handlers capture the promise they belong to; the cycle ends when they
// run, since a reaction drops its handlers once it has run.)
APLUS_SPEC(promises_aplus_2_3_1, returning_the_promise_itself_from_on_fulfilled_rejects_with_a_type_error) {
  auto self = std::make_shared<promise<value_t>>();
  *self = promise<value_t>::resolve(dummy).then([self](value_t) { return *self; });
  self->then([](value_t) {}, [&env, self](error e) {
    EXPECT_NE(e.message().find("TypeError"), std::string::npos) << e.message();
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_1, returning_the_promise_itself_from_on_rejected_rejects_with_a_type_error) {
  auto self = std::make_shared<promise<value_t>>();
  *self = promise<value_t>::reject(dummy_reason).catch_error([self](error) { return *self; });
  self->then([](value_t) {}, [&env, self](error e) {
    EXPECT_NE(e.message().find("TypeError"), std::string::npos) << e.message();
    env.done();
  });
}

// ---- 2.3.2: If x is a promise, adopt its state.

namespace {
/// testPromiseResolution: x returned from a handler of a fulfilled and of a rejected promise.
template <class XFactory>
promise<value_t> via_fulfilled(XFactory x) {
  return promise<value_t>::resolve(dummy).then([x](value_t) mutable { return x(); });
}
template <class XFactory>
promise<value_t> via_rejected(XFactory x) {
  return promise<value_t>::reject(dummy_reason).catch_error([x](error) mutable { return x(); });
}
} // namespace

// 2.3.2.1: If x is pending, promise must remain pending until x is fulfilled or rejected.
APLUS_SPEC(promises_aplus_2_3_2, adopting_a_pending_promise_via_a_fulfilled_one_stays_pending) {
  deferred<value_t> x;
  auto p = via_fulfilled([x] { return x.get_promise(); });
  p.then([&env](value_t) { env.calls[0]++; }, [&env](error) { env.calls[1]++; });
  env.after(100, [&env, p] {
    EXPECT_EQ(env.calls[0] + env.calls[1], 0);
    EXPECT_TRUE(p.is_pending());
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_2, adopting_a_pending_promise_via_a_rejected_one_stays_pending) {
  deferred<value_t> x;
  auto p = via_rejected([x] { return x.get_promise(); });
  p.then([&env](value_t) { env.calls[0]++; }, [&env](error) { env.calls[1]++; });
  env.after(100, [&env, p] {
    EXPECT_EQ(env.calls[0] + env.calls[1], 0);
    EXPECT_TRUE(p.is_pending());
    env.done();
  });
}

// 2.3.2.2: If/when x is fulfilled, fulfill promise with the same value.
APLUS_SPEC(promises_aplus_2_3_2, adopting_an_already_fulfilled_promise_via_a_fulfilled_one_takes_its_value) {
  via_fulfilled([] { return promise<value_t>::resolve(sentinel); }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_2, adopting_an_already_fulfilled_promise_via_a_rejected_one_takes_its_value) {
  via_rejected([] { return promise<value_t>::resolve(sentinel); }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_2, adopting_an_eventually_fulfilled_promise_via_a_fulfilled_one_takes_its_value) {
  via_fulfilled([&env] {
    deferred<value_t> d;
    env.after(50, [d] { d.resolve(sentinel); });
    return d.get_promise();
  }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_2, adopting_an_eventually_fulfilled_promise_via_a_rejected_one_takes_its_value) {
  via_rejected([&env] {
    deferred<value_t> d;
    env.after(50, [d] { d.resolve(sentinel); });
    return d.get_promise();
  }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

// 2.3.2.3: If/when x is rejected, reject promise with the same reason.
APLUS_SPEC(promises_aplus_2_3_2, adopting_an_already_rejected_promise_via_a_fulfilled_one_takes_its_reason) {
  via_fulfilled([] { return promise<value_t>::reject(sentinel_reason); }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_2, adopting_an_already_rejected_promise_via_a_rejected_one_takes_its_reason) {
  via_rejected([] { return promise<value_t>::reject(sentinel_reason); }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_2, adopting_an_eventually_rejected_promise_via_a_fulfilled_one_takes_its_reason) {
  via_fulfilled([&env] {
    deferred<value_t> d;
    env.after(50, [d] { d.reject(sentinel_reason); });
    return d.get_promise();
  }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_2, adopting_an_eventually_rejected_promise_via_a_rejected_one_takes_its_reason) {
  via_rejected([&env] {
    deferred<value_t> d;
    env.after(50, [d] { d.reject(sentinel_reason); });
    return d.get_promise();
  }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

// ---- 2.3.3: Otherwise, if x is a thenable (in C++: has then_callback),
// call x.then(resolvePromise, rejectPromise).

namespace {
/// A hand-made thenable: delivers through the callback it is given, now or
/// after a delay, and may throw from then_callback before or after that.
struct test_thenable {
  using value_type = value_t;
  aplus_env* env;
  bool ok = true;
  int delay_ms = -1; // -1: synchronously
  bool throw_before = false;
  bool throw_after = false;

  void then_callback(callback<value_t> cb) && {
    if (throw_before) throw std::runtime_error("then threw");
    auto deliver = [cb, ok = ok] {
      if (ok)
        cb({}, sentinel);
      else
        cb(sentinel_reason);
    };
    if (delay_ms < 0)
      deliver();
    else
      env->after(delay_ms, deliver);
    if (throw_after) throw std::runtime_error("then threw after resolving");
  }
};
} // namespace

// 2.3.3.3.1: If/when resolvePromise is called with a value y, fulfill with it.
APLUS_SPEC(promises_aplus_2_3_3, a_thenable_resolving_synchronously_via_a_fulfilled_promise_fulfills) {
  via_fulfilled([&env] { return test_thenable{&env}; }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_thenable_resolving_synchronously_via_a_rejected_promise_fulfills) {
  via_rejected([&env] { return test_thenable{&env}; }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_thenable_resolving_asynchronously_via_a_fulfilled_promise_fulfills) {
  via_fulfilled([&env] { return test_thenable{&env, true, 50}; }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_thenable_resolving_asynchronously_via_a_rejected_promise_fulfills) {
  via_rejected([&env] { return test_thenable{&env, true, 50}; }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

// 2.3.3.3.2: If/when rejectPromise is called with a reason r, reject with r.
APLUS_SPEC(promises_aplus_2_3_3, a_thenable_rejecting_synchronously_via_a_fulfilled_promise_rejects) {
  via_fulfilled([&env] { return test_thenable{&env, false}; }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_thenable_rejecting_synchronously_via_a_rejected_promise_rejects) {
  via_rejected([&env] { return test_thenable{&env, false}; }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_thenable_rejecting_asynchronously_via_a_fulfilled_promise_rejects) {
  via_fulfilled([&env] { return test_thenable{&env, false, 50}; }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_thenable_rejecting_asynchronously_via_a_rejected_promise_rejects) {
  via_rejected([&env] { return test_thenable{&env, false, 50}; }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

// 2.3.3.3.4: If calling then throws an exception e: if resolvePromise was
// already called, ignore it; otherwise reject promise with e.
APLUS_SPEC(promises_aplus_2_3_3, a_thenable_whose_then_throws_first_rejects_with_the_exception) {
  via_fulfilled([&env] { return test_thenable{&env, true, -1, true}; }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e.message(), "then threw");
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_thenable_whose_then_throws_first_via_a_rejected_promise_rejects) {
  via_rejected([&env] { return test_thenable{&env, true, -1, true}; }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e.message(), "then threw");
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_thenable_whose_then_throws_after_resolving_keeps_the_value) {
  via_fulfilled([&env] { return test_thenable{&env, true, -1, false, true}; }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_thenable_whose_then_throws_after_rejecting_keeps_the_reason) {
  via_fulfilled([&env] { return test_thenable{&env, false, -1, false, true}; }).then([](value_t) {}, [&env](error e) {
    EXPECT_EQ(e, sentinel_reason);
    env.done();
  });
}

// A future is a thenable.
APLUS_SPEC(promises_aplus_2_3_3, a_ready_future_returned_from_a_handler_is_assimilated) {
  promise<value_t>::resolve(dummy).then([](value_t) { return make_ready_future(sentinel); }).then([&env](value_t v) {
    EXPECT_EQ(v, sentinel);
    env.done();
  });
}

APLUS_SPEC(promises_aplus_2_3_3, a_pending_future_returned_from_a_handler_is_assimilated) {
  promise<value_t>::resolve(dummy)
      .then([&env](value_t) {
        return make_future<value_t>([&env](callback<value_t> cb) { env.after(50, [cb] { cb(sentinel_reason); }); });
      })
      .then([](value_t) {}, [&env](error e) {
        EXPECT_EQ(e, sentinel_reason);
        env.done();
      });
}

// ---- 2.3.4: If x is not an object or function, fulfill promise with x. In
// C++: a plain value of any type.

#define APLUS_VALUE_CASES(name, type, expr)                                                                            \
  APLUS_FULFILLED(promises_aplus_2_3_4, name##_returned_from_on_fulfilled_fulfills_promise2, dummy) {                   \
    p.then([](value_t) -> type { return expr; }).then([&env](type v) {                                                 \
      EXPECT_EQ(v, (expr));                                                                                            \
      env.done();                                                                                                      \
    });                                                                                                                \
  }                                                                                                                    \
  APLUS_REJECTED(promises_aplus_2_3_4, name##_returned_from_on_rejected_fulfills_promise2, dummy_reason) {              \
    p.then([](value_t) -> type { return type{}; }, [](error) -> type { return expr; }).then([&env](type v) {           \
      EXPECT_EQ(v, (expr));                                                                                            \
      env.done();                                                                                                      \
    });                                                                                                                \
  }

APLUS_VALUE_CASES(false_, bool, false)
APLUS_VALUE_CASES(true_, bool, true)
APLUS_VALUE_CASES(zero, int, 0)
APLUS_VALUE_CASES(an_empty_string, std::string, std::string())
APLUS_VALUE_CASES(an_empty_optional, std::optional<int>, std::nullopt)
