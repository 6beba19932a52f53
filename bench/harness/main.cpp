// The benchmark main every workload binary links: parses SPEC §7's flags,
// runs n executions of the registered workload at once on one loop, and prints
// one JSON object with time, CPU, memory, allocations and the trace digest.
//
// Measurement is kept out of the measured path: memory is read from /proc once
// at the end; allocations are counted by replacing the global operator new
// (heap) and by the runtime pool's own counters, both plain thread-local
// increments on the loop thread. The rare allocations made on other threads
// (the worker pool's jobs) go to a shared atomic counter instead, so the
// counts stay exact without the loop thread paying for atomics.
#include "asyncshift/bench.hpp"
#include "harness.hpp"

#include <malloc.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "counting_new.hpp"

int main(int argc, char** argv) {
  tl_loop_thread = true;
  return asyncshift::bench::harness_main(argc, argv);
}
