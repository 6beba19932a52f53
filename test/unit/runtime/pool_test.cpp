// The recycling pool's counters: what the benchmark's allocs/exec,
// bytes/exec and live B/exec columns are computed from.
#include "asyncshift/detail/pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

// pool_try_pop is the call-free half of pool_allocate (fake::start_io's
// common case): it takes the block pool_allocate would, counted the same
// way, and with an empty free list takes nothing and counts nothing.
TEST(pool, try_pop_takes_and_counts_the_block_pool_allocate_would) {
  struct block200 { // a class no other test on this thread uses
    char bytes[200];
  };
  auto* a = detail::pool_new<block200>();
  void* freed = a;
  detail::pool_delete(a);
  const detail::memory_counts before = detail::memory_snapshot();
  void* p = detail::pool_try_pop<block200>();
#ifdef ASYNCSHIFT_NO_POOL
  EXPECT_EQ(p, nullptr) << "no pool, nothing to pop: the caller takes its general path";
  (void)freed;
#else
  ASSERT_EQ(p, freed);
  const detail::memory_counts during = detail::memory_snapshot();
  EXPECT_EQ(during.allocs - before.allocs, 1u);
  EXPECT_EQ(during.live_bytes - before.live_bytes, 208);
  // Empty the class's free list (the rest of its chunk), then try again:
  // nothing taken, nothing counted.
  std::vector<void*> taken{p};
  while (void* q = detail::pool_try_pop<block200>()) taken.push_back(q);
  const detail::memory_counts empty = detail::memory_snapshot();
  EXPECT_EQ(detail::pool_try_pop<block200>(), nullptr);
  EXPECT_EQ(detail::memory_snapshot().allocs, empty.allocs);
  EXPECT_EQ(detail::memory_snapshot().live_bytes, empty.live_bytes);
  for (void* q : taken) detail::pool_deallocate(q, sizeof(block200));
#endif
}

// ---- where the memory comes from -----------------------------------------------

#if defined(__linux__) && !defined(ASYNCSHIFT_NO_POOL)

#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <sys/mman.h>
#include <sys/resource.h>

#include <cerrno>

namespace {

/// Whether the kernel gives transparent huge pages to memory advised for them
/// and this process's page faults are the runtime's own: ThreadSanitizer
/// touches its shadow memory, in small pages, for every page the test touches.
bool huge_pages_available() {
#if defined(__SANITIZE_THREAD__)
  return false;
#endif
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s.find("[always]") != std::string::npos || s.find("[madvise]") != std::string::npos;
}

long thread_minor_faults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

struct block64 {
  block64* next;
  char bytes[56];
};

} // namespace

TEST(pool, a_thread_allocating_in_bulk_takes_one_fault_per_huge_page) {
  if (!huge_pages_available()) GTEST_SKIP() << "transparent huge pages are off (or ThreadSanitizer counts faults too)";
  // A new thread: its pool has no region yet.
  long faults = 0;
  std::thread([&] {
    constexpr std::size_t bulk = 64u << 20;
    const long before = thread_minor_faults();
    block64* head = nullptr;
    for (std::size_t i = 0; i < bulk / sizeof(block64); ++i) {
      auto* b = detail::pool_new<block64>();
      b->next = head; // touches every block
      head = b;
    }
    faults = thread_minor_faults() - before;
    while (head) {
      block64* next = head->next;
      detail::pool_delete(head);
      head = next;
    }
  }).join();
  // In 4 KB pages: 16,384 faults; in 2 MB pages: 32 (the kernel may fall
  // back to small pages for a few, when it has no huge page free at once).
  const long small_pages = static_cast<long>((64u << 20) / 4096);
  EXPECT_LT(faults, small_pages / 16) << "faults: " << faults;
}

TEST(pool, a_block_of_huge_pages_is_mapped_on_its_own_and_returned) {
  constexpr std::size_t n = 8u << 20;
  const detail::memory_counts before = detail::memory_snapshot();
  const long faults_before = thread_minor_faults();
  char* p = static_cast<char*>(detail::pool_allocate(n));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % detail::huge_page_size, 0u) << "aligned to a huge page";
  for (std::size_t i = 0; i < n; i += 4096) p[i] = 1;
  const long faults = thread_minor_faults() - faults_before;
  if (huge_pages_available()) EXPECT_LT(faults, 64) << "8 MB in 4 KB pages would be 2,048 faults";
  EXPECT_EQ(detail::memory_snapshot().live_bytes - before.live_bytes, static_cast<std::int64_t>(n));
  detail::pool_deallocate(p, n);
  EXPECT_EQ(detail::memory_snapshot().live_bytes, before.live_bytes);
  // Returned to the system, not kept: the range is no longer mapped.
  unsigned char resident = 0;
  EXPECT_EQ(mincore(p, 4096, &resident), -1);
  EXPECT_EQ(errno, ENOMEM) << "mincore on an unmapped page fails with ENOMEM";
}

#endif
