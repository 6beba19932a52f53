// Work that happens in one turn of the loop, in an order that only the
// styles running continuations inline keep (future, coro, coro-values);
// promise style runs every continuation from the microtask queue and may
// reorder it (docs/transforms/README.md, "What promise style cannot keep"),
// so equivalence.sync_order leaves promise out. The entry runs shape k % 3
// for execution k.
#include <asyncshift/bench.hpp>

#include <vector>

using asyncshift::callback;
using asyncshift::error;
namespace fake = asyncshift::fake;

namespace {

/// A user leaf that completes synchronously.
void sync_leaf(std::int64_t a, callback<std::int64_t> cb) { cb({}, (a * 7 + 1) % 1000); }

/// Two branches fail while the join starts them: branch 0 from inside a
/// series step, branch 1 at once. The original reports branch 0's error.
void two_sync_failures(std::int64_t seed, callback<> done) {
  asyncshift::parallel(
      2,
      [=](std::size_t i, callback<> branch_done) {
        if (i == 0) {
          asyncshift::each_series(
              1, [=](std::size_t, callback<> step) { step(error("branch 0 failed")); },
              [=](error err) { branch_done(err); });
        } else {
          branch_done(error("branch 1 failed"));
        }
      },
      [=](error err) {
        fake::io("tsf.after", seed, [=](error, std::int64_t) {});
        if (err) return done(err);
        done({});
      });
}

/// Branch 0 calls a synchronous leaf before its op, branch 1 starts the same
/// op at once: the original starts branch 0's first, so injected failures
/// (decided by an op's ordinal in its execution) land on the same branch.
void sync_leaf_then_op(std::int64_t seed, callback<> done) {
  asyncshift::parallel<std::int64_t>(
      2,
      [=](std::size_t i, callback<std::int64_t> got) {
        if (i == 0) {
          sync_leaf(seed, [=](error err, std::int64_t v) {
            if (err) return got(err);
            fake::io("slo.op", 100 + v, [=](error err, std::int64_t w) {
              if (err) return got(err);
              fake::io("slo.next", w, got); // only the branch whose first op succeeded goes on
            });
          });
        } else {
          fake::io("slo.op", 200 + seed, got);
        }
      },
      [=](error err, std::vector<std::int64_t>) {
        if (err) return done(err);
        done({});
      });
}

/// A series whose first step completes synchronously, beside a branch that
/// fails at once: which error the join reports depends on the order.
void sync_series_beside_failure(std::int64_t seed, callback<> done) {
  asyncshift::parallel(
      2,
      [=](std::size_t i, callback<> branch_done) {
        if (i == 0) {
          sync_leaf(seed, [=](error err, std::int64_t v) {
            if (err) return branch_done(err);
            if (v % 2 == 0) return branch_done(error("even leaf"));
            fake::io("ssb.op", v, [=](error err, std::int64_t) { branch_done(err); });
          });
        } else {
          branch_done(error("branch 1 failed"));
        }
      },
      [=](error err) {
        if (err) return done(err);
        done({});
      });
}

void sync_order(std::uint64_t k, callback<> done) {
  const auto seed = static_cast<std::int64_t>(k);
  const auto which = k % 3;
  if (which == 0) return two_sync_failures(seed, done);
  if (which == 1) return sync_leaf_then_op(seed, done);
  sync_series_beside_failure(seed, done);
}

} // namespace

ASYNCSHIFT_WORKLOAD("sync_order", sync_order);
