// when_all over tasks (vector and variadic): values in order, the first error
// completes the await, the other branches run to their end detached and free
// their frames; plus task lifetimes and a million awaits without stack growth.
#include "counted.hpp"
#include "sleep_for.hpp"

#include <asyncshift/future.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/promisify.hpp>
#include <asyncshift/task.hpp>

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

using namespace asyncshift;
using asyncshift::test::counted;
using asyncshift::test::live_objects;
using asyncshift::test::ms;
using asyncshift::test::sleep_for;

namespace {

task<int> value_after(loop& l, std::int64_t delay, int v, int* finished = nullptr) {
  if (delay) co_await sleep_for(l, delay);
  if (finished) ++*finished;
  co_return v;
}

task<int> failure_after(loop& l, std::int64_t delay, std::string msg) {
  if (delay) co_await sleep_for(l, delay);
  throw error_exception(error(msg));
}

task<> void_failure_after(loop& l, std::int64_t delay, std::string msg) {
  co_await sleep_for(l, delay);
  throw error_exception(error(msg));
}

} // namespace

TEST(task_when_all, yields_the_values_in_order) {
  loop l(clock_kind::virtual_time);
  std::vector<int> got;
  auto body = [&]() -> task<> {
    std::vector<task<int>> ts;
    for (int i = 0; i < 5; ++i) ts.push_back(value_after(l, (5 - i) * ms, i));
    got = co_await when_all(std::move(ts));
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(l.now_ns(), 5 * ms) << "all started at once";
}

TEST(task_when_all, of_synchronous_tasks_does_not_suspend) {
  std::vector<int> got;
  auto body = [&]() -> task<> {
    std::vector<task<int>> ts;
    for (int i = 0; i < 3; ++i) ts.push_back([](int v) -> task<int> { co_return v; }(i));
    got = co_await when_all(std::move(ts));
  };
  bool done = false;
  start(body(), [&](error e) { done = !e; });
  EXPECT_TRUE(done) << "completed without a loop";
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2}));
}

TEST(task_when_all, of_void_tasks_and_of_nothing_completes) {
  loop l(clock_kind::virtual_time);
  int done = 0;
  auto body = [&]() -> task<> {
    std::vector<task<>> ts;
    ts.push_back(sleep_for(l, ms));
    ts.push_back(sleep_for(l, 2 * ms));
    co_await when_all(std::move(ts));
    ++done;
    auto none = co_await when_all(std::vector<task<int>>{});
    done += none.empty();
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(done, 2);
}

TEST(task_when_all, variadic_yields_a_tuple_with_monostate_for_void) {
  loop l(clock_kind::virtual_time);
  std::tuple<int, std::monostate, std::string> got;
  auto text = [&]() -> task<std::string> {
    co_await sleep_for(l, ms);
    co_return "t";
  };
  auto body = [&]() -> task<> { got = co_await when_all(value_after(l, 2 * ms, 7), sleep_for(l, 3 * ms), text()); };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(std::get<0>(got), 7);
  EXPECT_EQ(std::get<2>(got), "t");
}

TEST(task_when_all, variadic_puts_each_value_in_its_place_when_elements_share_a_type) {
  // Sinks of one value type share a type: the join tells them apart by address.
  loop l(clock_kind::virtual_time);
  std::tuple<int, int, int> got;
  auto body = [&]() -> task<> {
    got = co_await when_all(value_after(l, 3 * ms, 1), value_after(l, ms, 2), value_after(l, 2 * ms, 3));
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(got, std::make_tuple(1, 2, 3));
}

TEST(task_when_all, the_first_error_completes_the_await_and_the_others_run_to_their_end) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    int finished = 0;
    std::string msg;
    std::int64_t caught_at = -1;
    auto body = [&]() -> task<> {
      std::vector<task<int>> ts;
      ts.push_back(value_after(l, 10 * ms, 1, &finished));
      ts.push_back(failure_after(l, 2 * ms, "first"));
      ts.push_back(failure_after(l, 4 * ms, "second"));
      ts.push_back(value_after(l, 6 * ms, 3, &finished));
      try {
        co_await when_all(std::move(ts));
      } catch (const error_exception& e) {
        msg = e.error().message();
        caught_at = l.now_ns();
      }
    };
    bool body_done = false;
    start(body(), [&](error e) {
      EXPECT_FALSE(e);
      body_done = true;
    });
    l.run();
    EXPECT_TRUE(body_done);
    EXPECT_EQ(msg, "first");
    EXPECT_EQ(caught_at, 2 * ms);
    EXPECT_EQ(finished, 2) << "both slow branches ran to their end";
    EXPECT_EQ(l.now_ns(), 10 * ms);
  }
  EXPECT_EQ(live_objects(), before) << "every frame and the join were freed";
}

TEST(task_when_all, branches_outlive_the_awaiting_coroutine_and_keep_what_they_own) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    int seen = 0;
    auto holder = [&](counted c) -> task<int> {
      co_await sleep_for(l, 5 * ms);
      seen = c.id;
      co_return c.id;
    };
    auto body = [&]() -> task<> {
      std::vector<task<int>> ts;
      ts.push_back(holder(counted(42)));
      ts.push_back(failure_after(l, ms, "early"));
      co_await when_all(std::move(ts)); // throws at 1 ms; this coroutine ends
    };
    std::string msg;
    start(body(), [&](error e) { msg = e.message(); });
    l.run();
    EXPECT_EQ(msg, "early");
    EXPECT_EQ(seen, 42) << "the branch's frame (and its counted argument) lived on";
  }
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(live_objects(), before);
}

TEST(task_when_all, settle_yields_the_error_or_the_values) {
  loop l(clock_kind::virtual_time);
  result<std::vector<int>> bad, good;
  error void_err;
  result<std::tuple<int, int>> tuple_bad;
  auto body = [&]() -> task<> {
    std::vector<task<int>> a;
    a.push_back(value_after(l, ms, 1));
    a.push_back(failure_after(l, 2 * ms, "settled"));
    bad = co_await settle(when_all(std::move(a)));
    std::vector<task<int>> b;
    b.push_back(value_after(l, ms, 1));
    good = co_await settle(when_all(std::move(b)));
    std::vector<task<>> c;
    c.push_back(void_failure_after(l, ms, "void"));
    void_err = co_await settle(when_all(std::move(c)));
    tuple_bad = co_await settle(when_all(value_after(l, 0, 1), failure_after(l, ms, "tuple")));
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(bad.err.message(), "settled");
  EXPECT_FALSE(good.err);
  EXPECT_EQ(good.value, (std::vector<int>{1}));
  EXPECT_EQ(void_err.message(), "void");
  EXPECT_EQ(tuple_bad.err.message(), "tuple");
}

TEST(task_when_all, values_style_branches_fail_with_their_error_value) {
  loop l(clock_kind::virtual_time);
  error got;
  std::vector<int> values;
  auto ok = [&](int v) -> task<result<int>> {
    co_await sleep_for(l, ms);
    co_return {{}, v};
  };
  auto bad = [&]() -> task<error> {
    co_await sleep_for(l, 2 * ms);
    co_return error("as value");
  };
  auto body = [&]() -> task<error> {
    std::vector<task<result<int>>> a;
    a.push_back(ok(1));
    a.push_back(ok(2));
    auto r = co_await settle(when_all(std::move(a)));
    values = r.value;
    std::vector<task<error>> b;
    b.push_back(bad());
    got = co_await settle(when_all(std::move(b)));
    co_return error{};
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(values, (std::vector<int>{1, 2}));
  EXPECT_EQ(got.message(), "as value");
}

TEST(task_when_all, mixes_with_promises_and_futures_inside_branches) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  auto from_promise = [&]() -> task<int> {
    co_await sleep_for(l, ms);
    co_return co_await promise<int>::resolve(10);
  };
  auto from_future = [&]() -> task<int> { co_return co_await make_future<int>([&](callback<int> cb) { l.set_timeout(ms, [cb] { cb({}, 20); }); }); };
  auto body = [&]() -> task<> {
    auto [a, b] = co_await when_all(from_promise(), from_future());
    got = a + b;
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(got, 30);
}

// ---- task lifetimes and stack -------------------------------------------------

TEST(task_lifetime, a_returned_value_is_moved_not_copied) {
  counted::reset();
  {
    auto make = []() -> task<counted> { co_return counted(3); };
    auto outer = [&]() -> task<counted> { co_return co_await make(); };
    start(outer(), [](error e, counted c) {
      EXPECT_FALSE(e);
      EXPECT_EQ(c.id, 3);
    });
  }
  EXPECT_EQ(counted::copy_constructions, 0);
  EXPECT_EQ(counted::active(), 0);
}

TEST(task_lifetime, a_task_that_is_never_awaited_frees_its_frame_and_arguments) {
  counted::reset();
  const auto before = live_objects();
  {
    auto make = [](counted c) -> task<int> { co_return c.id; };
    task<int> t = make(counted(1));
    EXPECT_GE(counted::active(), 1);
  }
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(live_objects(), before);
}

TEST(task_stack, a_million_awaits_of_ready_futures_and_settled_promises_use_constant_stack) {
  loop l(clock_kind::virtual_time);
  const char* base = asyncshift::test::stack_here();
  std::size_t deepest = 0;
  long long sum = 0;
  auto body = [&]() -> task<> {
    for (int i = 0; i < 1'000'000; ++i) {
      sum += co_await make_future<int>([](callback<int> cb) { cb({}, 1); });
      deepest = std::max(deepest, asyncshift::test::stack_depth_below(base));
    }
    for (int i = 0; i < 1'000'000; ++i) {
      sum += co_await make_promise<int>([](callback<int> cb) { cb({}, 1); });
      deepest = std::max(deepest, asyncshift::test::stack_depth_below(base));
    }
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(sum, 2'000'000);
  EXPECT_LT(deepest, 64u * 1024);
}
