// series and waterfall, the caolan/async combinators.
#include "counted.hpp"

#include <asyncshift/combinators.hpp>
#include <asyncshift/loop.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace asyncshift;
using asyncshift::test::live_objects;

namespace {
constexpr std::int64_t ms = 1'000'000;
}

TEST(series, runs_steps_one_after_another_and_collects_their_values) {
  loop l(clock_kind::virtual_time);
  std::vector<std::int64_t> started;
  std::vector<int> got;
  series<int>(
      4,
      [&](std::size_t i, callback<int> cb) {
        started.push_back(l.now_ns());
        l.set_timeout(ms, [cb, i] { cb({}, static_cast<int>(i * 10)); });
      },
      [&](error e, std::vector<int> v) {
        EXPECT_FALSE(e);
        got = std::move(v);
      });
  l.run();
  EXPECT_EQ(got, (std::vector<int>{0, 10, 20, 30}));
  EXPECT_EQ(started, (std::vector<std::int64_t>{0, ms, 2 * ms, 3 * ms}));
}

TEST(series, stops_at_the_first_error) {
  int ran = 0;
  std::string msg;
  series<int>(
      5,
      [&](std::size_t i, callback<int> cb) {
        ++ran;
        if (i == 2) return cb(error("step 2"));
        cb({}, 1);
      },
      [&](error e, std::vector<int>) { msg = e.message(); });
  EXPECT_EQ(ran, 3);
  EXPECT_EQ(msg, "step 2");
}

TEST(series, a_million_synchronous_steps_use_constant_stack) {
  const auto before = live_objects();
  const char* base = asyncshift::test::stack_here();
  std::size_t deepest = 0;
  std::size_t n = 0;
  series<int>(
      1'000'000,
      [&](std::size_t, callback<int> cb) {
        deepest = std::max(deepest, asyncshift::test::stack_depth_below(base));
        cb({}, 1);
      },
      [&](error e, std::vector<int> v) {
        EXPECT_FALSE(e);
        n = v.size();
      });
  EXPECT_EQ(n, 1'000'000u);
  EXPECT_LT(deepest, 64u * 1024);
  EXPECT_EQ(live_objects(), before);
}

TEST(series, without_values_is_each_series) {
  int ran = 0;
  bool done = false;
  series(3, [&](std::size_t, callback<> cb) {
    ++ran;
    cb({});
  }, callback<>([&](error e) { done = !e; }));
  EXPECT_EQ(ran, 3);
  EXPECT_TRUE(done);
}

TEST(waterfall, passes_each_value_to_the_next_task) {
  loop l(clock_kind::virtual_time);
  std::size_t got = 0;
  waterfall([](callback<int> cb) { cb({}, 3); },
            [&](int x, callback<std::string> cb) { l.set_timeout(ms, [cb, x] { cb({}, std::string(static_cast<std::size_t>(x), 'a')); }); },
            [](std::string s, callback<std::size_t> cb) { cb({}, s.size() * 2); },
            [&](error e, std::size_t n) {
              EXPECT_FALSE(e);
              got = n;
            });
  l.run();
  EXPECT_EQ(got, 6u);
}

TEST(waterfall, stops_at_the_first_error) {
  int later = 0;
  std::string msg;
  waterfall([](callback<> cb) { cb(error("first task failed")); }, [&](callback<int> cb) {
    ++later;
    cb({}, 1);
  }, [&](error e, int) { msg = e.message(); });
  EXPECT_EQ(later, 0);
  EXPECT_EQ(msg, "first task failed");
}

TEST(waterfall, with_no_tasks_completes_at_once) {
  bool done = false;
  waterfall([&](error e) { done = !e; });
  EXPECT_TRUE(done);
}

TEST(waterfall, frees_its_tasks_when_done) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    waterfall([&](callback<int> cb) { l.set_timeout(ms, [cb] { cb({}, 1); }); }, [](int v, callback<int> cb) { cb({}, v + 1); },
              [](error, int) {});
    l.run();
  }
  EXPECT_EQ(live_objects(), before);
}
