// madeup-parallel, in callback style: the one source every style of the
// benchmark is generated from.
//
// Op for op as bluebird's benchmark/madeup-parallel/callbacks-baseline.js:
// begin a transaction, start p `FileVersion.insert({index: i}).execWithin(tx)`
// at once (p from --p, 25 in the seeds' configuration) and wait for all. On
// success, start the commit without waiting for it and complete; on the first
// error, start the rollback and complete with that error (later outcomes are
// ignored, nothing is cancelled). p + 1 timed ops per execution; one
// sequential wait plus the commit's, since the commit outlives the execution's
// completion but is part of its trace.
//
// The branch takes its handler as `auto`, as Asio code takes a completion
// handler: parallel hands it a callback that names its join, and the op
// completes that directly (docs/runtime.md, Round 11). Written as
// `asyncshift::callback<>` it works the same, through a function pointer.
#include <asyncshift/bench.hpp>

using namespace asyncshift::doxbee;

void upload(std::uint64_t k, asyncshift::callback<> done) {
  auto tx = db.begin();
  const std::size_t queries = asyncshift::bench::params().p;
  asyncshift::parallel(
      queries,
      [=](std::size_t index, auto inserted) {
        FileVersion.insert(static_cast<std::int64_t>(index), 0).execWithin(tx, inserted);
      },
      [=](asyncshift::error err) {
        if (err) {
          tx.rollback();
          return done(err);
        }
        tx.commit([](asyncshift::error) {});
        done({});
      });
}

ASYNCSHIFT_WORKLOAD("madeup_parallel", upload);
