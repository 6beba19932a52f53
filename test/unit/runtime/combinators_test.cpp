// parallel and each_series (SPEC §3's callback combinators).
#include <asyncshift/combinators.hpp>
#include <asyncshift/loop.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace asyncshift;

TEST(parallel, results_arrive_in_index_order_whatever_the_completion_order) {
  loop l(clock_kind::virtual_time);
  std::vector<int> got;
  parallel<int>(
      4, [&](std::size_t i, callback<int> cb) { l.set_timeout(100 - static_cast<std::int64_t>(i), [=] { cb({}, int(i) * 10); }); },
      [&](error e, std::vector<int> v) {
        ASSERT_FALSE(e);
        got = v;
      });
  l.run();
  EXPECT_EQ(got, (std::vector<int>{0, 10, 20, 30}));
}

TEST(parallel, the_first_error_completes_and_later_outcomes_are_ignored) {
  loop l(clock_kind::virtual_time);
  int calls = 0;
  int finished = 0;
  std::string msg;
  parallel(
      3,
      [&](std::size_t i, callback<> cb) {
        l.set_timeout(static_cast<std::int64_t>(i + 1), [=, &finished] {
          ++finished;
          cb(i == 0 ? error() : error("branch " + std::to_string(i)));
        });
      },
      [&](error e) {
        ++calls;
        msg = e.message();
      });
  l.run();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(msg, "branch 1");
  EXPECT_EQ(finished, 3) << "nothing is cancelled";
}

// A branch's value waits in its sink, over the sink's first word; the mark
// that a debug build sets on the first call lies beyond it, so a second
// call of the same branch is still caught (it would read the value as the
// sink's ops otherwise).
TEST(parallel, a_branch_that_calls_back_twice_is_caught_in_debug_builds) {
  std::vector<callback<std::int64_t>> pending;
  std::vector<std::int64_t> got;
  parallel<std::int64_t>(2, [&](std::size_t, callback<std::int64_t> cb) { pending.push_back(std::move(cb)); },
                         [&](error e, std::vector<std::int64_t> v) {
                           EXPECT_FALSE(e);
                           got = std::move(v);
                         });
  pending[0]({}, 42);
  EXPECT_DEATH(pending[0]({}, 43), "called twice"); // in a child process: here branch 0 has called once
  pending[1]({}, 7);
  EXPECT_EQ(got, (std::vector<std::int64_t>{42, 7}));
}

// Values that wait in their sinks: a move-only one (trivially copyable all
// the same), and enough branches that the sinks' pages go back while the
// values are handed over, completed in reverse order.
TEST(parallel, move_only_word_sized_values_are_handed_over) {
  struct ticket {
    std::int64_t n = 0;
    ticket() = default;
    explicit ticket(std::int64_t v) : n(v) {}
    ticket(ticket&&) = default;
    ticket& operator=(ticket&&) = default;
  };
  std::vector<callback<ticket>> pending;
  std::vector<ticket> got;
  parallel<ticket>(3, [&](std::size_t, callback<ticket> cb) { pending.push_back(std::move(cb)); },
                   [&](error e, std::vector<ticket> v) {
                     EXPECT_FALSE(e);
                     got = std::move(v);
                   });
  for (std::size_t i = 3; i-- > 0;) pending[i]({}, ticket(static_cast<std::int64_t>(10 * i)));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].n, 0);
  EXPECT_EQ(got[2].n, 20);
}

TEST(parallel, a_large_fan_out_hands_its_values_over_in_index_order) {
  constexpr std::size_t n = 300000; // sinks over several 2 MB pages, given back as they are read
  std::vector<callback<std::int64_t>> pending;
  pending.reserve(n);
  std::vector<std::int64_t> got;
  parallel<std::int64_t>(n, [&](std::size_t, callback<std::int64_t> cb) { pending.push_back(std::move(cb)); },
                         [&](error e, std::vector<std::int64_t> v) {
                           EXPECT_FALSE(e);
                           got = std::move(v);
                         });
  for (std::size_t i = n; i-- > 0;) pending[i]({}, static_cast<std::int64_t>(3 * i + 1));
  ASSERT_EQ(got.size(), n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], static_cast<std::int64_t>(3 * i + 1)) << i;
}

TEST(parallel, zero_branches_complete_at_once) {
  bool done = false;
  parallel(0, [](std::size_t, callback<>) { FAIL(); }, [&](error e) { done = !e; });
  EXPECT_TRUE(done);
}

TEST(each_series, steps_run_one_after_another_and_stop_at_the_first_error) {
  loop l(clock_kind::virtual_time);
  std::vector<std::size_t> ran;
  std::string msg;
  each_series(
      5,
      [&](std::size_t i, callback<> cb) {
        ran.push_back(i);
        l.set_timeout(1, [=] { cb(i == 2 ? error("stop") : error()); });
      },
      [&](error e) { msg = e.message(); });
  l.run();
  EXPECT_EQ(ran, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(msg, "stop");
}

TEST(each_series, a_million_synchronous_steps_do_not_grow_the_stack) {
  std::size_t count = 0;
  bool done = false;
  each_series(
      1'000'000, [&](std::size_t, callback<> cb) { ++count, cb({}); }, [&](error e) { done = !e; });
  EXPECT_TRUE(done);
  EXPECT_EQ(count, 1'000'000u);
}
