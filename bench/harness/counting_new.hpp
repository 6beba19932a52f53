// Heap allocation counting for a benchmark binary: replaces the global
// operator new/delete so every heap block is counted. Include it in exactly
// one translation unit of a program, the one holding main(), and set
// tl_loop_thread = true there on the loop thread. Shared by the benchmark
// main (main.cpp) and the fuzz soak main (test/fuzz/soak_main.cpp).
//
// Allocations on the loop thread are plain thread-local increments (the
// runtime's own counters); the rare ones on other threads (the worker pool's
// jobs) go to a shared atomic counter, so counts stay exact without the loop
// thread paying for atomics.
#pragma once

#include "asyncshift/bench.hpp"

#include <malloc.h>

#include <cstdlib>
#include <new>


namespace {

/// True on the thread that runs main() (and the loop); false elsewhere.
constinit thread_local bool tl_loop_thread = false;

} // namespace

// With the runtime's counters compiled out (ASYNCSHIFT_NO_MEMORY_STATS, as
// `make bench-instructions` builds), nothing would read the heap counts
// either: the global operator new stays the standard library's.
#if !defined(ASYNCSHIFT_NO_MEMORY_STATS)
namespace {

void note(void* p) noexcept {
  const std::size_t size = malloc_usable_size(p);
  if (tl_loop_thread) [[likely]] {
    asyncshift::detail::note_alloc(size);
  } else {
    auto& other = asyncshift::bench::other_threads_memory();
    other.allocs.fetch_add(1, std::memory_order_relaxed);
    other.bytes.fetch_add(size, std::memory_order_relaxed);
  }
}

void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  note(p);
  return p;
}

void* counted_aligned_alloc(std::size_t n, std::align_val_t al) {
  std::size_t a = static_cast<std::size_t>(al);
  void* p = std::aligned_alloc(a, (n + a - 1) / a * a);
  if (!p) throw std::bad_alloc();
  note(p);
  return p;
}

void counted_free(void* p) noexcept {
  if (!p) return;
  if (tl_loop_thread) [[likely]]
    asyncshift::detail::note_free(malloc_usable_size(p));
  std::free(p);
}

} // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t n, std::align_val_t a) { return counted_aligned_alloc(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_aligned_alloc(n, a); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
#endif // !ASYNCSHIFT_NO_MEMORY_STATS
