// Timers for users (timer.hpp, and loop::set_timeout with a std::chrono
// duration): one wait serves every style, on either clock.
#include <asyncshift/future.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/task.hpp>
#include <asyncshift/timer.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace asyncshift;
using namespace std::chrono_literals;

static_assert(detail::to_loop_ns(5ms) == 5'000'000);
static_assert(detail::to_loop_ns(std::chrono::duration<double, std::milli>(1.5)) == 1'500'000);
static_assert(detail::to_loop_ns(-3s) == 0, "a negative delay is zero, as setTimeout's is");
static_assert(detail::to_loop_ns(std::chrono::hours::max()) == std::numeric_limits<std::int64_t>::max(),
              "saturates instead of overflowing");
static_assert(detail::to_loop_ns(std::chrono::duration<double>(1e300)) == std::numeric_limits<std::int64_t>::max());

TEST(timer, set_timeout_takes_a_chrono_duration) {
  loop l(clock_kind::virtual_time);
  std::int64_t fired_at = -1;
  l.set_timeout(250us, [&] { fired_at = l.now_ns(); });
  l.run();
  EXPECT_EQ(fired_at, 250'000);
}

TEST(timer, after_completes_a_continuation_lambda_with_no_error_after_the_duration) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> trace;
  after(3ms, [&](error e) { trace.push_back("3ms at " + std::to_string(l.now_ns()) + (e ? " failed" : "")); });
  after(1ms, [&](error) { trace.push_back("1ms at " + std::to_string(l.now_ns())); });
  l.run();
  EXPECT_EQ(trace, (std::vector<std::string>{"1ms at 1000000", "3ms at 3000000"}));
}

TEST(timer, after_completes_a_callback) {
  loop l(clock_kind::virtual_time);
  int calls = 0;
  callback<> cb([&](error e) { calls += e ? 100 : 1; });
  after(2ms, cb);
  l.run();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(l.now_ns(), 2'000'000);
}

TEST(timer, a_zero_or_negative_wait_still_completes_from_the_loop_not_inline) {
  loop l(clock_kind::virtual_time);
  bool fired = false;
  after(-5ms, [&](error) { fired = true; });
  EXPECT_FALSE(fired);
  l.run();
  EXPECT_TRUE(fired);
  EXPECT_EQ(l.now_ns(), 0);
}

static task<std::int64_t> three_sleeps(loop& l) {
  co_await sleep_for(1ms);
  co_await sleep_for(2ms);
  co_await sleep_for(std::chrono::duration<double, std::milli>(0.5));
  co_return l.now_ns();
}

TEST(timer, sleep_for_is_awaited_in_a_task) {
  loop l(clock_kind::virtual_time);
  std::int64_t got = -1;
  start(three_sleeps(l), [&](error e, std::int64_t at) { got = e ? -2 : at; });
  l.run();
  EXPECT_EQ(got, 3'500'000);
}

TEST(timer, sleep_for_becomes_a_promise_and_a_future) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> trace;
  make_promise(sleep_for(4ms)).then([&] { trace.push_back("promise at " + std::to_string(l.now_ns())); });
  make_future(sleep_for(2ms)).then([&] { trace.push_back("future at " + std::to_string(l.now_ns())); });
  l.run();
  EXPECT_EQ(trace, (std::vector<std::string>{"future at 2000000", "promise at 4000000"}));
}

TEST(timer, a_sleep_starts_when_it_is_awaited_not_when_it_is_made) {
  loop l(clock_kind::virtual_time);
  std::int64_t got = -1;
  auto later = [](loop& l) -> task<std::int64_t> {
    auto wait = sleep_for(1ms);
    co_await sleep_for(5ms);
    co_await std::move(wait);
    co_return l.now_ns();
  };
  start(later(l), [&](error, std::int64_t at) { got = at; });
  l.run();
  EXPECT_EQ(got, 6'000'000);
}

TEST(timer, on_the_real_clock_a_sleep_lasts_at_least_its_duration) {
  // A lower bound only (a correctness check, not a timing target).
  loop l(clock_kind::real);
  const auto t0 = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration took{};
  make_promise(sleep_for(2ms)).then([&] { took = std::chrono::steady_clock::now() - t0; });
  l.run();
  EXPECT_GE(took, 2ms);
}
