// The workload runner behind every benchmark binary (see harness.cpp).
#pragma once

namespace asyncshift::bench {

/// Parses SPEC §7's flags, runs the registered workload, prints the JSON line.
int harness_main(int argc, char** argv);

} // namespace asyncshift::bench
