// promise<T> beyond the A+ clauses: make_promise, catch/tap/finally,
// then_callback, all/all_settled/race/any, co_await, contexts, unhandled
// rejections, lifetimes and a million synchronous completions.
#include "counted.hpp"
#include "timed_ops.hpp"

#include <asyncshift/context.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/task.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <variant>
#include <vector>

using namespace asyncshift;
using asyncshift::test::counted;
using asyncshift::test::poisoned_move;
using asyncshift::test::live_objects;

using asyncshift::test::failing_op_after;
using asyncshift::test::ms;
using asyncshift::test::op_after;

TEST(promise, make_promise_settles_from_a_synchronous_completion_and_runs_then_from_a_microtask) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  auto p = make_promise<int>([](callback<int> cb) { cb({}, 7); });
  EXPECT_TRUE(p.is_fulfilled());
  p.then([&](int v) { got = v; });
  EXPECT_EQ(got, 0) << "not synchronously";
  l.run();
  EXPECT_EQ(got, 7);
}

TEST(promise, a_move_only_value_moves_through_a_chain_with_one_reaction_each) {
  // What the tool prints for a callback<std::unique_ptr<int>> function. With
  // one reaction per promise nobody else reads the value, so it moves; it
  // did not compile (the copy for shared values was instantiated).
  loop l(clock_kind::virtual_time);
  int got = 0;
  make_promise<std::unique_ptr<int>>([](auto cb) { cb({}, std::make_unique<int>(21)); })
      .then([](std::unique_ptr<int> p) -> std::unique_ptr<int> {
        *p *= 2;
        return p;
      })
      .then_callback([&](error e, std::unique_ptr<int> p) { got = e ? -1 : *p; });
  l.run();
  EXPECT_EQ(got, 42);
}

TEST(promise, make_promise_settles_from_an_asynchronous_completion) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  make_promise<int>([&](auto cb) { op_after(l, 5 * ms, 9, cb); }).then([&](int v) { got = v; });
  l.run();
  EXPECT_EQ(got, 9);
  EXPECT_EQ(l.now_ns(), 5 * ms);
}

TEST(promise, make_promise_rejects_when_start_throws) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  make_promise<int>([](callback<int>) { throw std::runtime_error("start failed"); }).catch_error([&](error e) {
    msg = e.message();
    return 0;
  });
  l.run();
  EXPECT_EQ(msg, "start failed");
}

TEST(promise, a_void_promise_chains_values_through_then) {
  loop l(clock_kind::virtual_time);
  std::string trace;
  make_promise([&](callback<> cb) { l.set_timeout(ms, [cb] { cb({}); }); })
      .then([&] {
        trace += "a";
        return 2;
      })
      .then([&](int x) {
        trace += std::to_string(x);
        return promise<>::resolve();
      })
      .then([&] { trace += "b"; })
      .then_callback([&](error e) { trace += e ? "!" : "."; });
  l.run();
  EXPECT_EQ(trace, "a2b.");
}

TEST(promise, a_handler_may_ignore_the_value) {
  loop l(clock_kind::virtual_time);
  bool ran = false;
  promise<int>::resolve(3).then([&] { ran = true; });
  l.run();
  EXPECT_TRUE(ran);
}

TEST(promise, catch_error_recovers_with_a_value_or_a_promise) {
  loop l(clock_kind::virtual_time);
  std::vector<int> got;
  promise<int>::reject(error("x")).catch_error([](error) { return 1; }).then([&](int v) { got.push_back(v); });
  promise<int>::reject(error("x"))
      .catch_error([&](const error&) { return make_promise<int>([&](auto cb) { op_after(l, ms, 2, cb); }); })
      .then([&](int v) { got.push_back(v); });
  l.run();
  EXPECT_EQ(got, (std::vector<int>{1, 2}));
}

TEST(promise, catch_error_on_a_void_promise_may_return_nothing) {
  loop l(clock_kind::virtual_time);
  bool recovered = false;
  promise<>::reject(error("x")).catch_error([](error) {}).then([&] { recovered = true; });
  l.run();
  EXPECT_TRUE(recovered);
}

TEST(promise, tap_error_runs_cleanup_and_stays_rejected_with_the_same_error) {
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  std::string msg;
  make_promise<int>([&](auto cb) { failing_op_after(l, ms, "io failed", cb); })
      .tap_error([&](const error& e) {
        EXPECT_EQ(e.message(), "io failed");
        ++cleanups;
      })
      .then([](int) { ADD_FAILURE() << "must stay rejected"; }, [&](error e) { msg = e.message(); });
  l.run();
  EXPECT_EQ(cleanups, 1);
  EXPECT_EQ(msg, "io failed");
}

TEST(promise, tap_error_does_not_wait_for_the_cleanup_it_starts) {
  loop l(clock_kind::virtual_time);
  std::int64_t rejected_at = -1, cleanup_done_at = -1;
  promise<int>::reject(error("x"))
      .tap_error([&](const error&) {
        return make_promise([&](callback<> cb) {
          l.set_timeout(10 * ms, [&, cb] {
            cleanup_done_at = l.now_ns();
            cb({});
          });
        });
      })
      .catch_error([&](error) {
        rejected_at = l.now_ns();
        return 0;
      });
  l.run();
  EXPECT_EQ(rejected_at, 0);
  EXPECT_EQ(cleanup_done_at, 10 * ms);
}

TEST(promise, finally_runs_on_both_outcomes_and_passes_them_on) {
  loop l(clock_kind::virtual_time);
  int finals = 0;
  int value = 0;
  std::string msg;
  promise<int>::resolve(4).finally([&] { ++finals; }).then([&](int v) { value = v; });
  promise<int>::reject(error("r")).finally([&] { ++finals; }).catch_error([&](error e) {
    msg = e.message();
    return 0;
  });
  l.run();
  EXPECT_EQ(finals, 2);
  EXPECT_EQ(value, 4);
  EXPECT_EQ(msg, "r");
}

TEST(promise, finally_waits_for_a_returned_promise) {
  loop l(clock_kind::virtual_time);
  std::int64_t at = -1;
  int value = 0;
  promise<int>::resolve(5)
      .finally([&] { return make_promise([&](callback<> cb) { l.set_timeout(3 * ms, [cb] { cb({}); }); }); })
      .then([&](int v) {
        value = v;
        at = l.now_ns();
      });
  l.run();
  EXPECT_EQ(value, 5);
  EXPECT_EQ(at, 3 * ms);
}

TEST(promise, finally_that_throws_rejects) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  promise<int>::resolve(5).finally([] { throw std::runtime_error("cleanup failed"); }).catch_error([&](error e) {
    msg = e.message();
    return 0;
  });
  l.run();
  EXPECT_EQ(msg, "cleanup failed");
}

TEST(promise, then_callback_delivers_a_value_or_an_error) {
  loop l(clock_kind::virtual_time);
  int value = 0;
  std::string msg;
  promise<int>::resolve(8).then_callback([&](error e, int v) {
    EXPECT_FALSE(e);
    value = v;
  });
  promise<int>::reject(error("no")).then_callback([&](error e, int) { msg = e.message(); });
  EXPECT_EQ(value, 0) << "from a microtask, not synchronously";
  l.run();
  EXPECT_EQ(value, 8);
  EXPECT_EQ(msg, "no");
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

TEST(promise, all_fulfills_with_the_values_in_input_order) {
  loop l(clock_kind::virtual_time);
  std::vector<int> got;
  std::vector<promise<int>> ps;
  for (int i = 0; i < 5; ++i) ps.push_back(make_promise<int>([&, i](auto cb) { op_after(l, (5 - i) * ms, i, cb); }));
  promise<int>::all(std::move(ps)).then([&](std::vector<int> v) { got = std::move(v); });
  l.run();
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(promise, all_of_nothing_fulfills_with_nothing) {
  loop l(clock_kind::virtual_time);
  bool a = false, b = false;
  promise<int>::all({}).then([&](std::vector<int> v) { a = v.empty(); });
  promise<>::all({}).then([&] { b = true; });
  l.run();
  EXPECT_TRUE(a);
  EXPECT_TRUE(b);
}

TEST(promise, all_rejects_with_the_first_error_and_the_others_run_to_their_end) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  std::int64_t rejected_at = -1;
  int finished = 0;
  std::vector<promise<int>> ps;
  ps.push_back(make_promise<int>([&](auto cb) { op_after(l, 10 * ms, 1, cb); }).then([&](int v) {
    ++finished;
    return v;
  }));
  ps.push_back(make_promise<int>([&](auto cb) { failing_op_after(l, 2 * ms, "second", cb); }));
  ps.push_back(make_promise<int>([&](auto cb) { failing_op_after(l, 5 * ms, "third", cb); }));
  const auto before = live_objects();
  promise<int>::all(std::move(ps)).then([](std::vector<int>) {}, [&](error e) {
    msg = e.message();
    rejected_at = l.now_ns();
  });
  l.run();
  EXPECT_EQ(msg, "second");
  EXPECT_EQ(rejected_at, 2 * ms);
  EXPECT_EQ(finished, 1) << "the slow branch still ran";
  EXPECT_EQ(l.now_ns(), 10 * ms);
  EXPECT_LE(live_objects(), before) << "nothing leaks";
}

TEST(promise, all_of_void_promises_fulfills_with_nothing) {
  loop l(clock_kind::virtual_time);
  int done = 0;
  std::vector<promise<>> ps;
  for (int i = 0; i < 3; ++i) ps.push_back(make_promise([&, i](callback<> cb) { l.set_timeout(i * ms, [cb] { cb({}); }); }));
  promise<>::all(std::move(ps)).then([&] { ++done; });
  l.run();
  EXPECT_EQ(done, 1);
}

TEST(promise, all_settled_reports_every_outcome_and_never_rejects) {
  loop l(clock_kind::virtual_time);
  std::vector<result<int>> got;
  std::vector<promise<int>> ps;
  ps.push_back(promise<int>::resolve(1));
  ps.push_back(promise<int>::reject(error("two")));
  ps.push_back(make_promise<int>([&](auto cb) { op_after(l, ms, 3, cb); }));
  promise<int>::all_settled(std::move(ps)).then([&](std::vector<result<int>> v) { got = std::move(v); });
  l.run();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_FALSE(got[0].err);
  EXPECT_EQ(got[0].value, 1);
  EXPECT_EQ(got[1].err.message(), "two");
  EXPECT_EQ(got[2].value, 3);
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

TEST(promise, all_settled_of_void_promises_gives_one_error_value_each) {
  loop l(clock_kind::virtual_time);
  std::vector<error> got;
  promise<>::all_settled({promise<>::resolve(), promise<>::reject(error("b"))}).then([&](std::vector<error> v) {
    got = std::move(v);
  });
  l.run();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[0]);
  EXPECT_EQ(got[1].message(), "b");
}

TEST(promise, variadic_all_fulfills_with_a_tuple_of_different_types_in_argument_order) {
  loop l(clock_kind::virtual_time);
  std::optional<std::tuple<int, std::string, std::monostate>> got;
  auto a = make_promise<int>([&](auto cb) { op_after(l, 3 * ms, 7, cb); });
  auto b = promise<std::string>::resolve("b");
  auto c = make_promise([&](callback<> cb) { l.set_timeout(1 * ms, [cb] { cb({}); }); });
  all(a, b, c).then([&](std::tuple<int, std::string, std::monostate> t) { got = std::move(t); });
  l.run();
  ASSERT_TRUE(got);
  EXPECT_EQ(std::get<0>(*got), 7);
  EXPECT_EQ(std::get<1>(*got), "b");
  EXPECT_EQ(l.now_ns(), 3 * ms);
}

TEST(promise, variadic_all_rejects_with_the_first_rejection_and_reports_none_unhandled) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  std::int64_t at = -1;
  bool fulfilled = false;
  const auto before = live_objects();
  {
    auto slow = make_promise<int>([&](auto cb) { failing_op_after(l, 5 * ms, "slow", cb); });
    auto fast = make_promise<counted>([&](callback<counted> cb) {
      l.set_timeout(2 * ms, [cb] { cb(error("fast")); });
    });
    all(slow, fast).then([&](std::tuple<int, counted>) { fulfilled = true; }, [&](error e) {
      msg = e.message();
      at = l.now_ns();
    });
  }
  l.run();
  EXPECT_FALSE(fulfilled);
  EXPECT_EQ(msg, "fast");
  EXPECT_EQ(at, 2 * ms) << "at the first rejection, not when every input has settled";
  EXPECT_EQ(l.unhandled_rejections(), 0u) << "the later rejection is all's to ignore";
  EXPECT_LE(live_objects(), before) << "nothing leaks";
}

TEST(promise, variadic_all_moves_a_move_only_value) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  all(make_promise<std::unique_ptr<int>>([](auto cb) { cb({}, std::make_unique<int>(5)); }), promise<int>::resolve(1))
      .then([&](std::tuple<std::unique_ptr<int>, int> t) { got = *std::get<0>(t) + std::get<1>(t); });
  l.run();
  EXPECT_EQ(got, 6);
}

TEST(promise, variadic_all_settled_gives_each_outcome_as_a_value_and_never_rejects) {
  loop l(clock_kind::virtual_time);
  std::optional<std::tuple<result<int>, error>> got;
  all_settled(promise<int>::reject(error("one")), make_promise([&](callback<> cb) { cb({}); }))
      .then([&](std::tuple<result<int>, error> t) { got = std::move(t); });
  l.run();
  ASSERT_TRUE(got);
  EXPECT_EQ(std::get<0>(*got).err.message(), "one");
  EXPECT_FALSE(std::get<1>(*got));
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

TEST(promise, deferred_resolved_with_a_pending_promise_follows_it_and_ignores_later_calls) {
  loop l(clock_kind::virtual_time);
  deferred<int> d;
  int got = 0;
  std::int64_t at = -1;
  d.get_promise().then([&](int v) {
    got = v;
    at = l.now_ns();
  });
  d.resolve(make_promise<int>([&](auto cb) { op_after(l, 4 * ms, 11, cb); }));
  d.resolve(99);                 // the first call won, though nothing has settled yet
  d.reject(error("too late"));
  l.run();
  EXPECT_EQ(got, 11);
  EXPECT_EQ(at, 4 * ms);
}

TEST(promise, deferred_resolved_with_a_rejected_promise_rejects_and_the_source_is_handled) {
  loop l(clock_kind::virtual_time);
  deferred<> d;
  std::string msg;
  d.get_promise().then([] {}, [&](error e) { msg = e.message(); });
  d.resolve(promise<>::reject(error("source")));
  l.run();
  EXPECT_EQ(msg, "source");
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

TEST(promise, deferred_resolved_with_its_own_promise_rejects_with_a_type_error) {
  loop l(clock_kind::virtual_time);
  deferred<int> d;
  std::string msg;
  d.get_promise().then([](int) {}, [&](error e) { msg = e.message(); });
  d.resolve(d.get_promise());
  l.run();
  EXPECT_EQ(msg, "TypeError: Chaining cycle detected for promise");
}

// all() over nothing or over trivially copyable values runs no user code to
// take an input, so it needs no microtask per input: it counts an input down
// as the input settles, and only the combined promise's reactions wait for
// the microtask queue (A+ 2.2.4).
TEST(promise, all_of_plain_values_takes_each_input_as_it_settles_without_a_microtask) {
  loop l(clock_kind::virtual_time);
  deferred<int> a, b;
  deferred<> c;
  auto all = promise<int>::all({a.get_promise(), b.get_promise()});
  auto all_void = promise<>::all({c.get_promise()});
  bool reacted = false;
  all.then([&](std::vector<int>) { reacted = true; });
  a.resolve(1);
  EXPECT_TRUE(all.is_pending()) << "one input still pending";
  b.resolve(2);
  EXPECT_TRUE(all.is_fulfilled()) << "the join saw both inputs settle, with no microtask run";
  EXPECT_FALSE(reacted) << "the combined promise's reaction still waits for a microtask";
  c.resolve();
  EXPECT_TRUE(all_void.is_fulfilled());
  l.run();
  EXPECT_TRUE(reacted);
}

namespace {
/// A value whose copy runs a hook once: user code inside a join's bookkeeping.
struct hooked_copy {
  static inline std::function<void()> hook;
  long x = 0;
  hooked_copy() = default;
  explicit hooked_copy(long v) : x(v) {}
  hooked_copy(const hooked_copy& o) : x(o.x) {
    if (auto h = std::move(hook)) {
      hook = nullptr;
      h();
    }
  }
  hooked_copy(hooked_copy&& o) noexcept : x(o.x) {}
  hooked_copy& operator=(const hooked_copy&) = default;
};
} // namespace

// A join whose value copy settles another of its inputs must not settle
// twice: where taking an input runs user code, the join takes its inputs
// from microtasks (a second settlement then finds it settled).
TEST(promise, a_race_whose_value_copy_settles_another_input_settles_once) {
  loop l(clock_kind::virtual_time);
  deferred<hooked_copy> a, b;
  int calls = 0;
  long got = 0;
  promise<hooked_copy>::race({a.get_promise(), b.get_promise()}).then_callback([&](error e, hooked_copy v) {
    ++calls;
    got = e ? -1 : v.x;
  });
  hooked_copy::hook = [&] { b.resolve(hooked_copy(2)); };
  a.resolve(hooked_copy(1));
  l.run();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(got, 1);
}

// race and any move a move-only value out of an input nobody else reads,
// however the input was settled (here by a then handler, which holds its
// state while it settles it).
TEST(promise, race_and_any_pass_a_move_only_value_on) {
  loop l(clock_kind::virtual_time);
  deferred<int> d, e;
  int raced = 0, anyed = 0;
  promise<std::unique_ptr<int>>::race({d.get_promise().then([](int x) { return std::make_unique<int>(x); })})
      .then_callback([&](error err, std::unique_ptr<int> v) { raced = err ? -1 : *v; });
  promise<std::unique_ptr<int>>::any({e.get_promise().then([](int x) { return std::make_unique<int>(x); })})
      .then_callback([&](error err, std::unique_ptr<int> v) { anyed = err ? -1 : *v; });
  d.resolve(7);
  e.resolve(5);
  l.run();
  EXPECT_EQ(raced, 7);
  EXPECT_EQ(anyed, 5);
}

// A combinator that settles inside another execution's code (an input
// settled from that execution's timer) leaves that execution current, and
// its own reactions run in the context the combinator was made in.
TEST(promise, a_combinator_settling_inline_keeps_the_settling_code_s_context) {
  loop l(clock_kind::virtual_time);
  context mine, other;
  mine.k = 1;
  other.k = 2;
  deferred<int> d;
  std::uint64_t reacted_in = 0, after_resolve = 0;
  {
    context_scope scope(&mine);
    promise<int>::all({d.get_promise()}).then([&](std::vector<int>) { reacted_in = current_context()->k; });
  }
  {
    context_scope scope(&other);
    l.set_timeout(ms, [&, d] {
      d.resolve(1);
      after_resolve = current_context() ? current_context()->k : 0;
    });
  }
  l.run();
  EXPECT_EQ(after_resolve, 2u);
  EXPECT_EQ(reacted_in, 1u);
}

TEST(promise, race_settles_like_the_first_to_settle) {
  loop l(clock_kind::virtual_time);
  int value = 0;
  std::string msg;
  promise<int>::race({make_promise<int>([&](auto cb) { op_after(l, 3 * ms, 3, cb); }),
                      make_promise<int>([&](auto cb) { op_after(l, 1 * ms, 1, cb); })})
      .then([&](int v) { value = v; });
  promise<int>::race({make_promise<int>([&](auto cb) { op_after(l, 3 * ms, 3, cb); }),
                      make_promise<int>([&](auto cb) { failing_op_after(l, 1 * ms, "fast failure", cb); })})
      .catch_error([&](error e) {
        msg = e.message();
        return 0;
      });
  l.run();
  EXPECT_EQ(value, 1);
  EXPECT_EQ(msg, "fast failure");
}

TEST(promise, race_of_nothing_stays_pending) {
  loop l(clock_kind::virtual_time);
  auto p = promise<int>::race({});
  l.run();
  EXPECT_TRUE(p.is_pending());
}

TEST(promise, any_fulfills_with_the_first_fulfillment_and_skips_rejections) {
  loop l(clock_kind::virtual_time);
  int value = 0;
  promise<int>::any({make_promise<int>([&](auto cb) { failing_op_after(l, 1 * ms, "a", cb); }),
                     make_promise<int>([&](auto cb) { op_after(l, 2 * ms, 2, cb); }),
                     make_promise<int>([&](auto cb) { op_after(l, 3 * ms, 3, cb); })})
      .then([&](int v) { value = v; });
  l.run();
  EXPECT_EQ(value, 2);
}

TEST(promise, any_rejects_with_an_aggregate_error_when_all_reject_or_there_are_none) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> msgs;
  auto record = [&](error e) {
    msgs.push_back(e.message());
    return 0;
  };
  promise<int>::any({promise<int>::reject(error("a")), promise<int>::reject(error("b"))}).catch_error(record);
  promise<int>::any({}).catch_error(record);
  l.run();
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_EQ(msgs[0], "AggregateError: All promises were rejected");
  EXPECT_EQ(msgs[1], "AggregateError: All promises were rejected");
}

TEST(promise, co_await_of_a_promise_yields_its_value_or_throws_its_error) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  std::string msg;
  auto body = [&]() -> task<> {
    got = co_await make_promise<int>([&](auto cb) { op_after(l, ms, 21, cb); });
    try {
      co_await promise<int>::reject(error("awaited"));
    } catch (const error_exception& e) {
      msg = e.error().message();
    }
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(got, 21);
  EXPECT_EQ(msg, "awaited");
}

TEST(promise, co_await_of_a_settled_promise_still_resumes_from_a_microtask) {
  loop l(clock_kind::virtual_time);
  std::string order;
  auto body = [&]() -> task<> {
    order += "a";
    co_await promise<>::resolve();
    order += "c";
  };
  start(body(), {});
  order += "b";
  l.run();
  EXPECT_EQ(order, "abc");
}

TEST(promise, settle_of_a_promise_yields_its_outcome_as_a_value) {
  loop l(clock_kind::virtual_time);
  result<int> r;
  error e;
  auto body = [&]() -> task<> {
    r = co_await settle(promise<int>::reject(error("as value")));
    e = co_await settle(promise<>::resolve());
  };
  start(body(), {});
  l.run();
  EXPECT_EQ(r.err.message(), "as value");
  EXPECT_FALSE(e);
}

TEST(promise, a_reaction_runs_in_the_async_context_its_then_was_called_in) {
  loop l(clock_kind::virtual_time);
  context a, b;
  a.k = 1;
  b.k = 2;
  deferred<int> d;
  std::vector<std::uint64_t> seen;
  {
    context_scope scope(&a);
    d.get_promise().then([&](int) { seen.push_back(current_context()->k); });
  }
  {
    context_scope scope(&b);
    d.get_promise().then([&](int) { seen.push_back(current_context()->k); });
    l.set_timeout(ms, [d] { d.resolve(1); }); // settled from b's timer
  }
  l.run();
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{1, 2}));
}

TEST(promise, an_unhandled_rejection_is_reported_when_the_loop_ends) {
  loop l(clock_kind::virtual_time);
  promise<int>::reject(error("nobody listens"));
  make_promise<int>([&](auto cb) { failing_op_after(l, ms, "nor here", cb); });
  promise<int>::resolve(1).then([](int) -> int { throw error_exception(error("chain end")); });
  testing::internal::CaptureStderr();
  l.run();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(l.unhandled_rejections(), 3u);
  EXPECT_NE(err.find("unhandled promise rejection: nobody listens"), std::string::npos) << err;
  EXPECT_NE(err.find("nor here"), std::string::npos) << err;
  EXPECT_NE(err.find("chain end"), std::string::npos) << err;
}

TEST(promise, a_rejection_handled_before_the_loop_ends_is_not_reported) {
  loop l(clock_kind::virtual_time);
  auto p = promise<int>::reject(error("late handler"));
  l.set_timeout(5 * ms, [p] { p.catch_error([](error) { return 0; }); });
  promise<int>::reject(error("ignored on purpose")).ignore_rejection();
  l.run();
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

TEST(promise, a_rejection_that_propagates_to_a_handler_is_not_reported) {
  loop l(clock_kind::virtual_time);
  promise<int>::reject(error("x")).then([](int v) { return v; }).then([](int v) { return v; }).catch_error([](error) {
    return 0;
  });
  l.run();
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

// ---- lifetimes --------------------------------------------------------------

TEST(promise_lifetime, a_value_passes_along_a_chain_by_moves_only) {
  counted::reset();
  {
    loop l(clock_kind::virtual_time);
    make_promise<counted>([&](callback<counted> cb) { l.set_timeout(ms, [cb] { cb({}, counted(1)); }); })
        .then([](counted c) { return c; })
        .then([](counted&& c) { return std::move(c); })
        .then([](const counted& c) { EXPECT_EQ(c.id, 1); });
    l.run();
  }
  EXPECT_EQ(counted::copy_constructions, 0);
  EXPECT_EQ(counted::active(), 0);
}

TEST(promise_lifetime, a_value_read_by_two_reactions_is_copied_not_moved_away) {
  counted::reset();
  {
    loop l(clock_kind::virtual_time);
    auto p = promise<counted>::resolve(counted(5));
    int seen = 0;
    p.then([&](counted c) { seen += c.id; });
    p.then([&](counted c) { seen += c.id; });
    l.run();
    EXPECT_EQ(seen, 10);
  }
  EXPECT_EQ(counted::active(), 0);
}

TEST(promise_lifetime, a_handler_and_its_captures_are_destroyed_once_it_has_run) {
  counted::reset();
  loop l(clock_kind::virtual_time);
  auto p = promise<int>::resolve(1).then([c = counted(1)](int v) { return v + c.id; });
  EXPECT_EQ(counted::active(), 1);
  l.run();
  EXPECT_EQ(counted::active(), 0) << "the derived promise is still held, its handler is gone";
  EXPECT_TRUE(p.is_fulfilled());
}

TEST(promise_lifetime, dropping_a_pending_chain_frees_its_states_and_handlers) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    deferred<int> d;
    d.get_promise().then([c = counted(1)](int v) { return v; }).then([c = counted(2)](int v) { return v; });
    EXPECT_EQ(counted::active(), 2);
  }
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(live_objects(), before);
}

TEST(promise_lifetime, an_operation_that_never_completes_keeps_only_its_own_state) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    callback<int> kept;
    {
      auto p = make_promise<int>([&](callback<int> cb) { kept = cb; }).then([](int v) { return v; });
    }
    EXPECT_GT(live_objects(), before);
  }
  EXPECT_EQ(live_objects(), before) << "the callback was the last owner";
}

TEST(promise_lifetime, every_state_is_freed_after_a_run) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    for (int i = 0; i < 100; ++i)
      make_promise<int>([&, i](auto cb) { op_after(l, (i % 7) * ms, i, cb); })
          .then([](int v) { return promise<int>::resolve(v + 1); })
          .then([](int v) -> int {
            if (v % 3) throw error_exception(error("odd"));
            return v;
          })
          .catch_error([](error) { return 0; })
          .finally([] {})
          .then_callback([](error, int) {});
    l.run();
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(promise_lifetime, a_then_that_follows_a_pending_promise_frees_both_whichever_goes_last) {
  // The then state follows the promise its handler returned (A+ 2.3.2) and
  // holds a reference to it. Usually the then state goes first, while the
  // operation still holds that promise; held by a handle, it goes last.
  // Values of a trivially destructible type and of another both take each way.
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    int got = 0;
    std::string text;
    make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); })
        .then([&](int v) { return make_promise<int>([&, v](auto cb) { op_after(l, ms, v + 1, cb); }); })
        .then([&](int v) { got = v; });
    make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); })
        .then([&](int v) {
          return make_promise<std::string>([&, v](callback<std::string> cb) {
            l.set_timeout(ms, [cb, v] { cb({}, std::to_string(v + 1)); });
          });
        })
        .then([&](const std::string& v) { text = v; });
    auto kept = make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); }).then([&](int v) {
      return make_promise<int>([&, v](auto cb) { op_after(l, ms, v + 2, cb); });
    });
    auto kept_text = make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); }).then([&](int) {
      return make_promise<std::string>([&](callback<std::string> cb) { l.set_timeout(ms, [cb] { cb({}, "kept"); }); });
    });
    l.run();
    EXPECT_EQ(got, 2);
    EXPECT_EQ(text, "2");
    EXPECT_TRUE(kept.is_fulfilled() && kept_text.is_fulfilled());
    int kept_value = 0;
    kept.then([&](int v) { kept_value = v; });
    kept_text.then([&](const std::string& v) { text = v; });
    l.run();
    EXPECT_EQ(kept_value, 3);
    EXPECT_EQ(text, "kept");
  }
  EXPECT_EQ(live_objects(), before);
}

template <class T>
void drop_a_never_settled_chain_of_aliases(T v) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    bool ran = false;
    {
      deferred<T> d; // never settled
      promise<T> p = d.get_promise();
      // Each then returns the pending promise before it: once run, its state
      // follows that promise (an alias), and the reactions it had move on.
      for (int i = 0; i < 4; ++i) {
        promise<T> next = promise<T>::resolve(v).then([p](const T&) { return p; });
        next.then([&ran, c = counted(i)](const T& x) {
          ran = true;
          return x;
        });
        p = next;
      }
      l.run();
      EXPECT_EQ(counted::active(), 4) << "every reaction waits on the deferred's state";
    }
    EXPECT_FALSE(ran);
  }
  EXPECT_EQ(counted::active(), 0) << "the reactions released what they held";
  EXPECT_EQ(live_objects(), before);
}

TEST(promise_lifetime, dropping_a_never_settled_chain_of_aliases_frees_every_state_and_reaction) {
  // A pending state keeps its reactions in the word that, once it follows
  // another, holds its target: each path of the teardown must read the one
  // its status says is there. A trivially destructible value and another
  // take different paths.
  drop_a_never_settled_chain_of_aliases<int>(1);
  drop_a_never_settled_chain_of_aliases<std::string>("s");
}

TEST(promise_layout, a_state_keeps_its_reactions_value_error_or_target_in_one_word) {
  // The handler header (its ops, count and status bytes), then one word:
  // reactions while pending, then the value, the error or the state it follows.
  EXPECT_EQ(sizeof(detail::promise_state<std::int64_t>), 24u);
  EXPECT_EQ(sizeof(detail::promise_state<void>), 24u);
}

TEST(promise_layout, a_then_whose_handler_captures_nothing_keeps_no_bytes_for_it) {
  // A state and a reaction, and the handlers: none when they hold nothing
  // (in a million-branch fan-out, 48 bytes a branch instead of 64).
  auto nothing = [](std::int64_t v) { return v; };
  auto one_word = [w = std::int64_t{1}](std::int64_t v) { return v + w; };
  using empty_then = detail::then_state<std::int64_t, std::int64_t, decltype(nothing), detail::pass_through>;
  using word_then = detail::then_state<std::int64_t, std::int64_t, decltype(one_word), detail::pass_through>;
  EXPECT_EQ(sizeof(empty_then), sizeof(detail::promise_state<std::int64_t>) + sizeof(detail::promise_reaction));
  EXPECT_EQ(sizeof(empty_then), 48u);
  EXPECT_EQ(sizeof(word_then), 56u);
}

// ---- no stack growth ----------------------------------------------------------

TEST(promise_stack, a_million_synchronous_completions_in_a_then_chain_use_constant_stack) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    const char* base = asyncshift::test::stack_here();
    std::size_t deepest = 0;
    promise<int> p = promise<int>::resolve(0);
    for (int i = 0; i < 1'000'000; ++i)
      p = p.then([&](int x) {
        deepest = std::max(deepest, asyncshift::test::stack_depth_below(base));
        return make_promise<int>([x](callback<int> cb) { cb({}, x + 1); });
      });
    int got = 0;
    p.then([&](int v) { got = v; });
    p = {};
    l.run();
    EXPECT_EQ(got, 1'000'000);
    EXPECT_LT(deepest, 64u * 1024) << "bytes of stack below the test";
  }
  EXPECT_EQ(live_objects(), before);
}

// A promise that never settles goes, and takes a million `then`s with it: the
// first state tells its reaction, which dies and tells its own, and so on;
// that must not be a million nested destructors.
TEST(promise_stack, a_million_thens_on_a_promise_that_never_settles_go_in_constant_stack) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    const char* base = asyncshift::test::stack_here();
    std::size_t deepest = 0;
    int ran = 0;
    {
      std::optional<deferred<int>> d;
      d.emplace();
      promise<int> p = d->get_promise();
      const asyncshift::test::stack_probe probe(&deepest, base);
      for (int i = 0; i < 1'000'000; ++i)
        p = p.then([probe, &ran](int x) {
          ++ran;
          return x + 1;
        });
      deepest = 0; // what building the chain did is not measured
      d.reset();   // the source goes unsettled, and so does every state but the last
      EXPECT_GT(deepest, 0u) << "the handlers went with their states";
    }
    l.run();
    EXPECT_EQ(ran, 0);
    EXPECT_LT(deepest, 64u * 1024) << "bytes of stack below the test";
  }
  EXPECT_EQ(live_objects(), before);
}

namespace {
/// The recursive idiom: each step adopts the promise of the next one, so a
/// million promises wait on one another and settle in one cascade.
promise<int> count_up(int i, int n, std::size_t* deepest, const char* base) {
  if (i == n) return promise<int>::resolve(i);
  return make_promise<int>([i](callback<int> cb) { cb({}, i + 1); }).then([=](int next) {
    *deepest = std::max(*deepest, asyncshift::test::stack_depth_below(base));
    return count_up(next, n, deepest, base);
  });
}
} // namespace

TEST(promise_stack, a_million_promises_adopting_one_another_settle_in_constant_stack) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    const char* base = asyncshift::test::stack_here();
    std::size_t deepest = 0;
    int got = 0;
    count_up(0, 1'000'000, &deepest, base).then([&](int v) {
      deepest = std::max(deepest, asyncshift::test::stack_depth_below(base));
      got = v;
    });
    l.run();
    EXPECT_EQ(got, 1'000'000);
    EXPECT_LT(deepest, 64u * 1024);
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(promise, settle_in_a_chain_gives_the_outcome_as_a_value_and_never_rejects) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  int value = 0;
  bool void_ok = false;
  std::string void_msg;
  settle(promise<int>::reject(error("as a value"))).then([&](result<int> r) { msg = r.err.message(); });
  settle(make_promise<int>([&](auto cb) { op_after(l, ms, 6, cb); })).then([&](result<int> r) {
    EXPECT_FALSE(r.err);
    value = r.value;
  });
  settle(promise<>::resolve()).then([&](error e) { void_ok = !e; });
  settle(promise<>::reject(error("void failure"))).then([&](error e) { void_msg = e.message(); });
  l.run();
  EXPECT_EQ(msg, "as a value");
  EXPECT_EQ(value, 6);
  EXPECT_TRUE(void_ok);
  EXPECT_EQ(void_msg, "void failure");
  EXPECT_EQ(l.unhandled_rejections(), 0u) << "a settled rejection counts as handled";
}

TEST(promise_stack, a_rejection_crossing_a_million_thens_without_error_handlers_uses_constant_stack) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    deferred<int> d;
    promise<int> p = d.get_promise();
    int handlers_run = 0;
    for (int i = 0; i < 1'000'000; ++i)
      p = p.then([&](int v) {
        ++handlers_run;
        return v + 1;
      });
    std::string msg;
    const char* base = asyncshift::test::stack_here();
    std::size_t deepest = 0;
    p.catch_error([&](error e) {
      deepest = asyncshift::test::stack_depth_below(base);
      msg = e.message();
      return 0;
    });
    p = {};
    d.reject(error("deep"));
    l.run();
    EXPECT_EQ(msg, "deep");
    EXPECT_EQ(handlers_run, 0);
    EXPECT_LT(deepest, 64u * 1024);
  }
  EXPECT_EQ(live_objects(), before);
}

// make_promise(start, on_error(cleanup)): what the tool prints for
// `if (err) { cleanup; return done(err); }`.

TEST(promise, on_error_runs_the_cleanup_inline_before_the_promise_rejects) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> order;
  std::string msg;
  make_promise<int>([&](auto cb) { failing_op_after(l, ms, "io failed", cb); }, on_error([&](const error& e) {
                      EXPECT_EQ(e.message(), "io failed");
                      order.push_back("cleanup");
                    }))
      .then([](int) { ADD_FAILURE() << "must stay rejected"; },
            [&](error e) {
              order.push_back("rejected");
              msg = e.message();
            });
  l.run();
  EXPECT_EQ(order, (std::vector<std::string>{"cleanup", "rejected"}));
  EXPECT_EQ(msg, "io failed");
}

TEST(promise, on_error_cleanup_of_a_synchronous_failure_runs_before_make_promise_returns) {
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  auto p = make_promise<int>([](auto cb) { cb(error("at once")); }, on_error([&] { ++cleanups; }));
  EXPECT_EQ(cleanups, 1) << "inline, as in the callback original; tap_error would wait for a microtask";
  EXPECT_TRUE(p.is_rejected());
  p.catch_error([](error) { return 0; });
  l.run();
}

TEST(promise, on_error_cleanup_never_runs_on_success_and_is_freed_when_the_op_completes) {
  loop l(clock_kind::virtual_time);
  counted::reset();
  int got = 0;
  {
    auto p = make_promise<int>([&](auto cb) { op_after(l, ms, 5, cb); },
                               on_error([c = counted(1)](const error&) { ADD_FAILURE() << "no error"; }));
    l.run();
    EXPECT_EQ(counted::active(), 0) << "the cleanup's captures go when the op completes, not with the promise";
    p.then([&](int v) { got = v; });
    l.run();
  }
  EXPECT_EQ(got, 5);
}

TEST(promise, on_error_cleanup_that_throws_rejects_with_its_exception) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  make_promise<int>([](auto cb) { cb(error("io failed")); }, on_error([] { throw std::runtime_error("cleanup failed"); }))
      .catch_error([&](error e) {
        msg = e.message();
        return 0;
      });
  l.run();
  EXPECT_EQ(msg, "cleanup failed");
}

TEST(promise, on_error_cleanup_runs_when_start_throws) {
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  std::string msg;
  make_promise<int>([](auto) -> void { throw std::runtime_error("start failed"); }, on_error([&] { ++cleanups; }))
      .catch_error([&](error e) {
        msg = e.message();
        return 0;
      });
  l.run();
  EXPECT_EQ(cleanups, 1);
  EXPECT_EQ(msg, "start failed");
}

TEST(promise, a_value_whose_move_throws_rejects_the_then_and_the_waiting_reaction_still_runs) {
  // The value's move writes into the slot the waiting reactions share with
  // the outcome before it throws; the rejection that follows must still find
  // them.
  loop l(clock_kind::virtual_time);
  std::string msg;
  int reactions = 0;
  auto p = make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); }).then([](int) { return poisoned_move(-1); });
  p.then([](const poisoned_move&) { ADD_FAILURE() << "must reject"; },
         [&](error e) {
           ++reactions;
           msg = e.message();
         });
  l.run();
  EXPECT_EQ(reactions, 1);
  EXPECT_EQ(msg, "move threw");
}

// Promise work started before any loop exists goes to the thread's default
// loop; the first loop made after it takes that work over and runs it (it
// was lost: the default loop never runs).
TEST(promise, work_queued_before_the_loop_was_made_runs_on_it) {
  std::thread([] {
    int got = 0;
    promise<int>::resolve(1).then([&](int v) { got = v; });
    promise<int>::reject(error("before the loop"));
    loop l(clock_kind::virtual_time);
    l.run();
    EXPECT_EQ(got, 1);
    EXPECT_EQ(l.unhandled_rejections(), 1u);
  }).join();
}
