// The workload runner behind every benchmark binary (see harness.cpp).
#pragma once

#include <atomic>
#include <cstdint>

namespace asyncshift::bench {

/// Parses SPEC §7's flags, runs the registered workload, prints the JSON line.
int harness_main(int argc, char** argv);

/// Heap allocations made off the loop thread (worker-pool threads): counted
/// with atomics, since they are rare and may come from several threads.
struct shared_memory_stats {
  std::atomic<std::uint64_t> allocs{0};
  std::atomic<std::uint64_t> bytes{0};
};
shared_memory_stats& other_threads_memory() noexcept;

} // namespace asyncshift::bench
