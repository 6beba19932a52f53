// make_future_chain: a chain of future continuations in one state. It must
// mean what the same chain of future::then means (values, returned futures and
// operations, errors, cleanups, lifetimes), with one allocation for the chain.
#include "counted.hpp"
#include "timed_ops.hpp"

#include <asyncshift/fake.hpp>
#include <asyncshift/future_chain.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/shared_state.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace asyncshift;
using asyncshift::test::counted;
using asyncshift::test::failing_op_after;
using asyncshift::test::live_objects;
using asyncshift::test::ms;
using asyncshift::test::op_after;

namespace {

/// The outcome of \p f, once the loop has run.
struct outcome {
  bool done = false;
  error err;
  std::string value;
};

template <class T>
void watch(future<T> f, outcome& out) {
  std::move(f).then_callback([&out](error e, auto... v) {
    out.done = true;
    out.err = std::move(e);
    if constexpr (sizeof...(v) == 1) out.value = std::to_string(v...);
  });
}
void watch(future<> f, outcome& out) {
  std::move(f).then_callback([&out](error e) {
    out.done = true;
    out.err = std::move(e);
  });
}

/// An op that completes from its timer node with a direct call to its sink
/// that hands the callback's reference over with the value (as the doxbee
/// world's ops do): the chain's reference it stood for goes on with the step.
template <class H>
void handing_op(std::int64_t delay, H cb) {
  static const fake::op_name op{"future_chain_test.op"};
  fake::start_io<fake::detail::deliver_value>(op, 1, delay, std::move(cb));
}

} // namespace

TEST(future_chain, values_operations_and_futures_flow_through_the_steps_in_order) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> trace;
  future<int> f = make_future_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
                      .then([&](int v) {
                        trace.push_back("op " + std::to_string(v));
                        return promisify<int>([&l, v](auto cb) { op_after(l, ms, v + 1, std::move(cb)); });
                      })
                      .then([&](int v) {
                        trace.push_back("value " + std::to_string(v));
                        return v * 10;
                      })
                      .then([&](int v) {
                        trace.push_back("nothing " + std::to_string(v));
                      })
                      .then([&] {
                        trace.push_back("future");
                        return make_future<int>([&](auto cb) { op_after(l, ms, 7, std::move(cb)); });
                      })
                      .then([&](int v) { return make_ready_future(v + 1); });
  outcome out;
  watch(std::move(f), out);
  EXPECT_TRUE(trace.empty()) << "the first operation has not completed";
  l.run();
  EXPECT_EQ(trace, (std::vector<std::string>{"op 1", "value 2", "nothing 20", "future"}));
  ASSERT_TRUE(out.done);
  EXPECT_FALSE(out.err);
  EXPECT_EQ(out.value, "8");
}

TEST(future_chain, a_cleanup_with_nothing_to_destroy_leaves_its_room_trivially_destructible) {
  // A chain's rooms and the states that hold a cleanup then go without a
  // test each; one that owns something still destroys it exactly once,
  // whether it was dropped (its operation succeeded) or never ran.
  auto plain = [id = 7](const error&) { (void)id; };
  auto owning = [c = counted(1)](const error&) { (void)c; };
  static_assert(std::is_trivially_destructible_v<detail::cleanup_slot<decltype(plain)>>);
  static_assert(!std::is_trivially_destructible_v<detail::cleanup_slot<decltype(owning)>>);
  counted::reset();
  {
    detail::cleanup_slot<decltype(owning)> dropped, kept;
    dropped.put(owning);
    kept.put(owning);
    dropped.drop();
    EXPECT_EQ(counted::active(), 1);
  }
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(counted::destructions, counted::constructions());
  // A trivial one still runs once on failure, and not at all once dropped.
  int ran = 0;
  auto note = [ran = &ran](const error&) { ++*ran; };
  static_assert(std::is_trivially_destructible_v<detail::cleanup_slot<decltype(note)>>);
  error e("failed");
  detail::cleanup_slot<decltype(note)> failed, dropped_first;
  failed.put(note);
  failed.fail(e);
  failed.fail(e);
  EXPECT_EQ(ran, 1);
  dropped_first.put(note);
  dropped_first.drop();
  dropped_first.fail(e);
  EXPECT_EQ(ran, 1);
}

TEST(future_chain, a_chain_of_synchronous_steps_is_ready_when_it_is_made) {
  future<int> f = make_future_chain<int>([](auto cb) { cb({}, 2); })
                      .then([](int v) { return promisify<int>([v](auto cb) { cb({}, v * 3); }); })
                      .then([](int v) { return v + 1; });
  ASSERT_TRUE(f.is_ready());
  EXPECT_EQ(std::move(f).get(), 7);
}

TEST(future_chain, the_chain_is_one_allocation_where_thens_make_one_per_step) {
  loop l(clock_kind::virtual_time);
  auto chain_of = [&](auto make) {
    const auto before = detail::memory_snapshot().allocs;
    future<int> f = make();
    const auto made = detail::memory_snapshot().allocs - before;
    outcome out;
    watch(std::move(f), out);
    l.run();
    EXPECT_EQ(out.value, "3");
    return made;
  };
  auto step = [](int v) { return promisify<int>([v](auto cb) { cb({}, v + 1); }); };
  const auto fused = chain_of([&] {
    return future<int>(make_future_chain<int>([&](auto cb) { op_after(l, ms, 0, std::move(cb)); }).then(step).then(step).then(step));
  });
  const auto thens = chain_of([&] {
    return make_future<int>([&](auto cb) { op_after(l, ms, 0, std::move(cb)); }).then(step).then(step).then(step);
  });
  // Both count the first operation's timer; the steps' operations complete at once.
  EXPECT_EQ(fused, 1 + 1) << "the chain's state";
  EXPECT_EQ(thens, 1 + 4) << "make_future's state and three then states";
}

TEST(future_chain, an_error_skips_the_remaining_steps_and_destroys_them_at_once) {
  counted::reset();
  loop l(clock_kind::virtual_time);
  int ran = 0;
  future<int> f = make_future_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
                      .then([&](int) { return promisify<int>([&l](auto cb) { failing_op_after(l, ms, "disk full", std::move(cb)); }); })
                      .then([&, c = counted(1)](int v) {
                        ++ran;
                        return v;
                      })
                      .then([&, c = counted(2)](int v) {
                        ++ran;
                        return v;
                      });
  std::string failure;
  int alive_at_failure = -1;
  std::move(f).then_callback([&](error e, int) {
    failure = e.message();
    alive_at_failure = counted::active(); // the chain's state still exists here
  });
  EXPECT_EQ(counted::active(), 2);
  l.run();
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(failure, "disk full");
  EXPECT_EQ(alive_at_failure, 0) << "the skipped handlers go before the failure is delivered";
  EXPECT_EQ(counted::active(), 0);
}

TEST(future_chain, each_handler_is_destroyed_as_soon_as_it_has_run) {
  counted::reset();
  loop l(clock_kind::virtual_time);
  std::vector<int> alive;
  future<> f = make_future_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
                   .then([&, c = counted(1)](int v) {
                     return promisify<int>([&l, v](auto cb) { op_after(l, ms, v, std::move(cb)); });
                   })
                   .then([&, c = counted(2)](int) { alive.push_back(static_cast<int>(counted::active())); })
                   .then([&, c = counted(3)] { return make_future<int>([&](auto cb) { op_after(l, ms, 5, std::move(cb)); }); })
                   .then([&, c = counted(4)](int) { alive.push_back(static_cast<int>(counted::active())); });
  outcome out;
  watch(std::move(f), out);
  l.run();
  // The first went when its operation started; the second (which returns
  // nothing) before the third ran; the third (which returns a future) before
  // that future was ready.
  EXPECT_EQ(alive, (std::vector<int>{3, 1}));
  EXPECT_EQ(counted::active(), 0);
  EXPECT_TRUE(out.done);
}

TEST(future_chain, a_handler_that_throws_fails_the_chain) {
  loop l(clock_kind::virtual_time);
  bool later = false;
  future<int> f = make_future_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
                      .then([](int) -> int { throw std::runtime_error("bad row"); })
                      .then([&](int v) {
                        later = true;
                        return v;
                      });
  outcome out;
  watch(std::move(f), out);
  l.run();
  EXPECT_FALSE(later);
  EXPECT_EQ(out.err.message(), "bad row");
}

TEST(future_chain, a_start_that_throws_fails_the_chain) {
  future<int> f = make_future_chain<int>([](auto) -> void { throw std::runtime_error("no socket"); }).then([](int v) { return v; });
  ASSERT_TRUE(f.is_ready());
  EXPECT_EQ(f.get_error().message(), "no socket");
}

TEST(future_chain, cleanups_run_inline_before_the_failure_and_only_for_their_own_operation) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> order;
  future<> f = make_future_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); },
                                      on_error([&] { order.push_back("first cleanup"); }))
                   .then([&](int) {
                     return promisify<int>([&l](auto cb) { failing_op_after(l, ms, "second failed", std::move(cb)); },
                                           on_error([&](const error& e) { order.push_back("second cleanup: " + e.message()); }));
                   })
                   .then([&](int) { order.push_back("never"); });
  std::move(f).then_callback([&](error e) { order.push_back("failed: " + e.message()); });
  l.run();
  EXPECT_EQ(order, (std::vector<std::string>{"second cleanup: second failed", "failed: second failed"}));
}

TEST(future_chain, the_first_operations_cleanup_runs_when_it_fails) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> order;
  future<int> f = make_future_chain<int>([&](auto cb) { failing_op_after(l, ms, "put failed", std::move(cb)); },
                                         on_error([&] { order.push_back("cleanup"); }))
                      .then([](int v) { return v; });
  std::move(f).then_callback([&](error e, int) { order.push_back("failed: " + e.message()); });
  l.run();
  EXPECT_EQ(order, (std::vector<std::string>{"cleanup", "failed: put failed"}));
}

TEST(future_chain, a_handler_may_return_another_chain_without_naming_its_type) {
  loop l(clock_kind::virtual_time);
  future<std::string> f = make_future_chain<int>([&](auto cb) { op_after(l, ms, 4, std::move(cb)); })
                              .then([&](int v) {
                                return make_future_chain<int>([&l, v](auto cb) { op_after(l, ms, v, std::move(cb)); })
                                    .then([](int w) { return std::to_string(w * 2); });
                              })
                              .then([](std::string s) { return s + "!"; });
  std::string got;
  std::move(f).then_callback([&](error e, std::string s) {
    EXPECT_FALSE(e);
    got = s;
  });
  l.run();
  EXPECT_EQ(got, "8!");
  // and so may a future::then handler
  future<int> g = make_ready_future(1).then([](int v) { return make_future_chain<int>([v](auto cb) { cb({}, v); }).then([](int w) { return w + 1; }); });
  EXPECT_EQ(std::move(g).get(), 2);
}

TEST(future_chain, when_all_over_chains_joins_them) {
  loop l(clock_kind::virtual_time);
  auto all = when_all(3, [&](std::size_t i) {
    return make_future_chain<int>([&l, i](auto cb) { op_after(l, ms, static_cast<int>(i), std::move(cb)); }).then([](int v) { return v * 10; });
  });
  std::vector<int> got;
  std::move(all).then_callback([&](error e, std::vector<int> v) {
    EXPECT_FALSE(e);
    got = std::move(v);
  });
  l.run();
  EXPECT_EQ(got, (std::vector<int>{0, 10, 20}));
}

TEST(future_chain, an_abandoned_operation_frees_the_chain_and_its_handlers) {
  counted::reset();
  const auto before = live_objects();
  {
    callback<int> kept;
    future<int> f = make_future_chain<int>([&](callback<int> cb) { kept = cb; })
                        .then([c = counted(1)](int v) { return v; })
                        .then([c = counted(2)](int v) { return v; });
    bool called = false;
    std::move(f).then_callback([&](error, int) { called = true; });
    EXPECT_EQ(counted::active(), 2);
    kept = nullptr; // the operation drops its callback without calling it
    EXPECT_FALSE(called) << "an abandoned future's continuation is never called, as in callback style";
  }
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(live_objects(), before);
}

TEST(future_chain, a_value_moves_along_the_chain_without_copies) {
  counted::reset();
  {
    loop l(clock_kind::virtual_time);
    future<> f = make_future_chain<counted>([&](callback<counted> cb) { l.set_timeout(ms, [cb] { cb({}, counted(1)); }); })
                     .then([](counted c) { return c; })
                     .then([](counted&& c) { return make_ready_future(std::move(c)); })
                     .then([](const counted& c) { EXPECT_EQ(c.id, 1); });
    outcome out;
    watch(std::move(f), out);
    l.run();
    EXPECT_TRUE(out.done);
  }
  EXPECT_EQ(counted::copy_constructions, 0);
  EXPECT_EQ(counted::active(), 0);
}

TEST(future_chain, a_cleanup_that_cancels_its_operation_sees_it_complete_once_and_that_outcome_wins) {
  loop l(clock_kind::virtual_time);
  callback<int> op;
  int cleanups = 0;
  future<int> f = make_future_chain<int>(
                      [&](callback<int> cb) {
                        op = cb;
                        throw std::runtime_error("start failed");
                      },
                      on_error([&] {
                        ++cleanups;
                        callback<int> cancel = std::move(op);
                        cancel({}, 7);
                      }))
                      .then([](int v) { return v + 1; });
  EXPECT_EQ(cleanups, 1);
  ASSERT_TRUE(f.is_ready());
  EXPECT_EQ(std::move(f).get(), 8);
}

TEST(future_chain, an_exception_from_the_consumer_is_not_taken_for_the_handlers) {
  // The chain fails for what its handlers throw; what its consumer throws,
  // once the chain has settled, goes on to whoever completed the operation,
  // as it does from a then state.
  auto consume = [](auto f) {
    std::move(f).then_callback([](error e, int) {
      if (!e) throw std::runtime_error("consumer");
    });
  };
  callback<int> fused_op, then_op;
  consume(future<int>(make_future_chain<int>([&](callback<int> cb) { fused_op = cb; }).then([](int v) { return v + 1; })));
  consume(make_future<int>([&](callback<int> cb) { then_op = cb; }).then([](int v) { return v + 1; }));
  EXPECT_THROW(then_op({}, 1), std::runtime_error);
  EXPECT_THROW(fused_op({}, 1), std::runtime_error);
}

// keep(): the chain holds the per-call state until it is destroyed, so that
// its lambdas may capture a plain pointer. The last step's operation starts
// after its handler is gone, and a cleanup runs after every handler is: both
// still read the state. Without keep() the state would go with its last
// shared_state (the `owner` scope), before the loop runs.
TEST(future_chain, a_kept_state_outlives_the_last_operations_start_and_every_cleanup) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::vector<int> seen;
    future<int> p;
    {
      auto owner = make_shared_state<counted>(7);
      counted* state = owner.get();
      p = make_future_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
              .keep(std::move(owner))
              .then([state, &l](int v) {
                state->id += v;
                return promisify<int>([state, &l](auto cb) { op_after(l, ms, state->id, std::move(cb)); });
              })
              .then([state, &l, &seen](int v) {
                seen.push_back(v);
                return promisify<int>(
                    [state, &l, &seen](auto cb) {
                      seen.push_back(counted::active() == 1 ? state->id : -1); // after its handler went
                      failing_op_after(l, ms, "last failed", std::move(cb));
                    },
                    on_error([state, &seen] { seen.push_back(counted::active() == 1 ? state->id * 10 : -1); }));
              });
      EXPECT_FALSE(owner) << "keep() took the reference";
    }
    EXPECT_EQ(counted::active(), 1) << "the chain keeps the state";
    std::string failure;
    std::move(p).then_callback([&](error e, int) { failure = e.message(); });
    l.run();
    EXPECT_EQ(seen, (std::vector<int>{8, 8, 80}));
    EXPECT_EQ(failure, "last failed");
    p = {};
    EXPECT_EQ(counted::active(), 0) << "the state goes with the chain";
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(future_chain, a_kept_state_goes_with_a_chain_that_is_never_started) {
  counted::reset();
  {
    auto owner = make_shared_state<counted>(1);
    auto chain = make_future_chain<int>([](callback<int>) {}).keep(std::move(owner)).then([](int v) { return v; });
    EXPECT_EQ(counted::active(), 1);
  }
  EXPECT_EQ(counted::active(), 0);
}

TEST(future_chain, only_the_steps_an_operation_completes_take_room_for_its_callback) {
  // A step's callback handler (16 bytes in the chain's state) is what its
  // operation completes; a value a handler returns, or a future it returns,
  // reaches the step without one.
  auto to_op = [](std::int64_t v) { return promisify<std::int64_t>([v](auto cb) { cb({}, v + 1); }); };
  auto to_value = [](std::int64_t v) { return v + 1; };
  auto to_future = [](std::int64_t v) { return make_ready_future(v + 1); };
  using O = decltype(to_op);
  using V = decltype(to_value);
  using F = decltype(to_future);
  constexpr std::size_t sink = sizeof(detail::handler<std::int64_t>);
  EXPECT_EQ(sizeof(detail::chain_fstate<std::int64_t, void, O, O, O>) - sizeof(detail::chain_fstate<std::int64_t, void, V, V, V>), 3 * sink);
  EXPECT_EQ(sizeof(detail::chain_fstate<std::int64_t, void, O, O, O>) - sizeof(detail::chain_fstate<std::int64_t, void, F, F, F>), 3 * sink);

  loop l(clock_kind::virtual_time);
  outcome out;
  watch(future<std::int64_t>(make_future_chain<std::int64_t>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
                                 .then(to_value)
                                 .then(to_op)
                                 .then(to_future)
                                 .then(to_value)),
        out);
  l.run();
  EXPECT_EQ(out.value, "5");
}

// The reference a step's operation hands on with its value (to the operation
// the handler starts next, or the continuation of a future it returned) must
// be dropped, once, wherever the step ends without one. Each case: a step
// after such an operation, ending one way; the chain and everything it made
// are freed, and its future completes as a then chain's would.
TEST(future_chain, every_way_a_step_after_an_operation_that_hands_its_reference_on_ends_frees_the_chain) {
  using make_chain = std::function<future<std::int64_t>(loop&)>;
  auto first = [](auto cb) { handing_op(ms, std::move(cb)); };
  auto later = [](loop& l, std::int64_t v) { // a future that is ready a timer later
    return make_future<std::int64_t>([&l, v](auto cb) { l.set_timeout(ms, [cb = callback<std::int64_t>(std::move(cb)), v] { cb({}, v); }); });
  };
  const struct {
    const char* name;
    make_chain make;
    std::string value; // the chain's value ("" when it fails)
    std::string error; // or its error's message
  } cases[] = {
      {"the handler starts the next operation",
       [&](loop&) {
         return make_future_chain<std::int64_t>(first).then(
             [](std::int64_t) { return promisify<std::int64_t>([](auto cb) { handing_op(ms, std::move(cb)); }); });
       },
       "", ""},
      {"the next operation completes inside its start",
       [&](loop&) {
         return make_future_chain<std::int64_t>(first)
             .then([](std::int64_t) {
               return promisify<std::int64_t>([](auto cb) { asyncshift::detail::succeed_last<std::int64_t>(cb, std::int64_t{5}); });
             })
             .then([](std::int64_t v) { return v + 1; });
       },
       "6", ""},
      {"the handler throws",
       [&](loop&) {
         return make_future_chain<std::int64_t>(first).then([](std::int64_t) -> std::int64_t { throw std::runtime_error("bad row"); });
       },
       "", "bad row"},
      {"the handler returns a failed future",
       [&](loop&) {
         return make_future_chain<std::int64_t>(first)
             .then([](std::int64_t) { return make_failed_future<std::int64_t>(error("refused")); })
             .then([](std::int64_t v) { return v; });
       },
       "", "refused"},
      {"the handler returns an empty future",
       [&](loop&) { return make_future_chain<std::int64_t>(first).then([](std::int64_t) { return future<std::int64_t>(); }); }, "",
       "future: a handler returned an empty future"},
      {"the handler returns a ready future",
       [&](loop&) { return make_future_chain<std::int64_t>(first).then([](std::int64_t) { return make_ready_future(std::int64_t{9}); }); },
       "9", ""},
      {"a middle handler returns a pending future",
       [&](loop& l) {
         return make_future_chain<std::int64_t>(first).then([&l, later](std::int64_t) { return later(l, 7); }).then([](std::int64_t v) {
           return v * 6;
         });
       },
       "42", ""},
      {"a middle handler returns a pending future that fails",
       [&](loop& l) {
         return make_future_chain<std::int64_t>(first)
             .then([&l](std::int64_t) {
               return make_future<std::int64_t>(
                   [&l](auto cb) { l.set_timeout(ms, [cb = callback<std::int64_t>(std::move(cb))] { cb(error("late")); }); });
             })
             .then([](std::int64_t v) { return v; });
       },
       "", "late"},
      {"a middle handler returns a pending future of nothing",
       [&](loop& l) {
         return make_future_chain<std::int64_t>(first)
             .then([&l, later](std::int64_t) { return later(l, 1).then([](std::int64_t) {}); })
             .then([] { return std::int64_t{3}; });
       },
       "3", ""},
      {"the last handler returns a pending future",
       [&](loop& l) { return make_future_chain<std::int64_t>(first).then([&l, later](std::int64_t) { return later(l, 7); }); }, "7", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto before = live_objects();
    outcome out;
    {
      loop l(clock_kind::virtual_time);
      watch(c.make(l), out);
      l.run();
    }
    EXPECT_TRUE(out.done);
    EXPECT_EQ(out.err.message(), c.error);
    if (!c.value.empty()) EXPECT_EQ(out.value, c.value);
    EXPECT_EQ(live_objects(), before);
  }
}

// The recursive-lambda idiom in future style: each iteration's chain adopts
// the next iteration's, and the last settles them all. Settled by nested
// delivery, a million iterations overflowed the stack (at 300,000 with
// g++ -O2); they are handed on in run_continuations' loop.
namespace {
future<long> count_up(loop& l, int i, int n, int fail_at, long acc) {
  if (i == n) return make_ready_future_of<long>(acc);
  return make_future_chain<int>([&l, i, fail_at](auto cb) {
           if (i == fail_at)
             failing_op_after(l, 1, "stop", std::move(cb));
           else
             op_after(l, 1, i % 7, std::move(cb));
         })
      .then([&l, i, n, fail_at, acc](int v) { return count_up(l, i + 1, n, fail_at, acc + v); });
}
} // namespace

TEST(future_chain, a_million_chains_each_adopting_the_next_settle_in_a_loop_not_by_recursion) {
  loop l(clock_kind::virtual_time);
  const auto before = live_objects();
  long got = -1;
  count_up(l, 0, 1'000'000, -1, 0).then_callback([&](error e, long v) { got = e ? -2 : v; });
  l.run();
  long expected = 0;
  for (int i = 0; i < 1'000'000; ++i) expected += i % 7;
  EXPECT_EQ(got, expected);
  EXPECT_LE(live_objects(), before) << "every chain freed";
}

TEST(future_chain, a_failure_at_the_end_of_a_million_adopting_chains_reaches_the_first_in_a_loop) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  count_up(l, 0, 1'000'000, 999'999, 0).then_callback([&](error e, long) { msg = e.message(); });
  l.run();
  EXPECT_EQ(msg, "stop");
}
