// The recycling pool's counters: what the benchmark's allocs/exec,
// bytes/exec and live B/exec columns are computed from.
#include "asyncshift/detail/pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace detail = asyncshift::detail;

namespace {

struct block24 {
  char bytes[24];
};
struct block100 {
  char bytes[100];
};
struct block2000 { // above the pool's largest class: straight from malloc
  char bytes[2000];
};

} // namespace

TEST(pool, counts_each_block_at_its_size_class) {
  const detail::memory_counts before = detail::memory_snapshot();
  auto* a = detail::pool_new<block24>();   // class of 32 bytes
  auto* b = detail::pool_new<block100>();  // class of 112 bytes
  auto* c = detail::pool_new<block2000>(); // counted at its size
  const detail::memory_counts during = detail::memory_snapshot();
  EXPECT_EQ(during.allocs - before.allocs, 3u);
  EXPECT_EQ(during.bytes - before.bytes, 32u + 112u + 2000u);
  EXPECT_EQ(during.live_objects - before.live_objects, 3);
  EXPECT_EQ(during.live_bytes - before.live_bytes, 32 + 112 + 2000);
  detail::pool_delete(b);
  detail::pool_delete(c);
  detail::pool_delete(a);
  const detail::memory_counts after = detail::memory_snapshot();
  EXPECT_EQ(after.frees - before.frees, 3u);
  EXPECT_EQ(after.live_objects, before.live_objects);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.allocs - before.allocs, 3u) << "frees do not uncount allocations";
}

TEST(pool, peak_live_bytes_is_the_high_water_mark) {
  detail::tl_memory.peak_live_bytes = detail::tl_memory.live_bytes; // as the harness resets it
  const std::int64_t base = detail::memory_snapshot().live_bytes;
  auto* a = detail::pool_new<block100>();
  auto* b = detail::pool_new<block100>();
  detail::pool_delete(a);
  auto* c = detail::pool_new<block24>();
  detail::pool_delete(b);
  detail::pool_delete(c);
  const detail::memory_counts after = detail::memory_snapshot();
  EXPECT_EQ(after.peak_live_bytes - base, 2 * 112) << "two 112-byte blocks at once, never more";
  EXPECT_EQ(after.live_bytes, base);
}

TEST(pool, a_freed_block_is_reused_by_the_next_allocation_of_its_class) {
  auto* a = detail::pool_new<block100>();
  void* first = a;
  detail::pool_delete(a);
  auto* b = detail::pool_new<block100>();
#ifdef ASYNCSHIFT_NO_POOL
  (void)first;
#else
  EXPECT_EQ(static_cast<void*>(b), first);
#endif
  detail::pool_delete(b);
}
