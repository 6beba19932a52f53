// What a join keeps per input while its inputs are in flight, in every style:
// a million-op fan-out keeps that much for each of its million inputs. The
// per-input element (a callback sink, a reaction or a continuation) holds
// its join (a parallel() sink not even that: its ops are its join's) and what
// its kind needs, and nothing else: its index is its place in the join's
// array, and a future continuation is told its source.
#include <asyncshift/combinators.hpp>
#include <asyncshift/context.hpp>
#include <asyncshift/future.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/task.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

using namespace asyncshift;

// Counts this thread's global allocations of each size that matters here (a
// join's result vector comes from std::allocator, not from the pool).
namespace {
thread_local std::size_t watched_size = 0;
thread_local int watched_allocations = 0;
} // namespace

void* operator new(std::size_t n) {
  if (n == watched_size) ++watched_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

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

// A parallel() branch's sink is a handler header alone (16 bytes): its ops
// are its join's own, so it finds its join without a pointer of its own.
TEST(join_memory, a_parallel_branch_sink_is_a_handler_header_alone) {
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
  expect_per_input(live_bytes() - before, 16, "parallel");
  for (std::size_t i = 0; i < inputs; ++i) pending[inputs - 1 - i](error{}, static_cast<int>(inputs - 1 - i));
  EXPECT_EQ(completed, 1);
  EXPECT_EQ(live_bytes(), before);
}

TEST(join_memory, a_parallel_without_values_keeps_nothing_per_branch) {
  // With no values to place, a branch needs no index: every branch's
  // callback borrows the join itself, which counts them.
  loop l(clock_kind::virtual_time);
  std::vector<callback<>> pending;
  pending.reserve(inputs);
  const auto before = live_bytes();
  int completed = 0;
  parallel(inputs, [&](std::size_t, callback<> cb) { pending.push_back(std::move(cb)); },
           [&](error e) {
             EXPECT_FALSE(e);
             ++completed;
           });
  EXPECT_LE(live_bytes() - before, 128) << "one join, whatever the number of branches";
  for (std::size_t i = 0; i < inputs; ++i) {
    EXPECT_EQ(completed, 0) << "done before branch " << i << " reported";
    pending[inputs - 1 - i](error{});
  }
  EXPECT_EQ(completed, 1);
  EXPECT_EQ(live_bytes(), before);
}

TEST(join_memory, a_promise_all_slot_is_a_reaction_whose_context_word_names_its_join) {
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
  expect_per_input(live_bytes() - before, 24, "promise all"); // + one then state, within the slack
  for (std::size_t i = 0; i < inputs; ++i) ds[i].resolve(static_cast<int>(i));
  l.run();
  EXPECT_EQ(completed, 1);
}

TEST(join_memory, parallel_of_int64_keeps_arrived_values_in_their_sinks_until_the_last) {
  // As promise all's slots: a value waits in its branch's sink, which has
  // been called, and the result vector is made when the last value arrives,
  // not beside the branches still in flight.
  loop l(clock_kind::virtual_time);
  std::vector<callback<std::int64_t>> pending;
  pending.reserve(inputs);
  const auto before = live_bytes();
  std::vector<std::int64_t> got;
  parallel<std::int64_t>(inputs, [&](std::size_t, callback<std::int64_t> cb) { pending.push_back(std::move(cb)); },
                         [&](error e, std::vector<std::int64_t> v) {
                           EXPECT_FALSE(e);
                           got = std::move(v);
                         });
  const auto made = live_bytes() - before;
  watched_size = inputs * sizeof(std::int64_t); // the result vector
  watched_allocations = 0;
  // Out of order, but for the first branch: index order is the sinks', not the calls'.
  for (std::size_t i = 1; i < inputs; ++i) pending[inputs - i](error{}, static_cast<std::int64_t>(3 * (inputs - i)));
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(live_bytes() - before, made) << "values that arrived took no pooled memory of their own";
  EXPECT_EQ(watched_allocations, 0) << "the result vector was made before the last value arrived";
  pending[0](error{}, 0);
  EXPECT_EQ(watched_allocations, 1);
  watched_size = 0;
  ASSERT_EQ(got.size(), inputs);
  for (std::size_t i = 0; i < inputs; ++i) ASSERT_EQ(got[i], static_cast<std::int64_t>(3 * i)) << i;
  EXPECT_EQ(live_bytes(), before);
}

TEST(join_memory, promise_all_of_int64_keeps_arrived_values_in_their_slots_until_the_last) {
  // A fan-out's peak is while its operations are in flight: no result vector
  // may sit beside them. Values wait in the slots that have fired, and the
  // vector is made when the last one arrives.
  loop l(clock_kind::virtual_time);
  context c;
  context_scope scope(&c);
  std::vector<deferred<std::int64_t>> ds(inputs);
  const auto before = live_bytes();
  std::vector<std::int64_t> got;
  context* ran_in = nullptr;
  auto all = promise<std::int64_t>::all(inputs, [&](std::size_t i) { return ds[i].get_promise(); }).then([&](std::vector<std::int64_t> v) {
    ran_in = current_context();
    got = std::move(v);
  });
  const auto made = live_bytes() - before;
  watched_size = inputs * sizeof(std::int64_t); // the result vector
  watched_allocations = 0;
  for (std::size_t i = 0; i + 1 < inputs; ++i) ds[inputs - 1 - i].resolve(static_cast<std::int64_t>(3 * (inputs - 1 - i)));
  l.run();
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(live_bytes() - before, made) << "values that arrived took no pooled memory of their own";
  EXPECT_EQ(watched_allocations, 0) << "the result vector was made before the last value arrived";
  ds[0].resolve(0);
  l.run();
  EXPECT_EQ(watched_allocations, 1);
  watched_size = 0;
  ASSERT_EQ(got.size(), inputs);
  for (std::size_t i = 0; i < inputs; ++i) ASSERT_EQ(got[i], static_cast<std::int64_t>(3 * i)) << i;
  EXPECT_EQ(ran_in, &c) << "the join's reaction ran in the context all() was called in";
}

TEST(join_memory, a_join_large_enough_to_give_its_slots_pages_back_still_hands_over_every_value) {
  // 200,000 slots are 4.8 MB, a mapping of their own: the hand-over gives
  // back whole 2 MB pages of slots already read, and must read none of them
  // after (a page given back reads as zeros).
  constexpr std::size_t many = 200000;
  loop l(clock_kind::virtual_time);
  std::vector<deferred<std::int64_t>> ds(many);
  std::vector<std::int64_t> got;
  auto all = promise<std::int64_t>::all(many, [&](std::size_t i) { return ds[i].get_promise(); }).then([&](std::vector<std::int64_t> v) {
    got = std::move(v);
  });
  for (std::size_t i = 0; i < many; ++i) ds[i].resolve(static_cast<std::int64_t>(7 * i + 1));
  l.run();
  ASSERT_EQ(got.size(), many);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < many; ++i) wrong += got[i] != static_cast<std::int64_t>(7 * i + 1);
  EXPECT_EQ(wrong, 0u);
}

namespace {
/// Records the current context whenever it is copied or moved.
struct context_probe {
  static inline context* seen = nullptr;
  context_probe() = default;
  context_probe(const context_probe&) { seen = current_context(); }
  context_probe(context_probe&&) noexcept { seen = current_context(); }
  context_probe& operator=(const context_probe&) = default;
  context_probe& operator=(context_probe&&) noexcept = default;
};
} // namespace

TEST(join_memory, a_join_takes_its_inputs_values_in_the_context_all_was_called_in) {
  // The slots keep their join where a reaction keeps its context, so the
  // join must put its real context back before it touches a value.
  loop l(clock_kind::virtual_time);
  context c;
  deferred<context_probe> d;
  promise<> done;
  {
    context_scope scope(&c);
    done = promise<context_probe>::all(1, [&](std::size_t) { return d.get_promise(); }).then([](std::vector<context_probe>) {});
  }
  d.resolve(context_probe{});
  context_probe::seen = nullptr;
  l.run();
  EXPECT_EQ(context_probe::seen, &c);
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
