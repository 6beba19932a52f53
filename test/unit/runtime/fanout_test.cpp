// when_all(n, f) of fanout.hpp, what generated code uses for
// asyncshift::parallel(n, branch, done) in the coroutine styles: branches
// that are lambda coroutines (their captures live in the lambda, not in the
// frames) and branches that are one promisify'd operation each.
#include "counted.hpp"
#include "sleep_for.hpp"

#include <asyncshift/fanout.hpp>
#include <asyncshift/loop.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace asyncshift;
using asyncshift::test::counted;
using asyncshift::test::live_objects;
using asyncshift::test::ms;
using asyncshift::test::sleep_for;

TEST(fanout_when_all, task_branches_yield_their_values_in_index_order) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::vector<int> got;
    auto body = [&]() -> task<> {
      got = co_await when_all(4, [&l](std::size_t i) -> task<int> {
        co_await sleep_for(l, static_cast<std::int64_t>(4 - i) * ms); // the last finishes first
        co_return static_cast<int>(i * 10);
      });
    };
    start(body(), [](error e) { EXPECT_FALSE(e); });
    l.run();
    EXPECT_EQ(got, (std::vector<int>{0, 10, 20, 30}));
  }
  EXPECT_EQ(live_objects(), before) << "frames, the join and its callback were freed";
}

TEST(fanout_when_all, of_no_branches_and_of_synchronous_branches_completes) {
  loop l(clock_kind::virtual_time);
  std::vector<int> none{1}, sync;
  int void_branches = 0;
  auto body = [&]() -> task<> {
    none = co_await when_all(0, [](std::size_t) -> task<int> { co_return 1; });
    sync = co_await when_all(3, [](std::size_t i) -> task<int> { co_return static_cast<int>(i); });
    co_await when_all(2, [&](std::size_t) -> task<> {
      ++void_branches;
      co_return;
    });
  };
  bool done = false;
  start(body(), [&](error e) {
    EXPECT_FALSE(e);
    done = true;
  });
  l.run();
  EXPECT_TRUE(done);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(sync, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(void_branches, 2);
}

// After the first error the awaiting coroutine goes on (here: it ends), and
// the other branches run to their end. Their frames read the lambda's
// captures, so the lambda must live until the last of them has finished,
// and not a moment longer.
TEST(fanout_when_all, the_lambda_lives_until_the_last_branch_ends_after_the_first_error) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::vector<int> seen;
    int alive_at_the_end = -1;
    std::string msg;
    std::int64_t failed_at = -1;
    auto body = [&]() -> task<> {
      // Declared, not written inside the co_await: g++ 12 destroys a lambda
      // that is a temporary of a co_await expression twice (as generated code
      // does it; docs/design.md).
      auto branch = [&l, &seen, &alive_at_the_end, c = counted(7)](std::size_t i) -> task<int> {
        if (i == 1) {
          co_await sleep_for(l, ms);
          throw error_exception(error("branch 1"));
        }
        co_await sleep_for(l, static_cast<std::int64_t>(5 + i) * ms);
        seen.push_back(c.id); // the capture, read after the await has failed
        alive_at_the_end = counted::active();
        co_return c.id;
      };
      co_await when_all(3, std::move(branch));
    };
    start(body(), [&](error e) {
      msg = e.message();
      failed_at = l.now_ns();
    });
    l.run();
    EXPECT_EQ(msg, "branch 1");
    EXPECT_EQ(failed_at, ms) << "the first error completed the await";
    EXPECT_EQ(seen, (std::vector<int>{7, 7})) << "both other branches ran and read the capture";
    EXPECT_EQ(alive_at_the_end, 1) << "the lambda (and its counted capture) was still alive";
    EXPECT_EQ(l.now_ns(), 7 * ms);
  }
  EXPECT_EQ(counted::active(), 0) << "the lambda died with the last branch";
  EXPECT_EQ(live_objects(), before);
}

// One allocation per branch: its frame. (The branches' join slots are in
// one array, and completing a slot needs no callback block of its own.)
TEST(fanout_when_all, a_task_branch_costs_its_frame_and_nothing_more) {
  auto allocs_for = [](std::size_t n) {
    loop l(clock_kind::virtual_time);
    const auto before = detail::memory_snapshot().allocs;
    auto body = [&]() -> task<> {
      co_await when_all(n, [&l](std::size_t) -> task<int> {
        co_await sleep_for(l, ms);
        co_return 1;
      });
    };
    start(body(), [](error e) { EXPECT_FALSE(e); });
    l.run();
    return detail::memory_snapshot().allocs - before;
  };
  const auto ten = allocs_for(10), twenty = allocs_for(20);
  // Per branch: its frame, the sleep's frame, the timer's callback block.
  EXPECT_EQ((twenty - ten) / 10, 3u);
}

TEST(fanout_when_all, values_style_branches_fail_with_their_error_value) {
  loop l(clock_kind::virtual_time);
  result<std::vector<int>> r;
  error void_err;
  auto body = [&]() -> task<error> {
    r = co_await settle(when_all(3, [&l](std::size_t i) -> task<result<int>> {
      co_await sleep_for(l, ms);
      if (i == 2) co_return result<int>(error("two"));
      co_return result<int>(error{}, static_cast<int>(i));
    }));
    void_err = co_await settle(when_all(2, [](std::size_t i) -> task<error> { co_return i == 1 ? error("one") : error{}; }));
    co_return error{};
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(r.err.message(), "two");
  EXPECT_EQ(void_err.message(), "one");
}

TEST(fanout_when_all, operation_branches_yield_their_values) {
  loop l(clock_kind::virtual_time);
  std::vector<std::int64_t> got;
  auto body = [&]() -> task<> {
    got = co_await when_all(3, [&l](std::size_t i) {
      return promisify<std::int64_t>([&l, i](callback<std::int64_t> cb) {
        l.set_timeout(static_cast<std::int64_t>(3 - i) * ms, [cb, i] { cb({}, static_cast<std::int64_t>(i) + 100); });
      });
    });
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(got, (std::vector<std::int64_t>{100, 101, 102}));
}

// promise<T>::all(n, make) and when_all(n, make) over futures: what generated
// promise and future code uses for parallel(n, branch, done). Each input is
// made and joined in turn, as JavaScript's Promise.all over an iterable; no
// vector of n handles is built (the earlier all(map_n(n, make)) built one and walked it
// again: 7-9% of madeup_parallel's instructions in both styles).

TEST(fanout_all_of_n, promise_all_yields_values_in_index_order_and_makes_each_input_once_in_order) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::vector<std::size_t> made;
    std::vector<int> got;
    auto all = promise<int>::all(4, [&](std::size_t i) {
                 made.push_back(i);
                 if (i == 2) return promise<int>::resolve(20); // settled when made
                 return make_promise<int>([&l, i](callback<int> cb) {
                   l.set_timeout(static_cast<std::int64_t>(4 - i) * ms, [cb, i] { cb({}, static_cast<int>(i * 10)); });
                 });
               }).then([&](std::vector<int> v) { got = std::move(v); });
    EXPECT_EQ(made, (std::vector<std::size_t>{0, 1, 2, 3})) << "every input is made before all() returns";
    l.run();
    EXPECT_EQ(got, (std::vector<int>{0, 10, 20, 30}));
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(fanout_all_of_n, promise_all_rejects_with_the_first_rejection_and_of_nothing_fulfills) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  promise<int>::all(3, [&l](std::size_t i) {
    return make_promise<int>([&l, i](callback<int> cb) {
      l.set_timeout(static_cast<std::int64_t>(3 - i) * ms, [cb, i] {
        if (i == 0) return cb(error("zero, last"));
        if (i == 1) return cb(error("one, first"));
        cb({}, 2);
      });
    });
  }).then([](std::vector<int>) { ADD_FAILURE() << "fulfilled"; }, [&](const error& e) { msg = e.message(); });
  bool empty_done = false;
  promise<>::all(0, [](std::size_t) -> promise<> {
    ADD_FAILURE() << "made an input of nothing";
    return promise<>::resolve();
  }).then([&] { empty_done = true; });
  l.run();
  EXPECT_EQ(msg, "one, first");
  EXPECT_TRUE(empty_done);
}

// If making an input throws, the exception leaves all(); the inputs made so
// far run to their end, and the join goes with the last of them.
TEST(fanout_all_of_n, an_exception_from_make_leaves_all_and_frees_the_join_when_the_made_inputs_end) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    int ran = 0;
    // An operation that completes with 1 after a millisecond, counting itself.
    auto counted_op = [&](callback<int> cb) {
      l.set_timeout(ms, [&ran, cb] {
        ++ran;
        cb({}, 1);
      });
    };
    auto throws_at = [](std::size_t at, std::size_t i) {
      if (i == at) throw std::runtime_error("make");
    };
    EXPECT_THROW(promise<int>::all(5,
                                   [&](std::size_t i) {
                                     throws_at(2, i);
                                     return make_promise<int>(counted_op);
                                   }),
                 std::runtime_error);
    EXPECT_THROW(when_all(5,
                          [&](std::size_t i) {
                            throws_at(3, i);
                            return make_future<int>(counted_op);
                          }),
                 std::runtime_error);
    l.run();
    EXPECT_EQ(ran, 5) << "2 promise inputs and 3 future inputs were made and ran";
  }
  EXPECT_EQ(live_objects(), before) << "both joins died with their last input";
}

TEST(fanout_all_of_n, future_when_all_yields_values_in_index_order_and_the_first_error) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::vector<std::string> got;
    std::string msg;
    std::vector<std::size_t> made;
    auto strings = when_all(3, [&](std::size_t i) {
      made.push_back(i);
      if (i == 1) return make_ready_future_of<std::string>("one"); // ready when made
      return make_future<std::string>([&l, i](callback<std::string> cb) {
        l.set_timeout(static_cast<std::int64_t>(3 - i) * ms, [cb, i] { cb({}, std::to_string(i)); });
      });
    }).then([&](std::vector<std::string> v) { got = std::move(v); });
    EXPECT_EQ(made, (std::vector<std::size_t>{0, 1, 2}));
    auto failing = when_all(2, [&l](std::size_t i) {
      return make_future([&l, i](callback<> cb) {
        l.set_timeout(static_cast<std::int64_t>(2 - i) * ms, [cb, i] { cb(i == 1 ? error("one") : error{}); });
      });
    }).then([] { ADD_FAILURE() << "fulfilled"; }).tap_error([&](const error& e) { msg = e.message(); });
    bool empty_done = false;
    auto nothing = when_all(0, [](std::size_t) { return make_ready_future(); }).then([&] { empty_done = true; });
    l.run();
    EXPECT_EQ(got, (std::vector<std::string>{"0", "one", "2"}));
    EXPECT_EQ(msg, "one");
    EXPECT_TRUE(empty_done);
  }
  EXPECT_EQ(live_objects(), before);
}

// make_future(when_all(n, f)[, on_error(g)]) and make_promise(...) of the
// same, with f returning promisify(...): what generated future and promise
// code uses for a parallel whose branches are one operation each. The
// operations complete parallel()'s join directly: no future or promise per
// branch. A promise's own reactions still run from microtasks. Each helper
// below runs one case with \p make (make_future or make_promise).

namespace {

const auto future_of = [](auto&& op, auto&&... cleanup) { return make_future(std::move(op), cleanup...); };
const auto promise_of = [](auto&& op, auto&&... cleanup) { return make_promise(std::move(op), cleanup...); };

template <class Make>
void yields_values_in_order_and_the_first_error(Make make, bool reactions_wait) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::vector<std::int64_t> got;
    std::vector<std::size_t> started;
    const auto allocs = detail::memory_snapshot().allocs;
    auto values = make(when_all(3, [&](std::size_t i) {
      return promisify<std::int64_t>([&, i](auto cb) {
        started.push_back(i);
        if (i == 1) return cb({}, 101); // completes at once
        l.set_timeout(static_cast<std::int64_t>(3 - i) * ms, [cb, i] { cb({}, static_cast<std::int64_t>(i) + 100); });
      });
    }));
    EXPECT_EQ(started, (std::vector<std::size_t>{0, 1, 2})) << "every operation starts at once, in order";
    // The state, parallel's join and its values, and the two pending
    // timers: nothing per branch beyond what the operations keep (a future
    // or promise per branch would be three more states).
    EXPECT_EQ(detail::memory_snapshot().allocs - allocs, 5u);
    std::move(values).then([&](std::vector<std::int64_t> v) { got = std::move(v); });

    std::string msg;
    int later = 0;
    make(when_all(2, [&](std::size_t i) {
      return promisify([&, i](callback<> cb) {
        l.set_timeout(static_cast<std::int64_t>(i + 1) * ms, [cb, i, &later] {
          if (i == 1) ++later; // runs to its end after the first error
          cb(i == 0 ? error("first") : error("second"));
        });
      });
    })).then([] { ADD_FAILURE() << "fulfilled"; }, [&](error e) { msg = e.message(); });
    bool empty_done = false;
    make(when_all(0, [](std::size_t) { return promisify([](callback<> cb) { cb({}); }); })).then([&] {
      empty_done = true;
    });
    EXPECT_EQ(empty_done, !reactions_wait) << "a promise's reaction to a settled promise waits for a microtask";
    l.run();
    EXPECT_EQ(got, (std::vector<std::int64_t>{100, 101, 102}));
    EXPECT_EQ(msg, "first");
    EXPECT_EQ(later, 1);
    EXPECT_TRUE(empty_done);
  }
  EXPECT_EQ(live_objects(), before);
}

// With on_error(g) (madeup_parallel's rollback): g runs inline on the first
// error, before the future fails or the promise rejects, and never on
// success; no second state is made for it. \p expected: the events in order.
template <class Make>
void runs_its_cleanup_first_and_only_on_error(Make make, const std::vector<std::string>& expected) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::vector<std::string> events;
    auto fail_second = [&](std::size_t i) {
      return promisify([&, i](callback<> cb) {
        l.set_timeout(static_cast<std::int64_t>(i + 1) * ms, [cb, i, &events] {
          cb(i == 1 ? error("second") : error{});
          if (i == 1) events.push_back("after the failing callback");
        });
      });
    };
    const auto allocs = detail::memory_snapshot().allocs;
    auto failing = make(when_all(3, fail_second),
                        on_error([&](const error& e) { events.push_back("cleanup " + std::string(e.message())); }));
    // The state (with the cleanup), parallel's join and three timers.
    EXPECT_EQ(detail::memory_snapshot().allocs - allocs, 5u);
    std::move(failing).then([&] { events.push_back("fulfilled"); },
                            [&](error e) { events.push_back("failed " + std::string(e.message())); });
    make(when_all(2, [&](std::size_t) { return promisify([&l](callback<> cb) { l.set_timeout(1 * ms, [cb] { cb({}); }); }); }),
         on_error([&] { events.push_back("cleanup on success"); }))
        .then([&] { events.push_back("succeeded"); });
    l.run();
    EXPECT_EQ(events, expected);
  }
  EXPECT_EQ(live_objects(), before);
}

} // namespace

TEST(fanout_operation_future, yields_values_in_index_order_the_first_error_and_makes_one_future) {
  yields_values_in_order_and_the_first_error(future_of, false);
}

TEST(fanout_operation_future, runs_its_cleanup_before_failing_and_only_on_error) {
  // A future's continuation runs inline, inside the failing callback.
  runs_its_cleanup_first_and_only_on_error(
      future_of, {"succeeded", "cleanup second", "failed second", "after the failing callback"});
}

TEST(fanout_operation_promise, yields_values_in_index_order_the_first_error_and_makes_one_promise) {
  yields_values_in_order_and_the_first_error(promise_of, true);
}

TEST(fanout_operation_promise, runs_its_cleanup_before_rejecting_and_only_on_error) {
  // The cleanup runs inline in the failing callback; the reaction waits for its microtask.
  runs_its_cleanup_first_and_only_on_error(
      promise_of, {"succeeded", "cleanup second", "after the failing callback", "failed second"});
}

TEST(fanout_operation_promise, an_unhandled_rejection_is_reported_when_the_loop_ends) {
  loop l(clock_kind::virtual_time);
  make_promise(when_all(2, [](std::size_t i) { return promisify([i](callback<> cb) { cb(i == 1 ? error("lost") : error{}); }); }),
               on_error([] {}));
  l.run();
  EXPECT_EQ(l.unhandled_rejections(), 1u);
}
