// fanout, timer-0 variant, in callback style: one execution starts p simulated
// ops at once (1,000,000 in `make bench`: --n 1 --p 1000000 --t 0) and joins
// them with one `parallel`, as the fan-out article's
// `Promise.all(ops.map(() => new Promise(r => setTimeout(r, 0))))`.
//
// Every op is a fake::io timer with the configured latency (0 in the bench),
// so what is measured is the cost of starting, completing and joining a
// million pieces of async work in each style: allocation, scheduling and the
// join. The values are summed so the join's result is used.
#include <asyncshift/bench.hpp>

namespace {
const asyncshift::fake::op_name timer_op{"timer"};
} // namespace

void fanout(std::uint64_t k, asyncshift::callback<> done) {
  const std::size_t width = asyncshift::bench::params().p;
  asyncshift::parallel<std::int64_t>(
      width,
      [=](std::size_t i, asyncshift::callback<std::int64_t> fired) {
        asyncshift::fake::io(timer_op, static_cast<std::int64_t>(i), fired);
      },
      [=](asyncshift::error err, std::vector<std::int64_t> values) {
        if (err) return done(err);
        std::int64_t sum = 0;
        for (std::int64_t v : values) {
          sum += v;
        }
        asyncshift::fake::io(timer_op, sum, [=](asyncshift::error err, std::int64_t) {
          if (err) return done(err);
          done({});
        });
      });
}

ASYNCSHIFT_WORKLOAD("fanout_timer", fanout);
