// Shapes the program generator (test/fuzz) found the rewriter getting wrong,
// each reduced to one function, in callback style. The entry runs shape
// k % 24 for execution k; every style's trace digest must equal this file's,
// with and without injected failures.
#include <asyncshift/bench.hpp>

#include <memory>
#include <vector>

using asyncshift::callback;
using asyncshift::error;
namespace fake = asyncshift::fake;

namespace {

/// A series whose step is itself a series forwarding to the outer step: the
/// inner one's outcome ends that step, not the whole function.
void series_in_series(std::int64_t seed, callback<> done) {
  asyncshift::each_series(
      2 + static_cast<std::size_t>(seed % 2),
      [=](std::size_t i, callback<> step) {
        asyncshift::each_series(
            2,
            [=](std::size_t j, callback<> inner) {
              fake::io("sis.op", seed + static_cast<std::int64_t>(i * 10 + j), [=](error err, std::int64_t) {
                inner(err);
              });
            },
            step);
      },
      [=](error err) {
        if (err) {
          fake::io("sis.undo", seed, [](error, std::int64_t) {});
          return done(err);
        }
        fake::io("sis.done", seed, [=](error err, std::int64_t) { done(err); });
      });
}

/// A recursive-lambda loop inside a series step: its end ends the step (and a
/// failure the series), it does not restart the inner loop.
void loop_in_series(std::int64_t seed, callback<> done) {
  asyncshift::each_series(
      2,
      [=](std::size_t i, callback<> step) {
        const int rounds = 1 + static_cast<int>((seed + static_cast<std::int64_t>(i)) % 3);
        auto again = [=](auto &self, int r) -> void {
          if (r == rounds) return step({});
          fake::io("lis.op", seed + r, [=](error err, std::int64_t) {
            if (err) return step(err);
            self(self, r + 1);
          });
        };
        again(again, 0);
      },
      [=](error err) {
        if (err) return done(err);
        fake::io("lis.done", seed, [=](error err, std::int64_t) { done(err); });
      });
}

/// A value read only by a counter idiom, after an error check with cleanup:
/// the value must stay in scope around the fan-out.
void value_for_counter(std::int64_t seed, callback<> done) {
  fake::io("vfc.first", seed, [=](error err, std::int64_t v) {
    if (err) {
      fake::io("vfc.undo", seed, [](error, std::int64_t) {});
      return done(err);
    }
    const std::size_t n = static_cast<std::size_t>(v % 3);
    if (n == 0) return done({});
    auto pending = std::make_shared<std::size_t>(n);
    auto failed = std::make_shared<bool>(false);
    for (std::size_t c = 0; c < n; ++c) {
      fake::io("vfc.each", v + static_cast<std::int64_t>(c), [=](error err, std::int64_t) {
        if (*failed) return;
        if (err) {
          *failed = true;
          return done(err);
        }
        if (--*pending == 0) done({});
      });
    }
  });
}

/// A failure delivered synchronously, before any asynchronous step: promise
/// and future styles return a failed promise, they do not throw at the caller.
void sync_failure(std::int64_t seed, callback<> done) {
  if (seed % 3 == 0) return done(error("sync refusal"));
  fake::io("sf.op", seed, [=](error err, std::int64_t) { done(err); });
}

/// A named continuation defined and joined inside a parallel branch.
void join_in_branch(std::int64_t seed, callback<> done) {
  asyncshift::parallel(
      3,
      [=](std::size_t i, callback<> got) {
        const std::int64_t base = seed + static_cast<std::int64_t>(i);
        auto then = [=](error err, std::int64_t v) {
          if (err) return got(err);
          fake::io("jib.write", base + v % 7, [=](error err, std::int64_t) { got(err); });
        };
        if (base % 2 == 0) {
          fake::io("jib.even", base, [=](error err, std::int64_t v) { then(err, v); });
        } else {
          fake::io("jib.odd", base, [=](error err, std::int64_t v) { then(err, v + 1); });
        }
      },
      [=](error err) {
        if (err) return done(err);
        done({});
      });
}

/// A named continuation defined inside one arm of an `if` and joined after an
/// inner `if`, reading a variable of that arm.
void join_in_arm(std::int64_t seed, callback<> done) {
  if (seed % 4 != 1) {
    const std::int64_t base = seed * 3;
    auto after = [=](error err, std::int64_t v) {
      if (err) return done(err);
      fake::io("jia.write", base + v % 11, [=](error err, std::int64_t) { done(err); });
    };
    if (seed % 2 == 0) {
      fake::io("jia.read", base, [=](error err, std::int64_t v) { after(err, v); });
    } else {
      after({}, 5);
    }
  } else {
    done({});
  }
}

/// A loop whose round ends in a completion after an `if` that recurses: the
/// completion leaves the loop (it is not the redundant end of a coroutine).
void loop_exit_after_if(std::int64_t seed, callback<> done) {
  const int rounds = 1 + static_cast<int>(seed % 3);
  auto again = [=](auto &self, int r) -> void {
    if (r == rounds) return done({});
    fake::io("lea.op", seed + r, [=](error err, std::int64_t v) {
      if (err) return done(err);
      if (v % 4 != 0) {
        fake::io("lea.more", v, [=](error err, std::int64_t) {
          if (err) return done(err);
          self(self, r + 1);
        });
        return;
      }
      done({});
    });
  };
  again(again, 0);
}

/// A series whose steps all complete synchronously: the printed coroutine
/// awaits nothing and still has to be a coroutine.
void sync_series(std::int64_t seed, callback<> done) {
  asyncshift::each_series(
      1 + static_cast<std::size_t>(seed % 2), [=](std::size_t, callback<> step) { step({}); }, done);
}

/// A parallel<T> branch whose continuation only ever fails: in chain styles
/// the step still has to yield a T (its lambda's return type is written).
void branch_only_fails(std::int64_t seed, callback<> done) {
  asyncshift::parallel<std::int64_t>(
      2,
      [=](std::size_t i, callback<std::int64_t> got) {
        fake::io("bof.op", seed + static_cast<std::int64_t>(i), [=](error err, std::int64_t) {
          if (!err) return got(error("branch refused"));
          got(err);
        });
      },
      [=](error err, std::vector<std::int64_t> values) {
        if (err) return done(err);
        fake::io("bof.done", static_cast<std::int64_t>(values.size()), [=](error err, std::int64_t) { done(err); });
      });
}

/// An early `return call(..., done)` before a named continuation joined later
/// in the same continuation: in chain styles the early path must not flow
/// into the join's step.
void early_return_before_join(std::int64_t seed, callback<> done) {
  fake::io("erj.first", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    if (v % 3 == 0) return sync_series(seed, done);
    auto after = [=](error err) {
      if (err) return done(err);
      fake::io("erj.after", v, [](error, std::int64_t) {});
      done({});
    };
    if (v % 2 == 0) {
      fake::io("erj.even", v, [=](error err, std::int64_t) { after(err); });
    } else {
      after({});
    }
  });
}

/// A value read only inside a recursive-lambda loop, after an error check
/// with cleanup: the value must stay in scope around the loop (coro).
void value_for_loop(std::int64_t seed, callback<> done) {
  fake::io("vfl.get", seed, [=](error err, std::int64_t v) {
    if (err) {
      fake::io("vfl.undo", seed, [](error, std::int64_t) {});
      return done(err);
    }
    const int rounds = 1 + static_cast<int>(seed % 3);
    auto again = [=](auto &self, int r) -> void {
      if (r == rounds) return done({});
      fake::io("vfl.op", v % 1000 + r, [=](error err, std::int64_t) {
        if (err) return done(err);
        self(self, r + 1);
      });
    };
    again(again, 0);
  });
}

/// A series whose outcome is ignored: a failing step ends the series and the
/// function still succeeds (coro must not throw the step's failure).
void series_failure_ignored(std::int64_t seed, callback<> done) {
  asyncshift::each_series(
      2,
      [=](std::size_t i, callback<> step) {
        fake::io("sfi.a", seed + static_cast<std::int64_t>(i), [=](error err, std::int64_t v) {
          if (err) return step(err);
          fake::io("sfi.b", v % 1000, [=](error, std::int64_t) { step({}); });
        });
      },
      [=](error) { fake::io("sfi.done", seed, [=](error err, std::int64_t) { done(err); }); });
}

/// As above, the failure inside a recursive-lambda loop in the step.
void series_loop_failure_ignored(std::int64_t seed, callback<> done) {
  asyncshift::each_series(
      2,
      [=](std::size_t i, callback<> step) {
        const int rounds = 1 + static_cast<int>(seed % 3);
        auto again = [=](auto &self, int r) -> void {
          if (r == rounds) return step({});
          fake::io("slfi.op", seed + r + static_cast<std::int64_t>(i), [=](error err, std::int64_t) {
            if (err) return step(err);
            self(self, r + 1);
          });
        };
        again(again, 0);
      },
      [=](error) { done({}); });
}

/// Fan-out branches that fail synchronously, each starting a cleanup op
/// first: callbacks complete before the later branches start theirs, promises
/// after (microtasks). The ops still belong to the execution: every style
/// starts them (the digest counts ops started after completion too).
void fanout_sync_failures(std::int64_t seed, callback<> done) {
  asyncshift::parallel(
      2,
      [=](std::size_t i, callback<> got) {
        sync_failure(seed * 3 + 3, [=](error err) {
          if (err) {
            fake::io("fsf.undo", seed + static_cast<std::int64_t>(i), [](error, std::int64_t) {});
            return got(err);
          }
          got({});
        });
      },
      done);
}

/// A function whose only exit is a failure after a fire-and-forget op:
/// in coro it must still be a coroutine (its task fails; nothing is thrown
/// at the caller, which here ignores the failure and goes on).
void fails_after_op(std::int64_t seed, callback<> done) {
  fake::io("fao.op", seed, [](error, std::int64_t) {});
  return done(error("fao failure"));
}
void ignores_sync_failure(std::int64_t seed, callback<> done) {
  fails_after_op(seed, [=](error) { fake::io("isf.next", seed, [=](error err, std::int64_t) { done(err); }); });
}

/// Fan-out branches whose only exit is a failure: each branch's task fails,
/// every branch still starts its op.
void branches_only_fail(std::int64_t seed, callback<> done) {
  asyncshift::parallel(
      2,
      [=](std::size_t i, callback<> got) {
        fake::io("bof.op", seed + static_cast<std::int64_t>(i), [](error, std::int64_t) {});
        got(error("bof failure"));
      },
      done);
}

/// A named continuation joined inside an `if` arm of a series step, its body
/// joining a second one: in chain styles the arm yields what the join's body
/// yields (the step's nothing), not the join's parameter type (fuzz seed 1
/// program 329: did not compile).
void join_in_step_arm_of(std::int64_t seed, callback<std::int64_t> done) {
  asyncshift::each_series(
      1 + static_cast<std::size_t>(seed % 3),
      [=](std::size_t s, callback<> step) {
        const auto si = static_cast<std::int64_t>(s);
        if ((seed + si) % 4 != 0) {
          const std::int64_t base = (seed * 7 + si) % 1000;
          auto first = [=](error err, std::int64_t j) {
            if (err) return step(err);
            if ((j + si) % 3 != 1) {
              const std::int64_t mid = (j * 3 + base) % 1000;
              auto second = [=](error err, std::int64_t got) { // a named, unused value matters
                if (err) return step(err);
                step({});
              };
              if ((seed + j) % 2 == 0) {
                second({}, j);
              } else {
                return fake::io("jsa.inner", mid, [=](error err, std::int64_t w) { second(err, w + 1); });
              }
            } else {
              return step({});
            }
          };
          if (seed % 2 == 1) {
            fake::io("jsa.odd", base, [=](error err, std::int64_t w) { first(err, w + 1); });
          } else {
            const std::int64_t other = base + 2;
            fake::io("jsa.even", other, [=](error err, std::int64_t w) {
              if (err) return first(err, 0);
              first({}, w + 2);
            });
          }
          return;
        }
        return step({});
      },
      [=](error err) {
        if (err) {
          fake::io("jsa.undo", seed, [](error, std::int64_t) {});
          return done(err);
        }
        done({}, seed % 7);
      });
}
void join_in_step_arm(std::int64_t seed, callback<> done) {
  join_in_step_arm_of(seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    fake::io("jsa.done", v, [=](error err, std::int64_t) { done(err); });
  });
}

/// A `parallel<T>` branch whose arm joins a named continuation (taking only
/// an error) that goes on with another async call and completes the branch:
/// in chain styles the arm yields the branch's T, what the chain nested in it
/// ends with, not the join's nothing (fuzz seed 1 program 204: did not
/// compile).
void values_of(std::int64_t seed, callback<std::vector<std::int64_t>> done) {
  fake::io("vof.op", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    done({}, {v, seed});
  });
}
void join_then_call_in_branch(std::int64_t seed, callback<> done) {
  asyncshift::parallel<std::int64_t>(
      2,
      [=](std::size_t b, callback<std::int64_t> got) {
        const auto bi = static_cast<std::int64_t>(b);
        fake::io("jtc.op", seed + bi, [=](error err, std::int64_t v) {
          if (err) return got(err);
          if ((v + bi) % 5 != 1) {
            auto next = [=](error err) {
              if (err) return got(err);
              values_of(v, [=](error err, std::vector<std::int64_t> vs) {
                if (err) return got(err);
                got({}, vs[0] + vs[1] + bi);
              });
            };
            if ((seed + bi) % 2 == 1) {
              return fake::io("jtc.first", seed, [=](error err, std::int64_t) { next(err); });
            } else {
              next({});
            }
          } else {
            got({}, bi + 6);
          }
        });
      },
      [=](error err, std::vector<std::int64_t> values) {
        if (err) return done(err);
        fake::io("jtc.done", values[0] + values[1], [=](error err, std::int64_t) { done(err); });
      });
}

/// A parallel branch made of a series whose steps never wait, with a cleanup
/// on failure, then a failure; the join ignores the error. The branch must be
/// a coroutine whose task fails, not a function throwing out of when_all's
/// call (coro; fuzz seed 1 program 43).
void series_then_fail_in_branch(std::int64_t seed, callback<> done) {
  asyncshift::parallel<std::int64_t>(
      1 + static_cast<std::size_t>(seed % 3),
      [=](std::size_t b, callback<std::int64_t> got) {
        fake::io("stfb.start", seed + static_cast<std::int64_t>(b), [](error, std::int64_t) {});
        asyncshift::each_series(
            static_cast<std::size_t>(seed % 2),
            [=](std::size_t s, callback<> step) {
              std::int64_t unused = seed + static_cast<std::int64_t>(s);
              (void)unused;
              step({});
            },
            [=](error err) {
              if (err) {
                fake::io("stfb.cleanup", seed, [](error) {});
                return got(err);
              }
              return got(error("stfb failure"));
            });
      },
      [=](error, std::vector<std::int64_t> values) {
        fake::io("stfb.after", seed + static_cast<std::int64_t>(values.size()), [](error, std::int64_t) {});
        done({});
      });
}

/// A cleanup reading the failed call's value, whose name shadows an outer
/// continuation's: on failure it reads the default-made value (promise and
/// future read the outer one; fuzz seed 1 program 78).
void cleanup_reads_value(std::int64_t seed, callback<> done) {
  fake::io("crv.a", seed % 1000, [=](error err, std::int64_t v) {
    if (err) return done(err);
    fake::io("crv.b", (v + 7) % 1000, [=](error err, std::int64_t v) {
      if (err) {
        fake::io("crv.cleanup", (v % 1000) + 1, [](error, std::int64_t) {});
        return done(err);
      }
      fake::io("crv.c", v % 1000, [=](error err, std::int64_t) { done(err); });
    });
  });
}

/// A recursive-lambda loop ending the body of a named continuation joined
/// inside an arm (promise/future: the arm was typed by the join's parameter
/// and did not compile; fuzz seed 1 program 818).
void loop_in_joined_arm(std::int64_t seed, callback<> done) {
  fake::io("lija.a", seed % 1000, [=](error err, std::int64_t v) {
    if (err) return done(err);
    if (seed % 3 != 0) {
      auto next = [=](error err, std::int64_t n) {
        if (err) return done(err);
        auto step = [=](auto &self, std::int64_t i) -> void {
          if (i == n) return done({});
          fake::io("lija.loop", (v + i) % 1000, [=](error err, std::int64_t) {
            if (err) return done(err);
            self(self, i + 1);
          });
        };
        step(step, 0);
      };
      if (seed % 2 == 0) {
        fake::io("lija.b", 2, [=](error err, std::int64_t) { next(err, 1 + seed % 2); });
      } else {
        fake::io("lija.c", 3, [=](error err, std::int64_t) { next(err, 2); });
      }
      return;
    }
    done({});
  });
}

/// A named continuation passed as a handler inside a step of a series that
/// keeps its error (nested in another's step): the join must see the failure
/// and end the step with it, cleanup first (coro; fuzz seed 1 programs 923,
/// 924).
void join_in_series_step(std::int64_t seed, callback<> done) {
  asyncshift::each_series(
      2,
      [=](std::size_t i, callback<> step) {
        asyncshift::each_series(
            2,
            [=](std::size_t s, callback<> step) {
              auto next = [=](error err, std::int64_t v) {
                if (err) {
                  fake::io("jiss.cleanup", seed, [](error, std::int64_t) {});
                  return step(err);
                }
                fake::io("jiss.after", v % 1000, [](error, std::int64_t) {});
                step({});
              };
              if ((seed + static_cast<std::int64_t>(i + s)) % 3 != 0) {
                fake::io("jiss.op", seed + static_cast<std::int64_t>(s), next);
              } else {
                next({}, seed);
              }
            },
            step);
      },
      [=](error err) {
        fake::io("jiss.done", seed, [](error, std::int64_t) {});
        done(err);
      });
}

/// A chain step whose one arm joins a named continuation after an inner `if`
/// that calls it at once from both arms, and whose other arm completes: the
/// joining arm returns a promise (a chain headed by the `if`), so the
/// completing arm has to return a settled one (fuzz seed 13 program 55, with
/// --strings: did not compile in promise and future).
void join_in_arm_beside_completion(std::int64_t seed, callback<> done) {
  fake::io("jabc.op", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    if (v % 3 != 0) {
      auto next = [=](error err) {
        if (err) return done(err);
        fake::io("jabc.next", v % 100, [](error, std::int64_t) {});
        done({});
      };
      if (seed % 2 == 0) {
        next({});
      } else {
        next({});
      }
      return;
    }
    return done({});
  });
}

/// A chain step whose one arm joins a named continuation that only fails,
/// with a value completion after the arm: the step is typed by that
/// completion (fuzz seed 2929 program 4: typed by the continuation's missing
/// parameter, the promise and future outputs did not compile).
void join_only_fails_of(std::int64_t seed, callback<std::int64_t> done) {
  fake::io("jof.op", seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    if (v % 4 == 1) {
      auto refuse = [=](error err) {
        if (err) return done(err);
        return done(error("jof refused"));
      };
      if (seed % 2 == 0) {
        fake::io("jof.check", v % 100, [=](error err, std::int64_t) {
          if (err) return refuse(err);
          refuse({});
        });
      } else {
        refuse({});
      }
      return;
    }
    done({}, v % 1000);
  });
}

void join_only_fails(std::int64_t seed, callback<> done) {
  join_only_fails_of(seed, [=](error err, std::int64_t v) {
    if (err) return done(err);
    fake::io("jof.after", v, [=](error err, std::int64_t) { done(err); });
  });
}

} // namespace

void fuzz_regressions(std::uint64_t k, callback<> done) {
  const auto seed = static_cast<std::int64_t>(k / 24);
  const auto which = k % 24;
  if (which == 0) return series_in_series(seed, done);
  if (which == 1) return loop_in_series(seed, done);
  if (which == 2) return value_for_counter(seed, done);
  if (which == 3) return sync_failure(seed, done);
  if (which == 4) return join_in_branch(seed, done);
  if (which == 6) return loop_exit_after_if(seed, done);
  if (which == 7) return sync_series(seed, done);
  if (which == 8) return branch_only_fails(seed, done);
  if (which == 9) return early_return_before_join(seed, done);
  if (which == 10) return value_for_loop(seed, done);
  if (which == 11) return series_failure_ignored(seed, done);
  if (which == 12) return series_loop_failure_ignored(seed, done);
  if (which == 13) return fanout_sync_failures(seed, done);
  if (which == 14) return ignores_sync_failure(seed, done);
  if (which == 15) return branches_only_fail(seed, done);
  if (which == 16) return join_in_step_arm(seed, done);
  if (which == 17) return join_then_call_in_branch(seed, done);
  if (which == 18) return series_then_fail_in_branch(seed, done);
  if (which == 19) return cleanup_reads_value(seed, done);
  if (which == 20) return loop_in_joined_arm(seed, done);
  if (which == 21) return join_in_series_step(seed, done);
  if (which == 22) return join_in_arm_beside_completion(seed, done);
  if (which == 23) return join_only_fails(seed, done);
  join_in_arm(seed, done);
}

ASYNCSHIFT_WORKLOAD("fuzz_regressions", fuzz_regressions);
