// Statements that wait for nothing and may complete the handler from inside,
// in callback style, one shape per function: validation loops (before the
// first wait, between waits with variables that cross them, under a cleanup,
// nested with break and continue, a while loop, in a parallel branch, a
// `do` loop, a `for (;;)` left only by completing) and a `catch` that
// completes (before a wait, between waits, in an arm that joins), and a
// nested block that completes. The entry runs shape k % 12;
// each style's trace digest must equal this file's, with and without
// injected failures (a loop in each_series steps: series_validation.cpp).
#include <asyncshift/bench.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using asyncshift::callback;
using asyncshift::error;
namespace fake = asyncshift::fake;

namespace {

/// Before the first wait: a bad input fails at once (synchronously).
void check_first(std::int64_t seed, callback<std::int64_t> done) {
  std::vector<std::int64_t> keys{seed % 7, seed % 5, seed % 3};
  for (std::int64_t k : keys)
    if (k == 4) return done(error("key 4 is reserved"));
  fake::io("first.read", keys[0] + keys[1], [=](error err, std::int64_t v) {
    if (err) return done(err);
    done({}, v % 1000);
  });
}

/// Between waits: the loop reads a value from the first wait and changes a
/// variable that the wait after it reads.
void between(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("between.read", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    std::int64_t total = seed % 10;
    for (std::int64_t i = 0; i < 4; ++i) {
      total += (v >> i) % 10;
      if (total > 25) return done({}, total);
    }
    fake::io("between.write", total, [=](error err, std::int64_t w) {
      if (err) return done(err);
      done({}, total + w % 100);
    });
  });
}

/// Under a cleanup: every failure after the transaction began rolls it back,
/// the loop's own failure too.
void with_cleanup(std::int64_t seed, callback<> done) {
  fake::io("tx.begin", seed, [=](error err, std::int64_t tx) {
    if (err) return done(err);
    fake::io("tx.read", tx % 100, [=](error err, std::int64_t rows) {
      if (err) {
        fake::io("tx.rollback", tx % 100, [](error, std::int64_t) {});
        return done(err);
      }
      for (std::int64_t r = 0; r < 3; ++r) {
        if ((rows + r) % 11 == 0) {
          fake::io("tx.rollback", tx % 100, [](error, std::int64_t) {});
          return done(error("row rejected"));
        }
      }
      fake::io("tx.commit", tx % 100, [=](error err, std::int64_t) {
        if (err) return done(err);
        done({});
      });
    });
  });
}

/// Nested loops with break and continue; the outer loop's variable is read
/// by the inner one.
void nested(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("nested.read", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    std::int64_t found = -1;
    for (std::int64_t row = 0; row < 3; ++row) {
      if ((v + row) % 4 == 0)
        continue;
      for (std::int64_t col = 0; col < 3; ++col) {
        if ((v + row * col) % 9 == 8) return done(error("bad cell"));
        if ((v + row + col) % 5 == 0) {
          found = row * 3 + col;
          break;
        }
      }
    }
    fake::io("nested.write", found + 1, [=](error err, std::int64_t w) {
      if (err) return done(err);
      done({}, found + w % 10);
    });
  });
}

/// A while loop whose condition reads a value that crosses the waits.
void countdown(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("countdown.read", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    std::int64_t n = v % 8;
    std::int64_t steps = 0;
    while (n > 0) {
      if (n == 5) return done({}, -steps);
      n -= 2;
      ++steps;
    }
    fake::io("countdown.write", steps, [=](error err, std::int64_t w) {
      if (err) return done(err);
      done({}, steps * 100 + w % 100);
    });
  });
}

/// In a parallel branch: a branch fails from a loop after its wait.
void branches(std::int64_t seed, callback<std::int64_t> done) {
  asyncshift::parallel<std::int64_t>(
      3,
      [=](std::size_t i, callback<std::int64_t> got) {
        fake::io("branch.read", seed + static_cast<std::int64_t>(i), [=](error err, std::int64_t v) {
          if (err) return got(err);
          for (std::int64_t d = 2; d < 5; ++d)
            if (v % 97 == d) return got(error("branch rejected"));
          got({}, v % 1000);
        });
      },
      [=](error err, std::vector<std::int64_t> values) {
        if (err) return done(err);
        done({}, values[0] + values[1] + values[2]);
      });
}

/// A `catch` that completes: what throws (std::vector::at) is before the
/// first wait, and its index comes from the execution.
void parse_first(std::int64_t seed, callback<std::int64_t> done) {
  std::vector<std::int64_t> table{3, 1, 4, 1, 5};
  std::int64_t picked = 0;
  try {
    picked = table.at(static_cast<std::size_t>(seed % 7));
  } catch (const std::out_of_range &e) {
    return done(error(std::string("no entry: ") + e.what()));
  }
  fake::io("parse.read", picked, [=](error err, std::int64_t v) {
    if (err) return done(err);
    done({}, picked + v % 100);
  });
}

/// A `catch` between waits: what throws reads the first wait's value, and
/// what the try block computes is read after the next wait.
void parse_between(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("parse.fetch", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    std::vector<std::int64_t> table{2, 7, 1, 8};
    std::int64_t picked = -1;
    try {
      picked = table.at(static_cast<std::size_t>(v % 6));
    } catch (...) {
      if (v % 2 == 0) return done({}, -v % 1000);
      return done(error("out of range"));
    }
    fake::io("parse.write", picked, [=](error err, std::int64_t w) {
      if (err) return done(err);
      done({}, picked * 10 + w % 10);
    });
  });
}

/// A `catch` in one arm of an `if` whose arms join at a named continuation
/// (found by a user trial: the coroutine styles printed an `else` after the
/// `catch`, which did not compile).
void parse_then_join(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("join.read", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    auto finish = [=](error err, std::int64_t n) {
      if (err) return done(err);
      fake::io("join.write", n, [=](error err, std::int64_t w) {
        if (err) return done(err);
        done({}, n + w % 10);
      });
    };
    if (v % 3 != 0) {
      std::vector<std::int64_t> table{4, 8, 15, 16};
      std::int64_t n = 0;
      try {
        n = table.at(static_cast<std::size_t>(v % 5));
      } catch (const std::out_of_range &) {
        return done(error("no entry"));
      }
      finish({}, n);
    } else {
      fake::io("join.other", v % 100, [=](error err, std::int64_t w) { finish(err, w % 100); });
    }
  });
}

/// A nested block between waits: what it declares stays in it, what it
/// changes (`total`) is read after the next wait.
void scoped(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("scoped.read", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    std::int64_t total = v % 50;
    {
      const std::int64_t half = total / 2;
      if (half == 7) return done(error("seven"));
      if (half == 3) return done({}, -3);
      total += half;
    }
    fake::io("scoped.write", total, [=](error err, std::int64_t w) {
      if (err) return done(err);
      done({}, total * 10 + w % 10);
    });
  });
}

/// A `do` loop between waits: its body runs before the first test, and its
/// condition reads variables that the wait after it reads.
void retry_do(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("do.read", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    std::int64_t tries = 0;
    std::int64_t x = v % 16;
    do {
      if (x == 13) return done(error("unlucky"));
      x = (x * 5 + 1) % 16;
      ++tries;
    } while (x % 4 != 0 && tries < 5);
    fake::io("do.write", x + tries, [=](error err, std::int64_t w) {
      if (err) return done(err);
      done({}, x * 100 + tries * 10 + w % 10);
    });
  });
}

/// A `for (;;)` with no `break`, in one arm: it is left only by completing,
/// so only the other arm reaches the next wait.
void endless(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("endless.read", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    std::int64_t n = v % 20;
    if (v % 3 == 0) {
      for (;;) {
        if (n % 7 == 6) return done(error("stuck"));
        if (n > 30) return done({}, n);
        n += 4 + v % 3;
      }
    }
    fake::io("endless.write", n, [=](error err, std::int64_t w) {
      if (err) return done(err);
      done({}, n * 10 + w % 10);
    });
  });
}

/// Adapts a value-returning shape to the entry's callback<>.
void valued(int which, std::int64_t seed, callback<> done) {
  auto finish = [=](error err, std::int64_t v) {
    if (err) return done(err);
    fake::io("result", v % 1000, [=](error err, std::int64_t) { done(err); });
  };
  if (which == 0) return check_first(seed, finish);
  if (which == 1) return between(seed, finish);
  if (which == 2) return nested(seed, finish);
  if (which == 3) return countdown(seed, finish);
  if (which == 4) return branches(seed, finish);
  if (which == 5) return parse_first(seed, finish);
  if (which == 6) return parse_between(seed, finish);
  if (which == 7) return parse_then_join(seed, finish);
  if (which == 10) return retry_do(seed, finish);
  if (which == 11) return endless(seed, finish);
  scoped(seed, finish);
}

} // namespace

void validation(std::uint64_t k, callback<> done) {
  const auto seed = static_cast<std::int64_t>(k);
  const int which = static_cast<int>(k % 12);
  if (which == 9) return with_cleanup(seed, done);
  valued(which, seed, done);
}

ASYNCSHIFT_WORKLOAD("validation", validation);
