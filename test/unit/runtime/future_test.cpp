// future<T>: inline continuations, chaining on value and on error, ready
// futures, when_all, co_await, lifetimes and a million synchronous completions.
#include "counted.hpp"
#include "timed_ops.hpp"

#include <asyncshift/future.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/task.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using namespace asyncshift;
using asyncshift::test::counted;
using asyncshift::test::poisoned_move;
using asyncshift::test::live_objects;

using asyncshift::test::failing_op_after;
using asyncshift::test::ms;
using asyncshift::test::op_after;

TEST(future, a_continuation_runs_inline_when_the_value_arrives) {
  loop l(clock_kind::virtual_time);
  callback<int> complete;
  int got = 0;
  make_future<int>([&](callback<int> cb) { complete = cb; }).then([&](int v) { got = v; });
  EXPECT_EQ(got, 0);
  complete({}, 5);
  EXPECT_EQ(got, 5) << "inline: no loop turn needed";
}

TEST(future, then_on_a_ready_future_runs_at_once) {
  int got = 0;
  make_ready_future(3).then([&](int v) { got = v; });
  EXPECT_EQ(got, 3);
}

TEST(future, a_synchronous_start_gives_a_ready_future) {
  auto f = make_future<int>([](callback<int> cb) { cb({}, 4); });
  ASSERT_TRUE(f.is_ready());
  EXPECT_EQ(std::move(f).get(), 4);
}

TEST(future, chains_values_and_flattens_returned_futures) {
  loop l(clock_kind::virtual_time);
  std::string trace;
  make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int v) { return make_future<int>([&, v](auto cb) { op_after(l, ms, v + 1, cb); }); })
      .then([&](int v) {
        trace += std::to_string(v);
        return std::to_string(v * 10);
      })
      .then([&](std::string s) { trace += s; })
      .then([&] { return make_ready_future(); })
      .then_callback([&](error e) { trace += e ? "!" : "."; });
  l.run();
  EXPECT_EQ(trace, "220.");
  EXPECT_EQ(l.now_ns(), 2 * ms);
}

TEST(future, a_move_only_value_moves_through_continuations_taking_it_by_value) {
  // What the tool prints for a callback<std::unique_ptr<int>> function: each
  // continuation takes the value by value. It did not compile (a copy on the
  // path for shared values was instantiated).
  loop l(clock_kind::virtual_time);
  callback<std::unique_ptr<int>> complete;
  int got = 0;
  make_future<std::unique_ptr<int>>([&](auto cb) { complete = cb; })
      .then([](std::unique_ptr<int> p) -> std::unique_ptr<int> {
        *p *= 2;
        return p;
      })
      .then([&](std::unique_ptr<int>& p) { got = *p; });
  complete({}, std::make_unique<int>(21));
  EXPECT_EQ(got, 42);
}

TEST(future, an_error_skips_value_handlers_until_one_handles_it) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  int ran = 0;
  make_future<int>([&](auto cb) { failing_op_after(l, ms, "broken", cb); })
      .then([&](int v) {
        ++ran;
        return v;
      })
      .catch_error([&](error e) {
        msg = e.message();
        return 7;
      })
      .then([&](int v) { ran += v; });
  l.run();
  EXPECT_EQ(msg, "broken");
  EXPECT_EQ(ran, 7);
}

TEST(future, then_with_two_handlers_recovers_on_error) {
  int got = 0;
  make_failed_future<int>(error("x")).then([](int v) { return v; }, [](error) { return 42; }).then([&](int v) { got = v; });
  EXPECT_EQ(got, 42);
}

TEST(future, a_handler_that_throws_fails_the_derived_future) {
  std::string msg;
  make_ready_future(1)
      .then([](int) -> int { throw std::runtime_error("thrown"); })
      .then_callback([&](error e, int) { msg = e.message(); });
  EXPECT_EQ(msg, "thrown");
}

TEST(future, tap_error_sees_the_error_and_passes_it_on) {
  int taps = 0;
  std::string msg;
  make_failed_future<int>(error("e"))
      .tap_error([&](const error& e) {
        EXPECT_EQ(e.message(), "e");
        ++taps;
      })
      .then_callback([&](error e, int) { msg = e.message(); });
  EXPECT_EQ(taps, 1);
  EXPECT_EQ(msg, "e");
  int value = 0;
  make_ready_future(2).tap_error([&](const error&) { ++taps; }).then([&](int v) { value = v; });
  EXPECT_EQ(taps, 1);
  EXPECT_EQ(value, 2);
}

TEST(future, catch_error_on_a_void_future_may_return_nothing) {
  bool ok = false;
  make_failed_future(error("x")).catch_error([](error) {}).then([&] { ok = true; });
  EXPECT_TRUE(ok);
}

TEST(future, make_future_fails_when_start_throws) {
  std::string msg;
  make_future<int>([](callback<int>) { throw error_exception(error("no start")); }).then_callback([&](error e, int) {
    msg = e.message();
  });
  EXPECT_EQ(msg, "no start");
}

TEST(future, then_on_an_lvalue_consumes_it) {
  auto f = make_ready_future(1);
  auto g = f.then([](int v) { return v + 1; });
  EXPECT_FALSE(f.valid());
  EXPECT_EQ(std::move(g).get(), 2);
}

TEST(future, when_all_of_a_vector_yields_the_values_in_order) {
  loop l(clock_kind::virtual_time);
  std::vector<int> got;
  std::vector<future<int>> fs;
  for (int i = 0; i < 4; ++i) fs.push_back(make_future<int>([&, i](auto cb) { op_after(l, (4 - i) * ms, i, cb); }));
  fs.push_back(make_ready_future(9));
  when_all(std::move(fs)).then([&](std::vector<int> v) { got = std::move(v); });
  l.run();
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 9}));
}

TEST(future, when_all_of_void_futures_and_of_nothing_complete) {
  loop l(clock_kind::virtual_time);
  int done = 0;
  std::vector<future<>> fs;
  fs.push_back(make_future([&](callback<> cb) { l.set_timeout(ms, [cb] { cb({}); }); }));
  fs.push_back(make_ready_future());
  when_all(std::move(fs)).then([&] { ++done; });
  when_all(std::vector<future<int>>{}).then([&](std::vector<int> v) { done += v.empty(); });
  l.run();
  EXPECT_EQ(done, 2);
}

TEST(future, variadic_when_all_yields_a_tuple) {
  loop l(clock_kind::virtual_time);
  std::tuple<int, std::monostate, std::string> got;
  when_all(make_future<int>([&](auto cb) { op_after(l, 2 * ms, 1, cb); }),
           make_future([&](callback<> cb) { l.set_timeout(ms, [cb] { cb({}); }); }), make_ready_future(std::string("s")))
      .then([&](std::tuple<int, std::monostate, std::string> t) { got = std::move(t); });
  l.run();
  EXPECT_EQ(std::get<0>(got), 1);
  EXPECT_EQ(std::get<2>(got), "s");
}

TEST(future, when_all_completes_on_the_first_error_and_the_others_run_to_their_end) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::string msg;
    std::int64_t failed_at = -1;
    int finished = 0;
    std::vector<future<int>> fs;
    fs.push_back(make_future<int>([&](auto cb) { op_after(l, 10 * ms, 1, cb); }).then([&](int v) {
      ++finished;
      return v;
    }));
    fs.push_back(make_future<int>([&](auto cb) { failing_op_after(l, 2 * ms, "first", cb); }));
    fs.push_back(make_future<int>([&](auto cb) { failing_op_after(l, 4 * ms, "second", cb); }));
    when_all(std::move(fs)).then_callback([&](error e, std::vector<int>) {
      msg = e.message();
      failed_at = l.now_ns();
    });
    l.run();
    EXPECT_EQ(msg, "first");
    EXPECT_EQ(failed_at, 2 * ms);
    EXPECT_EQ(finished, 1);
    EXPECT_EQ(l.now_ns(), 10 * ms);
  }
  EXPECT_EQ(live_objects(), before) << "nothing leaks";
}

TEST(future, co_await_of_a_future_resumes_inline_and_a_ready_one_does_not_suspend) {
  loop l(clock_kind::virtual_time);
  std::string order;
  callback<int> complete;
  auto body = [&]() -> task<int> {
    int a = co_await make_ready_future(1);
    order += "a";
    int b = co_await make_future<int>([&](callback<int> cb) { complete = cb; });
    order += "c";
    co_return a + b;
  };
  int got = 0;
  start(body(), [&](error e, int v) {
    EXPECT_FALSE(e);
    got = v;
  });
  order += "b";
  complete({}, 2);
  EXPECT_EQ(order, "abc") << "resumed inside complete()";
  EXPECT_EQ(got, 3);
}

TEST(future, co_await_of_a_named_future_takes_it_as_then_does) {
  // `co_await f` did not compile ("discards qualifiers"), while f.then(...) did.
  loop l(clock_kind::virtual_time);
  bool emptied = false;
  auto body = [&]() -> task<int> {
    auto f = make_future<int>([](callback<int> cb) { cb({}, 4); });
    int v = co_await f;
    emptied = !f.valid();
    co_return v;
  };
  int got = 0;
  start(body(), [&](error e, int v) { got = e ? -1 : v; });
  l.run();
  EXPECT_EQ(got, 4);
  EXPECT_TRUE(emptied);
}

TEST(future, co_await_of_a_failed_future_throws_and_settle_returns_the_error) {
  std::string thrown;
  result<int> settled;
  auto body = [&]() -> task<> {
    try {
      co_await make_failed_future<int>(error("thrown"));
    } catch (const error_exception& e) {
      thrown = e.error().message();
    }
    settled = co_await settle(make_failed_future<int>(error("settled")));
  };
  start(body(), {});
  EXPECT_EQ(thrown, "thrown");
  EXPECT_EQ(settled.err.message(), "settled");
}

// ---- lifetimes --------------------------------------------------------------

TEST(future_layout, a_then_whose_handler_captures_nothing_keeps_no_bytes_for_it) {
  // A state that is also the continuation of its source, and the handlers:
  // none when they hold nothing (as promise's then states since Round 18; a
  // union for them always took a word).
  auto nothing = [](std::int64_t v) { return v; };
  auto one_word = [w = std::int64_t{1}](std::int64_t v) { return v + w; };
  using empty_then = detail::then_fstate<std::int64_t, std::int64_t, decltype(nothing), detail::pass_through>;
  using word_then = detail::then_fstate<std::int64_t, std::int64_t, decltype(one_word), detail::pass_through>;
  EXPECT_EQ(sizeof(empty_then), sizeof(detail::future_state<std::int64_t>) + sizeof(detail::future_continuation));
  EXPECT_EQ(sizeof(word_then), sizeof(empty_then) + sizeof(std::int64_t));
}

TEST(future_layout, the_waiting_continuation_shares_its_slot_with_the_outcome) {
  // A continuation waits only while the state is pending, and runs when it
  // settles: a future state is its handler header (ops, count, flags) and
  // one slot, the continuation's pointer or the outcome, whichever is larger.
  using header = detail::handler_for<std::int64_t>;
  EXPECT_EQ(sizeof(detail::future_state<std::int64_t>), sizeof(header) + sizeof(std::int64_t));
  EXPECT_EQ(sizeof(detail::future_state<void>), sizeof(header) + sizeof(void*));
  struct big {
    std::int64_t a, b, c;
  };
  EXPECT_EQ(sizeof(detail::future_state<big>), sizeof(header) + sizeof(big));
}

TEST(future_lifetime, a_continuation_attached_from_inside_a_handler_still_runs) {
  // The handler of the first then attaches a continuation to the second
  // then's future while that state is still pending; settling it (with the
  // handler's result) must hand that continuation the value, not lose it in
  // the slot the value takes.
  loop l(clock_kind::virtual_time);
  future<std::int64_t> second;
  std::int64_t seen = 0;
  second = make_future<std::int64_t>([&](callback<std::int64_t> cb) { l.set_timeout(ms, [cb] { cb({}, 20); }); })
               .then([&](std::int64_t v) {
                 std::move(second).then_callback([&](error e, std::int64_t w) { seen = e ? -1 : w; });
                 return v + 1;
               });
  l.run();
  EXPECT_EQ(seen, 21);
}

TEST(future_lifetime, a_value_passes_along_a_chain_by_moves_only) {
  counted::reset();
  {
    loop l(clock_kind::virtual_time);
    make_future<counted>([&](callback<counted> cb) { l.set_timeout(ms, [cb] { cb({}, counted(1)); }); })
        .then([](counted c) { return c; })
        .then([](counted&& c) { return make_ready_future(std::move(c)); })
        .then([](const counted& c) { EXPECT_EQ(c.id, 1); });
    l.run();
  }
  EXPECT_EQ(counted::copy_constructions, 0);
  EXPECT_EQ(counted::active(), 0);
}

TEST(future_lifetime, a_dropped_future_and_an_abandoned_operation_free_everything) {
  counted::reset();
  const auto before = live_objects();
  {
    callback<int> kept;
    make_future<int>([&](callback<int> cb) { kept = cb; })
        .then([c = counted(1)](int v) { return v; })
        .then([c = counted(2)](int v) { return v; });
    EXPECT_EQ(counted::active(), 2);
  } // the operation drops its callback without calling it
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(live_objects(), before);
}

TEST(future_lifetime, a_join_whose_input_is_abandoned_frees_everything_and_never_completes) {
  // Each continuation is told its source when it fires; an abandoned one is
  // told nullptr (when_all's slots, variadic slots and a forwarding then).
  counted::reset();
  const auto before = live_objects();
  bool completed = false;
  {
    callback<int> kept, kept2, kept3;
    std::vector<future<int>> fs;
    fs.push_back(make_future<int>([&](callback<int> cb) { kept = cb; }));
    fs.push_back(make_ready_future(2));
    when_all(std::move(fs)).then([&, c = counted(1)](std::vector<int>) { completed = true; });
    when_all(make_future<int>([&](callback<int> cb) { kept2 = cb; }), make_ready_future(3)).then([&, c = counted(2)](auto) {
      completed = true;
    });
    // A then whose handler returned a pending future, and nobody waits on it yet: it forwards.
    callback<int> outer;
    auto forwarding = make_future<int>([&](callback<int> cb) { outer = cb; }).then([&](int) {
      return make_future<int>([&](callback<int> cb) { kept3 = cb; });
    });
    outer({}, 1);
    EXPECT_EQ(counted::active(), 2);
  } // every pending operation drops its callback without calling it
  EXPECT_FALSE(completed);
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(live_objects(), before);
}

TEST(future_lifetime, a_join_that_failed_first_and_then_lost_an_input_frees_everything) {
  // The inputs hold one reference to the join between them: the first error
  // hands the join on while an input still runs, and that input, abandoned,
  // is the one that lets the join go.
  const auto before = live_objects();
  std::string msg;
  {
    callback<int> failing, kept;
    std::vector<future<int>> fs;
    fs.push_back(make_future<int>([&](callback<int> cb) { failing = cb; }));
    fs.push_back(make_future<int>([&](callback<int> cb) { kept = cb; }));
    when_all(std::move(fs)).then_callback([&](error e, std::vector<int>) { msg = e.message(); });
    failing(error("first"));
    EXPECT_EQ(msg, "first") << "the first error completes the join at once";
    failing = {};
    EXPECT_EQ(live_objects() - before, 3) << "the input still running, and the join and its slots, which it holds";
  } // kept goes without being called
  EXPECT_EQ(live_objects(), before);
}

TEST(future_lifetime, then_on_a_ready_future_re_uses_its_state) {
  const auto allocs = detail::memory_snapshot().allocs;
  auto f = make_ready_future(1).then([](int v) { return v + 1; }).then([](int v) { return v * 2; });
  EXPECT_EQ(detail::memory_snapshot().allocs - allocs, 1u) << "one state for the whole ready chain";
  EXPECT_EQ(std::move(f).get(), 4);
}

// ---- no stack growth ----------------------------------------------------------

TEST(future_stack, a_million_synchronous_completions_use_constant_stack) {
  const auto before = live_objects();
  const char* base = asyncshift::test::stack_here();
  std::size_t deepest = 0;
  future<int> f = make_ready_future(0);
  for (int i = 0; i < 1'000'000; ++i)
    f = std::move(f).then([&](int x) {
      deepest = std::max(deepest, asyncshift::test::stack_depth_below(base));
      return make_future<int>([x](callback<int> cb) { cb({}, x + 1); });
    });
  EXPECT_EQ(std::move(f).get(), 1'000'000);
  EXPECT_LT(deepest, 64u * 1024);
  EXPECT_EQ(live_objects(), before);
}

TEST(future_stack, a_prebuilt_chain_of_a_million_continuations_completes_in_constant_stack) {
  const auto before = live_objects();
  {
    const char* base = asyncshift::test::stack_here();
    std::size_t deepest = 0;
    callback<int> complete;
    future<int> f = make_future<int>([&](callback<int> cb) { complete = cb; });
    for (int i = 0; i < 1'000'000; ++i)
      f = std::move(f).then([&](int x) {
        deepest = std::max(deepest, asyncshift::test::stack_depth_below(base));
        if (x % 2) return make_ready_future(x + 1);
        return make_future<int>([x](callback<int> cb) { cb({}, x + 1); });
      });
    int got = 0;
    std::move(f).then([&](int v) { got = v; });
    complete({}, 0);
    EXPECT_EQ(got, 1'000'000);
    EXPECT_LT(deepest, 64u * 1024);
  }
  EXPECT_EQ(live_objects(), before);
}

// A future whose producer goes without delivering takes a million `then`s
// with it, each told in turn, not a million nested destructors deep.
TEST(future_stack, a_million_thens_on_a_future_that_never_settles_go_in_constant_stack) {
  const auto before = live_objects();
  {
    const char* base = asyncshift::test::stack_here();
    std::size_t deepest = 0;
    int ran = 0;
    std::optional<callback<int>> producer;
    future<int> f = make_future<int>([&](callback<int> cb) { producer.emplace(std::move(cb)); });
    {
      const asyncshift::test::stack_probe probe(&deepest, base);
      for (int i = 0; i < 1'000'000; ++i)
        f = std::move(f).then([probe, &ran](int x) {
          ++ran;
          return x + 1;
        });
    }
    deepest = 0; // what building the chain did is not measured
    producer.reset(); // the first state dies unsettled, and every state but the last with it
    EXPECT_GT(deepest, 0u) << "the handlers went with their states";
    EXPECT_LT(deepest, 64u * 1024) << "bytes of stack below the test";
    f = {};
    EXPECT_EQ(ran, 0);
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(future, settle_in_a_chain_gives_the_outcome_as_a_value) {
  std::string msg;
  bool void_ok = false;
  settle(make_failed_future<int>(error("as a value"))).then([&](result<int> r) { msg = r.err.message(); });
  settle(make_ready_future()).then([&](error e) { void_ok = !e; });
  EXPECT_EQ(msg, "as a value");
  EXPECT_TRUE(void_ok);
  loop l(clock_kind::virtual_time);
  int value = 0;
  settle(make_future<int>([&](auto cb) { op_after(l, ms, 3, cb); })).then([&](result<int> r) { value = r.value; });
  l.run();
  EXPECT_EQ(value, 3);
}

// make_future(start, on_error(cleanup)): what the tool prints for
// `if (err) { cleanup; return done(err); }`.

TEST(future, on_error_runs_the_cleanup_before_the_future_fails) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> order;
  std::string msg;
  make_future<int>([&](auto cb) { failing_op_after(l, ms, "io failed", cb); }, on_error([&](const error& e) {
                     EXPECT_EQ(e.message(), "io failed");
                     order.push_back("cleanup");
                   }))
      .then([](int) { ADD_FAILURE() << "must stay failed"; },
            [&](error e) {
              order.push_back("failed");
              msg = e.message();
            });
  l.run();
  EXPECT_EQ(order, (std::vector<std::string>{"cleanup", "failed"}));
  EXPECT_EQ(msg, "io failed");
}

TEST(future, on_error_cleanup_never_runs_on_success_and_is_freed_when_the_op_completes) {
  loop l(clock_kind::virtual_time);
  counted::reset();
  int got = 0;
  const auto before = live_objects();
  {
    auto f = make_future<int>([&](auto cb) { op_after(l, ms, 5, cb); },
                              on_error([c = counted(1)] { ADD_FAILURE() << "no error"; }));
    l.run();
    EXPECT_EQ(counted::active(), 0) << "the cleanup's captures go when the op completes, not with the future";
    std::move(f).then([&](int v) { got = v; });
  }
  EXPECT_EQ(got, 5);
  EXPECT_EQ(live_objects(), before);
}

TEST(future, on_error_cleanup_of_a_synchronous_failure_runs_once_and_a_throwing_one_replaces_the_error) {
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  auto f = make_future<int>([](auto cb) { cb(error("at once")); }, on_error([&] {
                              ++cleanups;
                              throw std::runtime_error("cleanup failed");
                            }));
  EXPECT_EQ(cleanups, 1);
  ASSERT_TRUE(f.is_ready());
  EXPECT_EQ(f.get_error().message(), "cleanup failed");
}

TEST(future, a_cleanup_that_cancels_its_operation_sees_it_complete_once_and_that_outcome_wins) {
  // start keeps the callback, starts the operation and then throws; the
  // cleanup cancels the operation, which completes at once, through that
  // callback, from inside the cleanup. The state is settled by then: the
  // start failure must not settle it a second time (a second error over the
  // first, or a value read as the waiting continuation), and the cleanup
  // runs once.
  for (const bool with_value : {false, true}) {
    SCOPED_TRACE(with_value ? "the operation completes with a value" : "the operation fails");
    loop l(clock_kind::virtual_time);
    callback<int> op;
    int cleanups = 0;
    auto f = make_future<int>(
        [&](callback<int> cb) {
          op = cb;
          throw std::runtime_error("start failed");
        },
        on_error([&] {
          ++cleanups;
          callback<int> cancel = std::move(op);
          if (with_value)
            cancel({}, 7);
          else
            cancel(error("cancelled"));
        }));
    EXPECT_EQ(cleanups, 1);
    ASSERT_TRUE(f.is_ready());
    int outcomes = 0;
    std::move(f).then_callback([&](error e, int v) {
      ++outcomes;
      if (with_value) {
        EXPECT_FALSE(e);
        EXPECT_EQ(v, 7);
      } else {
        EXPECT_EQ(e.message(), "cancelled");
      }
    });
    EXPECT_EQ(outcomes, 1);
  }
}

TEST(future, on_error_cleanup_runs_when_start_throws) {
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  auto f = make_future<int>([](auto) -> void { throw std::runtime_error("start failed"); }, on_error([&] { ++cleanups; }));
  EXPECT_EQ(cleanups, 1);
  EXPECT_EQ(f.get_error().message(), "start failed");
}

TEST(future_lifetime, a_value_whose_move_throws_fails_the_then_and_the_waiting_continuation_still_runs) {
  // The value's move writes into the slot the waiting continuation shares
  // with the outcome before it throws; the failure that follows must still
  // find it.
  loop l(clock_kind::virtual_time);
  std::string msg;
  int outcomes = 0;
  make_future<int>([&](callback<int> cb) { l.set_timeout(ms, [cb] { cb({}, 1); }); })
      .then([](int) { return poisoned_move(-1); })
      .then([](const poisoned_move&) { ADD_FAILURE() << "must fail"; },
            [&](error e) {
              ++outcomes;
              msg = e.message();
            });
  l.run();
  EXPECT_EQ(outcomes, 1);
  EXPECT_EQ(msg, "move threw");
}
