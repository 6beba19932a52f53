// fanout, worker-pool variant, in callback style: one execution starts p
// pieces of work on the runtime's worker pool at once (1,000,000 in `make
// bench`: --n 1 --p 1000000) and joins them with one `parallel`, as the
// fan-out article's `Promise.all` over a million `crypto.randomBytes` calls,
// which Node runs on libuv's thread pool.
//
// Each branch asks the pool for 8 random bytes (asyncshift::random_bytes,
// four threads as libuv's default) and keeps the first; the values are summed
// and one simulated op records the sum, so the trace digest proves that every
// style joined the same values in the same order. What is measured: handing a
// million jobs to other threads and back to the loop, and the join.
#include <asyncshift/bench.hpp>
#include <asyncshift/worker_pool.hpp>

namespace {
const asyncshift::fake::op_name sum_op{"sum"};
} // namespace

void fanout(std::uint64_t /*k*/, asyncshift::callback<> done) {
  const std::size_t width = asyncshift::bench::params().p;
  asyncshift::parallel<std::int64_t>(
      width,
      [=](std::size_t i, asyncshift::callback<std::int64_t> made) {
        asyncshift::random_bytes(8, i, [=](asyncshift::error err, std::vector<std::uint8_t> bytes) {
          if (err) return made(err);
          made({}, bytes[0]);
        });
      },
      [=](asyncshift::error err, std::vector<std::int64_t> values) {
        if (err) return done(err);
        std::int64_t sum = 0;
        for (std::int64_t v : values) {
          sum += v;
        }
        asyncshift::fake::io(sum_op, sum, [=](asyncshift::error err, std::int64_t) {
          if (err) return done(err);
          done({});
        });
      });
}

ASYNCSHIFT_WORKLOAD("fanout_pool", fanout);
