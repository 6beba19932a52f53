// ASYNCSHIFT_NO_MEMORY_STATS (set for this binary only, in every one of its
// translation units): the pool still recycles blocks, and the counters the
// benchmark reads stay at zero, so `make bench-instructions`, which builds the
// workloads this way, counts the runtime's instructions without the
// accounting's.
#include "asyncshift/detail/pool.hpp"
#include "asyncshift/fake.hpp"
#include "asyncshift/loop.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace detail = asyncshift::detail;

static_assert(!detail::memory_stats_enabled, "this binary is built with ASYNCSHIFT_NO_MEMORY_STATS");

namespace {

struct block24 {
  char bytes[24];
};
struct block2000 { // above the pool's largest class: straight from malloc
  char bytes[2000];
};

void expect_all_zero(const detail::memory_counts& c) {
  EXPECT_EQ(c.allocs, 0u);
  EXPECT_EQ(c.frees, 0u);
  EXPECT_EQ(c.bytes, 0u);
  EXPECT_EQ(c.live_bytes, 0);
  EXPECT_EQ(c.peak_live_bytes, 0);
  EXPECT_EQ(c.live_objects, 0);
}

} // namespace

TEST(pool_without_stats, counts_nothing_and_still_recycles_blocks) {
  auto* a = detail::pool_new<block24>();
  auto* big = detail::pool_new<block2000>();
  expect_all_zero(detail::memory_snapshot());
  void* const first = a;
  detail::pool_delete(a);
  auto* b = detail::pool_new<block24>();
#if !defined(ASYNCSHIFT_NO_POOL) // under ASan every block is malloc's
  EXPECT_EQ(static_cast<void*>(b), first) << "the freed block of its class comes back";
#else
  (void)first;
#endif
  detail::pool_delete(b);
  detail::pool_delete(big);
  expect_all_zero(detail::memory_snapshot());
}

TEST(pool_without_stats, operations_on_the_loop_count_nothing) {
  asyncshift::loop l(asyncshift::clock_kind::virtual_time);
  static const asyncshift::fake::op_name op{"op"};
  int done = 0;
  for (int i = 0; i < 100; ++i)
    asyncshift::fake::io(op, i, [&](asyncshift::error err, std::int64_t) { done += err ? 0 : 1; });
  l.run();
  EXPECT_EQ(done, 100);
  expect_all_zero(detail::memory_snapshot());
}
