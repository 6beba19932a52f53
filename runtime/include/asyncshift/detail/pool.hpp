// The runtime's recycling allocator and its allocation counters.
//
// Every style allocates the same few kinds of small objects per operation
// (continuation blocks, timer nodes, promise states, coroutine frames). They
// come from per-thread free lists in 16-byte size classes, so after warm-up an
// operation costs a pointer pop and a pointer push instead of malloc/free. The
// callback baseline uses the same pool: a faster runtime helps every style.
//
// The counters (`memory_stats`) count every logical allocation, pooled or not,
// so the benchmark's allocs/exec is honest about how many objects a style
// creates, not about how often it reached malloc. ASYNCSHIFT_NO_MEMORY_STATS
// compiles them out (memory_stats_enabled).
#pragma once

#include "asyncshift/detail/cxx20.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__linux__) && !defined(ASYNCSHIFT_NO_HUGE_PAGES)
#include <sys/mman.h>
#define ASYNCSHIFT_HUGE_PAGES 1
#endif

// Under AddressSanitizer (or with ASYNCSHIFT_NO_POOL) every block goes
// straight to malloc and free: a recycling pool would hide a use after free
// from the sanitizer. The counters still count.
#if !defined(ASYNCSHIFT_NO_POOL)
#if defined(__SANITIZE_ADDRESS__)
#define ASYNCSHIFT_NO_POOL 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASYNCSHIFT_NO_POOL 1
#endif
#endif
#endif

#if defined(__GNUC__)
#define ASYNCSHIFT_COUNT_INLINE [[gnu::always_inline]] inline
#else
#define ASYNCSHIFT_COUNT_INLINE inline
#endif

namespace asyncshift::detail {

/// Whether the allocation counters below count. They cost about ten
/// instructions per block allocated and freed (thread-local increments and
/// the peak's compare), which is what a benchmark needs to report
/// allocations, bytes and peak live bytes exactly, and nothing a program
/// needs otherwise. Defining ASYNCSHIFT_NO_MEMORY_STATS (the same way in every
/// translation unit of a program) compiles them out: memory_snapshot() then
/// reads zeros. `make bench-instructions` counts instructions that way, so
/// that the counts are the runtime's and not the accounting's.
#if defined(ASYNCSHIFT_NO_MEMORY_STATS)
inline constexpr bool memory_stats_enabled = false;
#else
inline constexpr bool memory_stats_enabled = true;
#endif

inline constexpr std::size_t pool_granule = 16;
inline constexpr std::size_t pool_max_block = 1024;
inline constexpr std::size_t pool_classes = pool_max_block / pool_granule + 1;

/// Per-thread allocation counters, kept cheap to update: a pooled block
/// counts one increment in its size class's tally (its size is the class),
/// and the live total with its peak. The totals the benchmark reports are
/// sums over the classes, made by memory_snapshot() when it reads them.
/// `live_bytes`/`peak_live_bytes` count the bytes requested (rounded to the
/// pool's size class for pooled blocks).
struct memory_stats {
  std::int64_t live_bytes = 0;
  std::int64_t peak_live_bytes = 0;
  /// Blocks counted by size (not a pool class: large blocks, heap blocks).
  std::uint64_t sized_allocs = 0;
  std::uint64_t sized_frees = 0;
  std::uint64_t sized_bytes = 0;
  std::uint64_t class_allocs[pool_classes] = {};
  std::uint64_t class_frees[pool_classes] = {};
};

constinit inline thread_local memory_stats tl_memory{};

/// The totals of a thread's counters at one moment.
struct memory_counts {
  std::uint64_t allocs = 0;
  std::uint64_t frees = 0;
  std::uint64_t bytes = 0;
  std::int64_t live_bytes = 0;
  std::int64_t peak_live_bytes = 0;
  std::int64_t live_objects = 0;
};

inline memory_counts memory_snapshot() noexcept {
  const memory_stats& s = tl_memory;
  memory_counts c;
  c.allocs = s.sized_allocs;
  c.frees = s.sized_frees;
  c.bytes = s.sized_bytes;
  for (std::size_t cls = 0; cls < pool_classes; ++cls) {
    c.allocs += s.class_allocs[cls];
    c.frees += s.class_frees[cls];
    c.bytes += s.class_allocs[cls] * cls * pool_granule;
  }
  c.live_bytes = s.live_bytes;
  c.peak_live_bytes = s.peak_live_bytes;
  c.live_objects = static_cast<std::int64_t>(c.allocs - c.frees);
  return c;
}

ASYNCSHIFT_COUNT_INLINE void note_live(std::int64_t n) noexcept {
  if constexpr (memory_stats_enabled) {
    memory_stats& s = tl_memory;
    s.live_bytes += n;
    if (s.live_bytes > s.peak_live_bytes) s.peak_live_bytes = s.live_bytes;
  }
}

/// Counts a block of \p n bytes (any size).
inline void note_alloc(std::size_t n) noexcept {
  if constexpr (memory_stats_enabled) {
    ++tl_memory.sized_allocs;
    tl_memory.sized_bytes += n;
    note_live(static_cast<std::int64_t>(n));
  }
}
inline void note_free(std::size_t n) noexcept {
  if constexpr (memory_stats_enabled) {
    ++tl_memory.sized_frees;
    tl_memory.live_bytes -= static_cast<std::int64_t>(n);
  }
}

/// Counts a block of size class \p cls: a constant in pool_new, so this is
/// an increment at a fixed address and the live-bytes update.
ASYNCSHIFT_COUNT_INLINE void note_class_alloc(std::size_t cls) noexcept {
  if constexpr (memory_stats_enabled) {
    ++tl_memory.class_allocs[cls];
    note_live(static_cast<std::int64_t>(cls * pool_granule));
  }
}
ASYNCSHIFT_COUNT_INLINE void note_class_free(std::size_t cls) noexcept {
  if constexpr (memory_stats_enabled) {
    ++tl_memory.class_frees[cls];
    tl_memory.live_bytes -= static_cast<std::int64_t>(cls * pool_granule);
  }
}

struct pool_state {
  void* free[pool_classes];
};

constinit inline thread_local pool_state tl_pool{};

// ---- where memory comes from ---------------------------------------------------
//
// The pool's chunks are cut from 16 MB regions of address space, aligned to
// 2 MB and advised for transparent huge pages, and blocks of 2 MB or more are
// mapped the same way, one mapping each: touching new memory then costs one
// page fault per 2 MB instead of 512. On these machines a fault costs several
// microseconds, which is more than a whole doxbee execution's work: with 4 KB
// pages, faults were about 90% of the CPU time of the seeds' run (10,000
// executions) and most of a million-op fan-out's. The price: a thread that
// allocates at all has 2 MB resident (one huge page) rather than a few 4 KB
// pages, and resident memory grows in 2 MB steps. Where the kernel gives no
// huge pages (THP "never") the regions are ordinary memory; on other systems,
// or with ASYNCSHIFT_NO_HUGE_PAGES defined, chunks and large blocks come from
// malloc.

inline constexpr std::size_t huge_page_size = std::size_t{2} << 20;
/// The size of one region (reserved address space: only touched pages count).
inline constexpr std::size_t pool_region_size = std::size_t{16} << 20;

/// \p n rounded up to a whole number of huge pages.
constexpr std::uintptr_t round_to_huge_page(std::uintptr_t n) noexcept {
  return (n + huge_page_size - 1) & ~std::uintptr_t{huge_page_size - 1};
}

/// Maps \p bytes (a multiple of huge_page_size) at a huge-page boundary,
/// advised for huge pages; nullptr when the system says no.
inline void* map_huge(std::size_t bytes) noexcept {
#ifdef ASYNCSHIFT_HUGE_PAGES
  const std::size_t reserve = bytes + huge_page_size;
  void* raw = ::mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = round_to_huge_page(start);
  if (aligned != start) ::munmap(raw, aligned - start);
  const std::size_t tail = start + reserve - (aligned + bytes);
  if (tail) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE); // advice: failure is harmless
  return reinterpret_cast<void*>(aligned);
#else
  (void)bytes;
  return nullptr;
#endif
}

/// The rest of a thread's current region.
struct pool_region {
  char* next = nullptr;
  char* end = nullptr;
};

constinit inline thread_local pool_region tl_region{};

/// A chunk of \p bytes (at most 64 KB) for the pool to carve; never returned.
inline void* pool_chunk(std::size_t bytes) {
  pool_region& r = tl_region;
  if (static_cast<std::size_t>(r.end - r.next) < bytes) {
    // The rest of the old region (less than one chunk) is left unused.
    if (void* region = map_huge(pool_region_size)) {
      r.next = static_cast<char*>(region);
      r.end = r.next + pool_region_size;
    }
  }
  if (static_cast<std::size_t>(r.end - r.next) >= bytes) {
    void* chunk = r.next;
    r.next += bytes;
    return chunk;
  }
  void* chunk = std::malloc(bytes); // no regions here
  if (!chunk) throw std::bad_alloc();
  return chunk;
}

/// A block too large for the pool: from malloc, or, from 2 MB up (where
/// huge pages are available), a mapping of its own.
inline void* big_allocate(std::size_t n) {
#ifdef ASYNCSHIFT_HUGE_PAGES
  if (n >= huge_page_size) {
    void* p = map_huge(round_to_huge_page(n));
    if (!p) throw std::bad_alloc();
    return p;
  }
#endif
  void* p = std::malloc(n);
  if (!p) throw std::bad_alloc();
  return p;
}

inline void big_deallocate(void* p, [[maybe_unused]] std::size_t n) noexcept {
#ifdef ASYNCSHIFT_HUGE_PAGES
  if (n >= huge_page_size) {
    ::munmap(p, round_to_huge_page(n));
    return;
  }
#endif
  std::free(p);
}

/// Gives the first \p done bytes of the big block \p p (of \p n bytes) back to
/// the system, in whole huge pages, when the block is a mapping of its own:
/// resident memory falls, and the pages read as zeros if touched again.
inline void big_release_prefix([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n,
                               [[maybe_unused]] std::size_t done) noexcept {
#if defined(ASYNCSHIFT_HUGE_PAGES) && !defined(ASYNCSHIFT_NO_POOL) // else it came from malloc
  const std::size_t whole = done & ~(huge_page_size - 1);
  if (n >= huge_page_size && whole != 0) ::madvise(p, whole, MADV_DONTNEED);
#endif
}

[[gnu::noinline]] inline void* pool_refill(std::size_t cls) {
  // Carve a chunk into blocks of this class; chunks are never returned, so the
  // pool's footprint is the peak of live blocks (as with any free-list pool).
  const std::size_t block = cls * pool_granule;
  std::size_t count = (64 * 1024) / block;
  if (count < 8) count = 8;
  char* chunk = static_cast<char*>(pool_chunk(block * count));
  for (std::size_t i = 1; i + 1 < count; ++i)
    *reinterpret_cast<void**>(chunk + i * block) = chunk + (i + 1) * block;
  *reinterpret_cast<void**>(chunk + (count - 1) * block) = nullptr;
  tl_pool.free[cls] = count > 1 ? chunk + block : nullptr;
  return chunk;
}

// Every continuation, state and timer node goes through these two: inlined
// always (g++ otherwise calls an out-of-line clone from large generated
// functions, a call and a return per object).
#if defined(__GNUC__)
#define ASYNCSHIFT_POOL_INLINE [[gnu::always_inline]] inline
#else
#define ASYNCSHIFT_POOL_INLINE inline
#endif

/// The size class of a block of \p n bytes (n <= pool_max_block).
constexpr std::size_t pool_class(std::size_t n) noexcept { return (n + pool_granule - 1) / pool_granule; }

/// Takes the first block off size class \p cls's free list, or nullptr.
ASYNCSHIFT_POOL_INLINE void* free_list_pop(std::size_t cls) noexcept {
  void* p = tl_pool.free[cls];
  if (p) [[likely]]
    tl_pool.free[cls] = *static_cast<void**>(p);
  return p;
}

/// Allocates \p n bytes, 16-byte aligned, from this thread's pool.
ASYNCSHIFT_POOL_INLINE void* pool_allocate(std::size_t n) {
#ifdef ASYNCSHIFT_NO_POOL
  if (n <= pool_max_block)
    note_class_alloc(pool_class(n));
  else
    note_alloc(n);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
#endif
  if (n > pool_max_block) {
    note_alloc(n);
    return big_allocate(n);
  }
  const std::size_t cls = pool_class(n);
  note_class_alloc(cls);
  if (void* p = free_list_pop(cls)) [[likely]]
    return p;
  return pool_refill(cls);
}

/// Takes a block for a \p T from this thread's free list, counted as
/// pool_allocate counts it, or returns nullptr (and counts nothing) when the
/// list is empty or there is no pool: a path with no call in it, for callers
/// that keep their own out-of-line path for the rest.
template <class T>
ASYNCSHIFT_POOL_INLINE void* pool_try_pop() noexcept {
#ifdef ASYNCSHIFT_NO_POOL
  return nullptr;
#else
  static_assert(sizeof(T) <= pool_max_block);
  constexpr std::size_t cls = pool_class(sizeof(T));
  void* p = free_list_pop(cls);
  if (p) [[likely]]
    note_class_alloc(cls);
  return p;
#endif
}

/// Returns a block of \p n bytes (the size it was allocated with).
ASYNCSHIFT_POOL_INLINE void pool_deallocate(void* p, std::size_t n) noexcept {
#ifdef ASYNCSHIFT_NO_POOL
  if (n <= pool_max_block)
    note_class_free(pool_class(n));
  else
    note_free(n);
  std::free(p);
  return;
#endif
  if (n > pool_max_block) {
    note_free(n);
    big_deallocate(p, n);
    return;
  }
  const std::size_t cls = pool_class(n);
  note_class_free(cls);
  *static_cast<void**>(p) = tl_pool.free[cls];
  tl_pool.free[cls] = p;
}

/// Typed helpers for pooled objects.
template <class T, class... A>
ASYNCSHIFT_POOL_INLINE T* pool_new(A&&... a) {
  static_assert(alignof(T) <= pool_granule, "pooled types must not be over-aligned");
  void* p = pool_allocate(sizeof(T));
  if constexpr (std::is_nothrow_constructible_v<T, A&&...>) {
    return ::new (p) T(static_cast<A&&>(a)...);
  } else {
    try {
      return ::new (p) T(static_cast<A&&>(a)...);
    } catch (...) {
      pool_deallocate(p, sizeof(T));
      throw;
    }
  }
}

template <class T>
void pool_delete(T* p) noexcept {
  p->~T();
  pool_deallocate(p, sizeof(T));
}

/// Frees the pooled \p block that holds \p handler, then calls
/// `f(handler)`: the handler leaves the block first, so the block is free
/// again for whatever the handler starts next (an op's timer node, a worker
/// pool job). A handler whose move may throw is called in place instead, and
/// the block goes when the call returns or throws.
template <class Block, class H, class F>
ASYNCSHIFT_POOL_INLINE void release_then_call(Block* block, H& handler, F&& f) {
  if constexpr (std::is_nothrow_move_constructible_v<H>) {
    H h(std::move(handler));
    pool_delete(block);
    f(h);
  } else {
    struct release {
      Block* b;
      ~release() { pool_delete(b); }
    } guard{block};
    f(handler);
  }
}

/// n Ts in one pooled block, each made as T(a...) (the per-branch sinks and
/// slots of parallel() and the when_all/all joins, each made with its join in
/// one pass; an element's index is its distance from get(), so it does not
/// store one): a large array comes from the same huge-page regions as the
/// pool's chunks.
template <class T>
class pooled_array {
public:
  template <class... A>
  pooled_array(std::size_t n, const A&... a) : n_(n) {
    static_assert(std::is_trivially_destructible_v<T>, "the elements are not destroyed one by one");
    if (n_ == 0) return;
    p_ = static_cast<T*>(pool_allocate(n_ * sizeof(T)));
    for (std::size_t i = 0; i < n_; ++i) ::new (static_cast<void*>(p_ + i)) T(a...);
  }
  pooled_array(const pooled_array&) = delete;
  pooled_array& operator=(const pooled_array&) = delete;
  ~pooled_array() {
    if (p_) pool_deallocate(p_, n_ * sizeof(T));
  }

  T* get() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }
  /// Says that the first \p count elements will not be read again: a large
  /// array gives their whole pages back (a join handing a million values over
  /// to its result vector need not hold both at once).
  void release_prefix(std::size_t count) noexcept {
    if (p_) big_release_prefix(p_, n_ * sizeof(T), count * sizeof(T)); // pooled (small) blocks: nothing to give
  }
  T& operator[](std::size_t i) const noexcept { return p_[i]; }
  /// The index of \p e, an element of this array.
  std::size_t index_of(const T* e) const noexcept { return static_cast<std::size_t>(e - p_); }

private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

} // namespace asyncshift::detail
