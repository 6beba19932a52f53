// SPEC §3 patterns 6 and 7 (fan-out/join and sequential loops), each with its
// combinator and as the hand-written idiom, in callback style. The entry runs
// pattern k % 6 for execution k; each style's trace digest must equal this
// file's, with and without injected failures.
#include <asyncshift/bench.hpp>

#include <memory>
#include <string>
#include <vector>

using asyncshift::callback;
using asyncshift::error;
namespace fake = asyncshift::fake;

namespace {

/// Pattern 6 with asyncshift::parallel: values in index order.
void parallel_sum(std::int64_t seed, callback<std::int64_t> done) {
  const std::size_t n = 3 + static_cast<std::size_t>(seed % 4);
  asyncshift::parallel<std::int64_t>(
      n,
      [=](std::size_t i, callback<std::int64_t> got) {
        fake::io("par.read", seed + static_cast<std::int64_t>(i), [=](error err, std::int64_t v) {
          if (err) return got(err);
          got({}, v % 1000);
        });
      },
      [=](error err, std::vector<std::int64_t> values) {
        if (err) {
          fake::io("par.undo", seed, [](error, std::int64_t) {});
          return done(err);
        }
        std::int64_t sum = 0;
        for (std::size_t i = 0; i < values.size(); ++i) sum += values[i] * static_cast<std::int64_t>(i + 1);
        done({}, sum);
      });
}

/// Pattern 6 by hand: the counter idiom.
void counter_read(std::int64_t seed, callback<std::vector<std::int64_t>> done) {
  const std::size_t n = 2 + static_cast<std::size_t>(seed % 3);
  if (n == 0) return done({}, {});
  auto pending = std::make_shared<std::size_t>(n);
  auto failed = std::make_shared<bool>(false);
  auto results = std::make_shared<std::vector<std::int64_t>>(n);
  for (std::size_t i = 0; i < n; ++i) {
    fake::io("cnt.read", seed * 3 + static_cast<std::int64_t>(i), [=](error err, std::int64_t v) {
      if (*failed) return;
      if (err) {
        *failed = true;
        return done(err);
      }
      (*results)[i] = v;
      if (--*pending == 0) done({}, *results);
    });
  }
}

/// A string-valued operation: a converted function of its own.
void read_label(std::int64_t key, callback<std::string> done) {
  fake::io("lbl.read", key, [=](error err, std::int64_t v) {
    if (err) return done(err);
    done({}, "label-" + std::to_string(v % 1000));
  });
}

/// The counter idiom over class-type values: `(*results)[i] = v;` is a call
/// of std::string's operator=, which the idiom once did not recognise (the
/// loop was refused as asyncshift-async-in-loop).
void counter_labels(std::int64_t seed, callback<std::vector<std::string>> done) {
  const std::size_t n = 2 + static_cast<std::size_t>(seed % 3);
  if (n == 0) return done({}, {});
  auto pending = std::make_shared<std::size_t>(n);
  auto failed = std::make_shared<bool>(false);
  auto results = std::make_shared<std::vector<std::string>>(n);
  for (std::size_t i = 0; i < n; ++i) {
    read_label(seed * 5 + static_cast<std::int64_t>(i), [=](error err, std::string v) {
      if (*failed) return;
      if (err) {
        *failed = true;
        return done(err);
      }
      (*results)[i] = v;
      if (--*pending == 0) done({}, *results);
    });
  }
}

/// Pattern 6 with branches that capture a std::string by value and read it
/// after their op. g++ 12 destroys a lambda that is a temporary of a co_await
/// expression twice, which freed such a capture twice (a crash in `coro` and
/// `coro-values`) until the coroutine printer declared the branch first.
void labelled_reads(std::int64_t seed, callback<std::int64_t> done) {
  const std::string label = "a label long enough to live on the heap, #" + std::to_string(seed);
  asyncshift::parallel<std::int64_t>(
      2 + static_cast<std::size_t>(seed % 3),
      [=](std::size_t i, callback<std::int64_t> got) {
        fake::io("lab.read", seed + static_cast<std::int64_t>(i), [=](error err, std::int64_t v) {
          if (err) return got(err);
          got({}, v % 1000 + static_cast<std::int64_t>(label.size()));
        });
      },
      [=](error err, std::vector<std::int64_t> values) {
        if (err) return done(err);
        std::int64_t sum = 0;
        for (std::int64_t v : values) sum = sum * 7 + v;
        done({}, sum);
      });
}

/// Pattern 7 with asyncshift::each_series.
void series(std::int64_t seed, callback<> done) {
  const std::size_t n = 2 + static_cast<std::size_t>(seed % 3);
  asyncshift::each_series(
      n,
      [=](std::size_t i, callback<> step) {
        fake::io("ser.read", seed + static_cast<std::int64_t>(i), [=](error err, std::int64_t v) {
          if (err) return step(err);
          fake::io("ser.write", v % 100, [=](error err, std::int64_t) { step(err); });
        });
      },
      [=](error err) {
        if (err) {
          fake::io("ser.cleanup", seed, [](error, std::int64_t) {});
          return done(err);
        }
        done({});
      });
}

/// Pattern 7 by hand: the recursive lambda. Its parameters are passed on
/// changed (i, total), swapped (a and b: the coroutine's loop needs
/// temporaries) and unchanged (limit).
void recursive(std::int64_t seed, callback<std::int64_t> done) {
  const int n = 2 + static_cast<int>(seed % 4);
  auto step = [=](auto &self, int i, std::int64_t total, std::int64_t a, std::int64_t b, int limit) -> void {
    if (i == limit) return done({}, total + a * 3 + b);
    fake::io("rec.read", seed + i, [=](error err, std::int64_t v) {
      if (err) return done(err);
      self(self, i + 1, total + v % 100, b, a + v % 7, limit);
    });
  };
  step(step, 0, 0, 1, 2, n);
}

void valued(int which, std::int64_t seed, callback<> done) {
  auto finish = [=](error err, std::int64_t v) {
    if (err) return done(err);
    fake::io("result", v % 1000, [=](error err, std::int64_t) { done(err); });
  };
  if (which == 0) return parallel_sum(seed, finish);
  if (which == 5) {
    return counter_labels(seed, [=](error err, std::vector<std::string> labels) {
      if (err) return finish(err, 0);
      std::int64_t sum = 0;
      for (const std::string &l : labels) sum = sum * 7 + static_cast<std::int64_t>(l.size()) + l.back();
      finish({}, sum % 100000);
    });
  }
  if (which == 3) return labelled_reads(seed, finish);
  if (which == 1) {
    return counter_read(seed, [=](error err, std::vector<std::int64_t> values) {
      if (err) return finish(err, 0);
      std::int64_t sum = 0;
      for (std::int64_t v : values) sum = sum * 3 + v % 1000;
      finish({}, sum);
    });
  }
  recursive(seed, finish);
}

} // namespace

void fanout_patterns(std::uint64_t k, callback<> done) {
  const auto seed = static_cast<std::int64_t>(k);
  const int which = static_cast<int>(k % 6);
  if (which == 4) return series(seed, done);
  valued(which, seed, done);
}

ASYNCSHIFT_WORKLOAD("fanout_patterns", fanout_patterns);
