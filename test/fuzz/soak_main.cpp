// The main of every fuzz binary: the benchmark harness (bench/harness/
// harness.cpp) run one or more rounds in one process, with the runtime's
// live-allocation count read around each round.
//
//   <binary> [--rounds R] HARNESS_FLAGS...
//
// Each round is one harness_main() call with the same flags: it prints the
// harness's JSON line (digest, completed, failed, ...), then this file prints
//
//   {"soak_round":r,"live_objects_delta":d,"live_bytes_delta":b,"live_objects":l,"rss_kb":k}
//
// where the deltas compare the runtime's live allocations (asyncshift::detail::
// tl_memory: pooled blocks, and heap blocks counted by the operator new of
// bench/harness/counting_new.hpp)
// after the round with before it. A round leaves nothing behind exactly when
// its delta is 0. Round 1 may keep what the runtime keeps for the process's
// life (one interned name per distinct op name); every later round runs the
// same executions and must return to the same count. The driver
// (test/fuzz/fuzz.py) checks that, and that RSS stays flat over many rounds.
//
// Why not bench/harness/main.cpp: it owns main(). Both count allocations
// with the same header, bench/harness/counting_new.hpp.
#include "asyncshift/bench.hpp"
#include "harness.hpp"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "counting_new.hpp"

namespace {

long rss_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  tl_loop_thread = true;
  long rounds = 1;
  std::vector<char*> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::strtol(argv[++i], nullptr, 10);
      if (rounds < 1) rounds = 1;
    } else {
      args.push_back(argv[i]);
    }
  }
  args.push_back(nullptr);
  const int n = static_cast<int>(args.size()) - 1;
  for (long r = 1; r <= rounds; ++r) {
    // The runtime remembers the exception it threw last (error.hpp): one
    // error of the round before would stay alive into this one, and one of
    // this round past it. Equal messages, but malloc may hand them blocks of
    // different usable sizes (the counted size), which read as a leak.
    asyncshift::detail::forget_last_thrown();
    const asyncshift::detail::memory_counts before = asyncshift::detail::memory_snapshot();
    const int code = asyncshift::bench::harness_main(n, args.data());
    asyncshift::detail::forget_last_thrown();
    const asyncshift::detail::memory_counts after = asyncshift::detail::memory_snapshot();
    std::printf("{\"soak_round\":%ld,\"live_objects_delta\":%lld,\"live_bytes_delta\":%lld,\"live_objects\":%lld,"
                "\"rss_kb\":%ld}\n",
                r, static_cast<long long>(after.live_objects - before.live_objects),
                static_cast<long long>(after.live_bytes - before.live_bytes),
                static_cast<long long>(after.live_objects), rss_kb());
    std::fflush(stdout);
    if (code != 0) return code;
  }
  return 0;
}
