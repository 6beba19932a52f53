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
