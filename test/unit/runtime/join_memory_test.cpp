// What a join keeps per input while its inputs are in flight, in every style:
// a million-op fan-out keeps that much for each of its million inputs. The
// per-input element (a callback sink, a reaction or a continuation) holds
// its join and what its kind needs, and nothing else: its index is its place
// in the join's array, and a future continuation is told its source.
#include <asyncshift/combinators.hpp>
#include <asyncshift/future.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/task.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace asyncshift;

namespace {

constexpr std::size_t inputs = 1000;

/// Pooled bytes alive on this thread now.
std::int64_t live_bytes() { return detail::memory_snapshot().live_bytes; }

/// The bytes a join adds per input, beyond a fixed \p slack for the join itself.
void expect_per_input(std::int64_t grown, std::int64_t per_input, const char* what) {
  EXPECT_GE(grown, per_input * static_cast<std::int64_t>(inputs)) << what;
  EXPECT_LE(grown, per_input * static_cast<std::int64_t>(inputs) + 256) << what;
}

} // namespace

TEST(join_memory, a_parallel_branch_sink_is_a_handler_and_its_join) {
  loop l(clock_kind::virtual_time);
  std::vector<callback<int>> pending;
  pending.reserve(inputs);
  const auto before = live_bytes();
  int completed = 0;
  parallel<int>(inputs, [&](std::size_t, callback<int> cb) { pending.push_back(std::move(cb)); },
                [&](error e, std::vector<int> v) {
                  EXPECT_FALSE(e);
                  EXPECT_EQ(v.size(), inputs);
                  EXPECT_EQ(v[7], 7);
                  ++completed;
                });
  expect_per_input(live_bytes() - before, 24, "parallel");
  for (std::size_t i = 0; i < inputs; ++i) pending[inputs - 1 - i](error{}, static_cast<int>(inputs - 1 - i));
  EXPECT_EQ(completed, 1);
  EXPECT_EQ(live_bytes(), before);
}

TEST(join_memory, a_promise_all_slot_is_a_reaction_and_its_join) {
  loop l(clock_kind::virtual_time);
  std::vector<deferred<int>> ds(inputs);
  std::vector<promise<int>> ps;
  for (auto& d : ds) ps.push_back(d.get_promise());
  const auto before = live_bytes();
  int completed = 0;
  auto all = promise<int>::all(std::move(ps)).then([&](std::vector<int> v) {
    EXPECT_EQ(v[7], 7);
    ++completed;
  });
  expect_per_input(live_bytes() - before, 32, "promise all"); // + one then state, within the slack
  for (std::size_t i = 0; i < inputs; ++i) ds[i].resolve(static_cast<int>(i));
  l.run();
  EXPECT_EQ(completed, 1);
}

TEST(join_memory, a_future_when_all_slot_is_a_continuation_and_its_join) {
  loop l(clock_kind::virtual_time);
  std::vector<callback<int>> pending;
  std::vector<future<int>> fs;
  for (std::size_t i = 0; i < inputs; ++i) fs.push_back(make_future<int>([&](callback<int> cb) { pending.push_back(cb); }));
  const auto before = live_bytes();
  int completed = 0;
  auto all = when_all(std::move(fs)).then([&](std::vector<int> v) {
    EXPECT_EQ(v[7], 7);
    ++completed;
  });
  expect_per_input(live_bytes() - before, 16, "future when_all"); // a continuation is its fire function: the source is passed
  for (std::size_t i = 0; i < inputs; ++i) pending[i](error{}, static_cast<int>(i));
  pending.clear();
  EXPECT_EQ(completed, 1);
}
