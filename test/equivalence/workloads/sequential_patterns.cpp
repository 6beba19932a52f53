// SPEC §3 patterns 1-5 and 8-10, one function each, in callback style. The
// entry runs pattern k % 10 for execution k, so every pattern is exercised
// for a tenth of the executions; each style's trace digest must equal this
// file's, with and without injected failures.
#include <asyncshift/bench.hpp>

using asyncshift::callback;
using asyncshift::error;
namespace fake = asyncshift::fake;

namespace {

/// Pattern 1 (sequence) and 9 (variables crossing continuations).
void sequence(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("seq.a", seed, [=](error err, std::int64_t a) {
    if (err) return done(err);
    std::int64_t doubled = a * 2;
    fake::io("seq.b", doubled % 1000, [=](error err, std::int64_t b) {
      if (err) return done(err);
      fake::io("seq.c", (a + b) % 1000, [=](error err, std::int64_t c) {
        if (err) return done(err);
        done({}, doubled + b + c);
      });
    });
  });
}

/// Pattern 2: cleanup that starts work it does not wait for.
void cleanup(std::int64_t seed, callback<> done) {
  fake::io("tx.begin", seed, [=](error err, std::int64_t tx) {
    if (err) return done(err);
    fake::io("tx.write", tx % 100, [=](error err, std::int64_t) {
      if (err) {
        fake::io("tx.rollback", tx % 100, [](error, std::int64_t) {});
        return done(err);
      }
      fake::io("tx.write2", tx % 77, [=](error err, std::int64_t) {
        if (err) {
          fake::io("tx.rollback", tx % 100, [](error, std::int64_t) {});
          return done(err);
        }
        fake::io("tx.commit", tx % 100, [=](error err, std::int64_t) { done(err); });
      });
    });
  });
}

/// Patterns 3 and 5: completion in branches; one arm async, the other not.
void conditional(std::int64_t seed, callback<std::int64_t> done) {
  if (seed % 3 == 0) {
    return done({}, seed);
  } else {
    fake::io("cond.read", seed, [=](error err, std::int64_t v) {
      if (err) return done(err);
      if (v % 2 == 0) return done({}, v / 2);
      fake::io("cond.fix", v % 10, [=](error err, std::int64_t w) {
        if (err) return done(err);
        done({}, w + 1);
      });
    });
  }
}

/// Pattern 4: a named continuation joined from both arms.
void join(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("join.lookup", seed, [=](error err, std::int64_t found) {
    if (err) return done(err);
    auto afterOpen = [=](error err, std::int64_t handle) {
      if (err) {
        fake::io("join.abort", seed, [](error, std::int64_t) {});
        return done(err);
      }
      fake::io("join.use", handle % 1000, [=](error err, std::int64_t used) {
        if (err) return done(err);
        done({}, used + handle);
      });
    };
    if (found % 2 == 0) {
      fake::io("join.create", seed, [=](error err, std::int64_t created) { afterOpen(err, created % 1000); });
    } else {
      return afterOpen({}, found % 1000);
    }
  });
}

/// Pattern 8: fire-and-forget.
void notify(std::int64_t seed, callback<> done) {
  fake::io("notify.save", seed, [=](error err, std::int64_t) {
    if (err) return done(err);
    fake::io("notify.log", seed % 10, [](error, std::int64_t) {});
    fake::io("notify.mail", seed % 7, [](error) {});
    done({});
  });
}

/// Pattern 10: forwarding, to a leaf and to an async function of this file.
void forward(std::int64_t seed, callback<std::int64_t> done) {
  if (seed % 2 == 0) return fake::io("fwd.leaf", seed, done);
  sequence(seed + 1, done);
}

/// An error checked as `if (!err)`, and an error deliberately ignored.
void negated(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("neg.cache", seed, [=](error) {
    fake::io("neg.read", seed % 100, [=](error err, std::int64_t v) {
      if (!err) {
        return done({}, v);
      } else {
        fake::io("neg.report", seed % 5, [](error, std::int64_t) {});
        return done(err);
      }
    });
  });
}

/// Shadowing: inner continuations reuse outer names.
void shadow(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("shadow.a", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    std::int64_t total = v % 100;
    fake::io("shadow.b", total, [=](error err, std::int64_t v) {
      if (err) return done(err);
      std::int64_t total2 = total + v % 100;
      done({}, total2);
    });
  });
}

/// Adapts a value-returning pattern to the entry's callback<>.
void valued(int which, std::int64_t seed, callback<> done) {
  auto finish = [=](error err, std::int64_t v) {
    if (err) return done(err);
    fake::io("result", v % 1000, [=](error err, std::int64_t) { done(err); });
  };
  if (which == 0) return sequence(seed, finish);
  if (which == 1) return conditional(seed, finish);
  if (which == 2) return join(seed, finish);
  if (which == 3) return forward(seed, finish);
  if (which == 4) return negated(seed, finish);
  shadow(seed, finish);
}

} // namespace

void sequential_patterns(std::uint64_t k, callback<> done) {
  const auto seed = static_cast<std::int64_t>(k);
  const int which = static_cast<int>(k % 10);
  if (which == 6) return cleanup(seed, done);
  if (which == 7) return notify(seed, done);
  if (which >= 8) return valued(which - 8 + 4, seed, done);
  valued(which % 6, seed, done);
}

ASYNCSHIFT_WORKLOAD("sequential_patterns", sequential_patterns);
