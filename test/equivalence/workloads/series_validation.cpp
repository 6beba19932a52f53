// A validation loop inside each_series steps, in callback style: the loop
// only fails the step, so coro converts it (the failure is thrown out of the
// loop that the series became); coro-values refuses it (its step would end
// with `break;`, which the inner loop would take for its own), so this
// workload runs every style but that one. Each style's trace digest must
// equal this file's, with and without injected failures.
#include <asyncshift/bench.hpp>

#include <vector>

using asyncshift::callback;
using asyncshift::error;
namespace fake = asyncshift::fake;

void series_validation(std::uint64_t k, callback<> done) {
  const auto seed = static_cast<std::int64_t>(k);
  std::vector<std::int64_t> keys{seed % 13, seed % 11, seed % 7};
  asyncshift::each_series(
      keys.size(),
      [=](std::size_t i, callback<> step) {
        fake::io("series.read", keys[i] + seed % 100, [=](error err, std::int64_t v) {
          if (err) return step(err);
          for (std::int64_t d = 0; d < 3; ++d) // three reserved residues
            if (v % 41 == d) return step(error("reserved"));
          step({});
        });
      },
      done);
}

ASYNCSHIFT_WORKLOAD("series_validation", series_validation);
