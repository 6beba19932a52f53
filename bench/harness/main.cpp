// The benchmark main every workload binary links: parses SPEC §7's flags,
// runs n executions of the registered workload at once on one loop, and prints
// one JSON object with time, CPU, memory, allocations and the trace digest.
//
// Measurement is kept out of the measured path: memory is read from /proc once
// at the end; allocations are counted by replacing the global operator new
// (heap) and by the runtime pool's own counters, both plain increments.
#include "asyncshift/bench.hpp"
#include "harness.hpp"

#include <malloc.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

// ---- Heap allocation counting ------------------------------------------------

namespace {

void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  asyncshift::detail::note_alloc(malloc_usable_size(p));
  return p;
}

void* counted_aligned_alloc(std::size_t n, std::align_val_t al) {
  std::size_t a = static_cast<std::size_t>(al);
  void* p = std::aligned_alloc(a, (n + a - 1) / a * a);
  if (!p) throw std::bad_alloc();
  asyncshift::detail::note_alloc(malloc_usable_size(p));
  return p;
}

void counted_free(void* p) noexcept {
  if (!p) return;
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

int main(int argc, char** argv) { return asyncshift::bench::harness_main(argc, argv); }
