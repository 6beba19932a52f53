// make_promise_chain: a chain of promise reactions in one state. It must mean
// what the same chain of promise::then means (values, returned promises and
// operations, errors, cleanups, lifetimes, and each handler in a microtask of
// its own, in the same order among other microtasks), with one allocation for
// the chain.
#include "counted.hpp"
#include "timed_ops.hpp"

#include <asyncshift/fake.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/shared_state.hpp>
#include <asyncshift/promise_chain.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace asyncshift;
using asyncshift::test::counted;
using asyncshift::test::failing_op_after;
using asyncshift::test::live_objects;
using asyncshift::test::ms;
using asyncshift::test::op_after;

namespace {

/// The outcome of a promise, once the loop has run.
struct outcome {
  bool done = false;
  error err;
  std::string value;
};

template <class T>
void watch(const promise<T>& p, outcome& out) {
  p.then_callback([&out](error e, auto... v) {
    out.done = true;
    out.err = std::move(e);
    if constexpr (sizeof...(v) == 1) out.value = std::to_string(v...);
  });
}

/// Queues \p f as a plain microtask.
template <class F>
void microtask(loop& l, F f) {
  l.queue_microtask(
      [](void* d) {
        auto* g = static_cast<F*>(d);
        (*g)();
        delete g;
      },
      new F(std::move(f)));
}

/// One chain of every kind of step, recording each handler in \p trace as
/// `name:step`, fused or made of thens: the two must interleave with other
/// microtasks in the same way.
promise<int> every_kind_of_step(loop& l, std::vector<std::string>& trace, const std::string& name, bool fused) {
  auto first = [&l](auto cb) { op_after(l, 0, 1, std::move(cb)); }; // completes inside its start
  auto note = [&trace, name](const char* what) { trace.push_back(name + ":" + what); };
  auto op = [note, &l](int v) {
    note("op");
    return promisify<int>([&l, v](auto cb) { op_after(l, 0, v + 1, std::move(cb)); });
  };
  auto value = [note](int v) {
    note("value");
    return v * 10;
  };
  auto nothing = [note](int) { note("nothing"); };
  auto settled = [note] {
    note("settled");
    return promise<int>::resolve(3);
  };
  auto pending = [note](int v) { // settles a microtask later
    note("pending");
    return promise<int>::resolve(v).then([](int w) { return w + 1; });
  };
  auto nested = [note, &l](int v) -> promise<int> {
    note("nested");
    return make_promise_chain<int>([&l, v](auto cb) { op_after(l, 0, v, std::move(cb)); }).then([](int w) { return w * 2; });
  };
  auto timed = [note, &l](int v) {
    note("timed");
    return promisify<int>([&l, v](auto cb) { op_after(l, ms, v + 1, std::move(cb)); });
  };
  if (fused)
    return make_promise_chain<int>(first).then(op).then(value).then(nothing).then(settled).then(pending).then(nested).then(timed);
  return make_promise<int>(first).then(op).then(value).then(nothing).then(settled).then(pending).then(nested).then(timed);
}

/// An op that completes from its timer node with a direct call to its sink,
/// as the doxbee world's ops do: the path on which a fused chain runs the
/// next handler at once (no microtask) when no other microtask waits.
template <class H>
void loop_op(std::int64_t delay, H cb) {
  static const fake::op_name op{"promise_chain_test.op"};
  fake::start_io<fake::detail::deliver_value>(op, 1, delay, std::move(cb));
}

/// An on_error cleanup whose destruction (when its operation succeeds)
/// queues a microtask that notes "microtask" in \p trace.
struct queues_when_dropped {
  loop* l;
  std::vector<std::string>* trace;
  bool armed = true;
  queues_when_dropped(loop* l, std::vector<std::string>* trace) : l(l), trace(trace) {}
  queues_when_dropped(queues_when_dropped&& o) noexcept : l(o.l), trace(o.trace) { o.armed = false; }
  ~queues_when_dropped() {
    if (armed) microtask(*l, [t = trace] { t->push_back("microtask"); });
  }
  void operator()(const error&) const {}
};

} // namespace

TEST(promise_chain, values_operations_and_promises_flow_through_the_steps_in_order) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> trace;
  promise<int> p = every_kind_of_step(l, trace, "a", true);
  outcome out;
  watch(p, out);
  EXPECT_TRUE(trace.empty()) << "no handler runs before the microtasks do, even when the operation completed";
  EXPECT_TRUE(p.is_pending());
  l.run();
  EXPECT_EQ(trace, (std::vector<std::string>{"a:op", "a:value", "a:nothing", "a:settled", "a:pending", "a:nested", "a:timed"}));
  ASSERT_TRUE(out.done);
  EXPECT_FALSE(out.err);
  EXPECT_EQ(out.value, "9"); // 3 + 1 = 4, twice is 8, + 1
}

TEST(promise_chain, its_handlers_take_their_turns_among_other_microtasks_as_then_handlers_do) {
  // Two chains and a stream of plain microtasks, run once with thens and once
  // fused: every handler must run at the same place in the interleaving.
  auto run = [](bool fused) {
    loop l(clock_kind::virtual_time);
    std::vector<std::string> trace;
    outcome a, b;
    watch(every_kind_of_step(l, trace, "a", fused), a);
    // A ticker that queues itself again, 16 times: a handler's place
    // among its ticks counts the microtasks before it.
    std::function<void(int)> tick = [&](int i) {
      trace.push_back("tick " + std::to_string(i));
      if (i < 15) microtask(l, [&, i] { tick(i + 1); });
    };
    microtask(l, [&] { tick(0); });
    watch(every_kind_of_step(l, trace, "b", fused), b);
    l.run();
    EXPECT_EQ(a.value, "9");
    EXPECT_EQ(b.value, "9");
    return trace;
  };
  const std::vector<std::string> thens = run(false);
  EXPECT_EQ(run(true), thens);
  EXPECT_EQ(thens.size(), 2u * 7 + 16);
}

TEST(promise_chain, the_chain_is_one_allocation_where_thens_make_one_per_step) {
  loop l(clock_kind::virtual_time);
  auto chain_of = [&](auto make) {
    const auto before = detail::memory_snapshot().allocs;
    promise<int> p = make();
    const auto made = detail::memory_snapshot().allocs - before;
    outcome out;
    watch(p, out);
    l.run();
    EXPECT_EQ(out.value, "3");
    return made;
  };
  auto step = [](int v) { return promisify<int>([v](auto cb) { cb({}, v + 1); }); };
  const auto fused = chain_of([&] {
    return promise<int>(make_promise_chain<int>([&](auto cb) { op_after(l, ms, 0, std::move(cb)); }).then(step).then(step).then(step));
  });
  const auto thens = chain_of([&] {
    return make_promise<int>([&](auto cb) { op_after(l, ms, 0, std::move(cb)); }).then(step).then(step).then(step);
  });
  // Both count the first operation's timer.
  EXPECT_EQ(fused, 1 + 1) << "the chain's state";
  EXPECT_EQ(thens, 1 + 4) << "make_promise's state and three then states";
}

TEST(promise_chain, an_error_rejects_at_once_and_destroys_the_remaining_steps) {
  counted::reset();
  loop l(clock_kind::virtual_time);
  int ran = 0;
  promise<int> p = make_promise_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
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
  p.then_callback([&](error e, int) {
    failure = e.message();
    alive_at_failure = counted::active();
  });
  EXPECT_EQ(counted::active(), 2);
  l.run();
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(failure, "disk full");
  EXPECT_EQ(alive_at_failure, 0) << "the skipped handlers go when the chain rejects";
  EXPECT_TRUE(p.is_rejected());
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

TEST(promise_chain, a_rejection_nobody_handles_is_reported_when_the_loop_ends) {
  testing::internal::CaptureStderr();
  std::uint64_t reported = 0;
  {
    loop l(clock_kind::virtual_time);
    promise<int> p = make_promise_chain<int>([&](auto cb) { failing_op_after(l, ms, "lost", std::move(cb)); }).then([](int v) { return v; });
    l.run();
    reported = l.unhandled_rejections();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(reported, 1u);
  EXPECT_NE(err.find("unhandled promise rejection: lost"), std::string::npos) << err;
}

TEST(promise_chain, each_handler_is_destroyed_as_soon_as_it_has_run) {
  counted::reset();
  loop l(clock_kind::virtual_time);
  std::vector<int> alive;
  promise<> p = make_promise_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
                    .then([&, c = counted(1)](int v) { return promisify<int>([&l, v](auto cb) { op_after(l, ms, v, std::move(cb)); }); })
                    .then([&, c = counted(2)](int) { alive.push_back(static_cast<int>(counted::active())); })
                    .then([&, c = counted(3)] { return make_promise<int>([&](auto cb) { op_after(l, ms, 5, std::move(cb)); }); })
                    .then([&, c = counted(4)](int) { alive.push_back(static_cast<int>(counted::active())); });
  outcome out;
  watch(p, out);
  l.run();
  EXPECT_EQ(alive, (std::vector<int>{3, 1}));
  EXPECT_EQ(counted::active(), 0);
  EXPECT_TRUE(out.done);
}

TEST(promise_chain, a_handler_that_throws_rejects_the_chain) {
  loop l(clock_kind::virtual_time);
  bool later = false;
  promise<int> p = make_promise_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
                       .then([](int) -> int { throw std::runtime_error("bad row"); })
                       .then([&](int v) {
                         later = true;
                         return v;
                       });
  outcome out;
  watch(p, out);
  l.run();
  EXPECT_FALSE(later);
  EXPECT_EQ(out.err.message(), "bad row");
}

TEST(promise_chain, a_start_that_throws_rejects_the_chain) {
  loop l(clock_kind::virtual_time);
  promise<int> p = make_promise_chain<int>([](auto) -> void { throw std::runtime_error("no socket"); }).then([](int v) { return v; });
  EXPECT_TRUE(p.is_rejected());
  outcome out;
  watch(p, out);
  l.run();
  EXPECT_EQ(out.err.message(), "no socket");
}

TEST(promise_chain, returned_promises_that_reject_reject_the_chain) {
  loop l(clock_kind::virtual_time);
  for (bool settled : {true, false}) {
    int later = 0;
    promise<int> p = make_promise_chain<int>([](auto cb) { cb({}, 1); })
                         .then([&](int) {
                           if (settled) return promise<int>::reject(error("refused"));
                           return make_promise<int>([&](auto cb) { failing_op_after(l, ms, "refused", std::move(cb)); });
                         })
                         .then([&](int v) { return later = v; });
    outcome out;
    watch(p, out);
    l.run();
    EXPECT_EQ(later, 0);
    EXPECT_EQ(out.err.message(), "refused") << settled;
  }
}

TEST(promise_chain, the_last_handler_may_return_a_pending_promise_which_the_chain_follows) {
  loop l(clock_kind::virtual_time);
  promise<int> inner = make_promise<int>([&](auto cb) { op_after(l, 2 * ms, 42, std::move(cb)); });
  promise<int> p = make_promise_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); }).then([inner](int) { return inner; });
  outcome out;
  watch(p, out);
  l.run();
  EXPECT_EQ(out.value, "42");
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

TEST(promise_chain, cleanups_run_inline_before_the_rejection_and_only_for_their_own_operation) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> order;
  promise<> p = make_promise_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); },
                                        on_error([&] { order.push_back("first cleanup"); }))
                    .then([&](int) {
                      return promisify<int>([&l](auto cb) { failing_op_after(l, ms, "second failed", std::move(cb)); },
                                            on_error([&](const error& e) { order.push_back("second cleanup: " + e.message()); }));
                    })
                    .then([&](int) { order.push_back("never"); });
  p.then_callback([&](error e) { order.push_back("failed: " + e.message()); });
  l.run();
  EXPECT_EQ(order, (std::vector<std::string>{"second cleanup: second failed", "failed: second failed"}));
}

TEST(promise_chain, the_first_operations_cleanup_runs_when_it_fails) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> order;
  promise<int> p = make_promise_chain<int>([&](auto cb) { failing_op_after(l, ms, "put failed", std::move(cb)); },
                                           on_error([&] { order.push_back("cleanup"); }))
                       .then([](int v) { return v; });
  p.then_callback([&](error e, int) { order.push_back("failed: " + e.message()); });
  l.run();
  EXPECT_EQ(order, (std::vector<std::string>{"cleanup", "failed: put failed"}));
}

TEST(promise_chain, a_handler_may_return_another_chain_without_naming_its_type) {
  loop l(clock_kind::virtual_time);
  promise<std::string> p = make_promise_chain<int>([&](auto cb) { op_after(l, ms, 4, std::move(cb)); })
                               .then([&](int v) {
                                 return make_promise_chain<int>([&l, v](auto cb) { op_after(l, ms, v, std::move(cb)); })
                                     .then([](int w) { return std::to_string(w * 2); });
                               })
                               .then([](std::string s) { return s + "!"; });
  // and so may a promise::then handler
  promise<int> q = promise<int>::resolve(1).then([](int v) { return make_promise_chain<int>([v](auto cb) { cb({}, v); }).then([](int w) { return w + 1; }); });
  std::string got;
  p.then_callback([&](error e, std::string s) {
    EXPECT_FALSE(e);
    got = s;
  });
  outcome out_q;
  watch(q, out_q);
  l.run();
  EXPECT_EQ(got, "8!");
  EXPECT_EQ(out_q.value, "2");
}

TEST(promise_chain, an_abandoned_operation_frees_the_chain_and_its_handlers) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    callback<int> kept;
    bool called = false;
    {
      promise<int> p = make_promise_chain<int>([&](callback<int> cb) { kept = cb; })
                           .then([c = counted(1)](int v) { return v; })
                           .then([c = counted(2)](int v) { return v; });
      p.then_callback([&](error, int) { called = true; });
      EXPECT_EQ(counted::active(), 2);
    }
    kept = nullptr; // the operation drops its callback without calling it
    l.run();
    EXPECT_FALSE(called) << "a promise that never settles never calls its reactions";
    EXPECT_EQ(counted::active(), 0);
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(promise_chain, a_chain_that_never_held_a_value_destroys_none) {
  // The chain's value room holds a step's value only while its microtask
  // waits; the byte that says which step it holds (promise_state's spare
  // byte) must say "none" from the start, or the teardown of a chain whose
  // first value never came would destroy a value that was never made.
  counted::reset();
  {
    loop l(clock_kind::virtual_time);
    {
      promise<int> p = make_promise_chain<counted>([](callback<counted>) {}) // drops its callback
                           .then([](counted c) { return c.id; });
    }
    l.run();
  }
  EXPECT_EQ(counted::constructions(), 0);
  EXPECT_EQ(counted::destructions, 0);
}

TEST(promise_chain, a_value_moves_along_the_chain_without_copies) {
  counted::reset();
  {
    loop l(clock_kind::virtual_time);
    promise<> p = make_promise_chain<counted>([&](callback<counted> cb) { l.set_timeout(ms, [cb] { cb({}, counted(1)); }); })
                      .then([](counted c) { return c; })
                      .then([](counted&& c) { return promise<counted>::resolve(std::move(c)); })
                      .then([](const counted& c) { EXPECT_EQ(c.id, 1); });
    bool done = false;
    p.then_callback([&](error e) { done = !e; });
    l.run();
    EXPECT_TRUE(done);
  }
  EXPECT_EQ(counted::copy_constructions, 0);
  EXPECT_EQ(counted::active(), 0);
}

TEST(promise_chain, handlers_run_in_the_context_the_chain_was_made_in) {
  loop l(clock_kind::virtual_time);
  context made_in;
  std::vector<context*> seen;
  promise<> p;
  {
    context_scope in(&made_in);
    p = make_promise_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
            .then([&](int v) {
              seen.push_back(current_context());
              return make_promise<int>([&l, v](auto cb) { op_after(l, ms, v, std::move(cb)); });
            })
            .then([&](int) { seen.push_back(current_context()); });
  }
  l.run();
  EXPECT_EQ(seen, (std::vector<context*>{&made_in, &made_in}));
}

TEST(promise_chain, a_handler_whose_op_completes_from_the_loop_runs_in_the_chains_context) {
  // The op's timer runs in the context the op was started in; the handler
  // it completes (at once, from the timer) still runs in the chain's.
  loop l(clock_kind::virtual_time);
  context made_in, op_in;
  std::vector<context*> seen;
  promise<> p;
  {
    context_scope in(&made_in);
    p = make_promise_chain<std::int64_t>([&](auto cb) {
          context_scope other(&op_in);
          loop_op(ms, std::move(cb));
        })
            .then([&](std::int64_t) {
              seen.push_back(current_context());
              return promisify<std::int64_t>([&](auto cb) {
                context_scope other(&op_in);
                loop_op(ms, std::move(cb));
              });
            })
            .then([&](std::int64_t) { seen.push_back(current_context()); });
  }
  l.run();
  EXPECT_EQ(seen, (std::vector<context*>{&made_in, &made_in}));
  EXPECT_FALSE(p.is_pending());
}

TEST(promise_chain, a_microtask_queued_while_an_op_completes_from_the_loop_runs_before_the_next_handler) {
  // The op's cleanup is dropped when it succeeds, and queues a microtask
  // then: the handler must wait its turn behind it, as a then handler does.
  auto run = [](bool fused) {
    loop l(clock_kind::virtual_time);
    std::vector<std::string> trace;
    auto start = [](auto cb) { loop_op(ms, std::move(cb)); };
    auto handler = [&trace](std::int64_t) { trace.push_back("handler"); };
    promise<> p = fused ? promise<>(make_promise_chain<std::int64_t>(start, on_error(queues_when_dropped(&l, &trace))).then(handler))
                        : make_promise<std::int64_t>(start, on_error(queues_when_dropped(&l, &trace))).then(handler);
    l.run();
    EXPECT_FALSE(p.is_pending());
    return trace;
  };
  EXPECT_EQ(run(false), (std::vector<std::string>{"microtask", "handler"}));
  EXPECT_EQ(run(true), (std::vector<std::string>{"microtask", "handler"}));
}

TEST(promise_chain, a_microtask_a_handler_queues_runs_before_the_step_its_returned_value_starts) {
  // A handler that returns a plain value hands it on at once when no
  // microtask waits (it ran from the loop, so only the loop's code is on the
  // stack). One that queued a microtask first must let it run before the
  // next handler and before the chain's promise's reaction, as a then chain
  // does: each handler and each reaction a microtask of its own.
  auto run = [](bool fused) {
    loop l(clock_kind::virtual_time);
    std::vector<std::string> trace;
    auto start = [](auto cb) { loop_op(ms, std::move(cb)); };
    std::int64_t from_op = 0, seen = 0;
    auto first = [&l, &trace, &from_op](std::int64_t v) {
      from_op = v;
      microtask(l, [&trace] { trace.push_back("microtask 1"); });
      trace.push_back("first");
      return v + 1;
    };
    auto second = [&l, &trace](std::int64_t v) {
      trace.push_back("second");
      microtask(l, [&trace] { trace.push_back("microtask 2"); });
      return v + 1;
    };
    promise<std::int64_t> p = fused ? promise<std::int64_t>(make_promise_chain<std::int64_t>(start).then(first).then(second))
                                    : make_promise<std::int64_t>(start).then(first).then(second);
    promise<> q = p.then([&](std::int64_t v) {
      trace.push_back("reaction");
      seen = v;
    });
    l.run();
    EXPECT_FALSE(q.is_pending());
    EXPECT_EQ(seen, from_op + 2);
    return trace;
  };
  const std::vector<std::string> expected{"first", "microtask 1", "second", "microtask 2", "reaction"};
  EXPECT_EQ(run(false), expected);
  EXPECT_EQ(run(true), expected);
}

TEST(promise_chain, the_reaction_to_a_chain_that_ends_from_the_loop_runs_in_its_context_after_queued_microtasks) {
  // A chain of one operation: its completion settles the chain's promise,
  // whose one reaction runs at once only when no microtask waits, and in the
  // context its `then` was called in, not the op's.
  loop l(clock_kind::virtual_time);
  context op_in, then_in;
  std::vector<std::string> trace;
  context* seen = nullptr;
  promise<std::int64_t> p = make_promise_chain<std::int64_t>(
      [&op_in](auto cb) {
        context_scope other(&op_in);
        loop_op(ms, std::move(cb));
      },
      on_error(queues_when_dropped(&l, &trace)));
  promise<> q;
  {
    context_scope in(&then_in);
    q = p.then([&](std::int64_t) {
      trace.push_back("reaction");
      seen = current_context();
    });
  }
  l.run();
  EXPECT_EQ(trace, (std::vector<std::string>{"microtask", "reaction"}));
  EXPECT_EQ(seen, &then_in);

  // Without the cleanup's microtask, the same in the reaction's context.
  trace.clear();
  seen = nullptr;
  promise<std::int64_t> p2 = make_promise_chain<std::int64_t>([&op_in](auto cb) {
    context_scope other(&op_in);
    loop_op(ms, std::move(cb));
  });
  {
    context_scope in(&then_in);
    q = p2.then([&](std::int64_t) {
      trace.push_back("reaction");
      seen = current_context();
    });
  }
  l.run();
  EXPECT_EQ(trace, (std::vector<std::string>{"reaction"}));
  EXPECT_EQ(seen, &then_in);
}

TEST(promise_chain, all_over_chains_joins_them) {
  loop l(clock_kind::virtual_time);
  auto all = promise<int>::all(3, [&](std::size_t i) {
    return make_promise_chain<int>([&l, i](auto cb) { op_after(l, ms, static_cast<int>(i), std::move(cb)); }).then([](int v) { return v * 10; });
  });
  std::vector<int> got;
  all.then_callback([&](error e, std::vector<int> v) {
    EXPECT_FALSE(e);
    got = std::move(v);
  });
  l.run();
  EXPECT_EQ(got, (std::vector<int>{0, 10, 20}));
}

// keep(): the chain holds the per-call state until it is destroyed, so that
// its lambdas may capture a plain pointer. The last step's operation starts
// after its handler is gone, and a cleanup runs after every handler is: both
// still read the state. Without keep() the state would go with its last
// shared_state (the `owner` scope), before the loop runs.
TEST(promise_chain, a_kept_state_outlives_the_last_operations_start_and_every_cleanup) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::vector<int> seen;
    promise<int> p;
    {
      auto owner = make_shared_state<counted>(7);
      counted* state = owner.get();
      p = make_promise_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
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
    p.then_callback([&](error e, int) { failure = e.message(); });
    l.run();
    EXPECT_EQ(seen, (std::vector<int>{8, 8, 80}));
    EXPECT_EQ(failure, "last failed");
    p = {};
    EXPECT_EQ(counted::active(), 0) << "the state goes with the chain";
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(promise_chain, a_kept_state_goes_with_a_chain_that_is_never_started) {
  counted::reset();
  {
    auto owner = make_shared_state<counted>(1);
    auto chain = make_promise_chain<int>([](callback<int>) {}).keep(std::move(owner)).then([](int v) { return v; });
    EXPECT_EQ(counted::active(), 1);
  }
  EXPECT_EQ(counted::active(), 0);
}

TEST(promise_chain, only_the_steps_an_operation_completes_take_room_for_its_callback) {
  // A step's callback handler (16 bytes in the chain's state) is what its
  // operation completes; a value a handler returns, or a promise it returns,
  // reaches the step without one.
  auto to_op = [](std::int64_t v) { return promisify<std::int64_t>([v](auto cb) { cb({}, v + 1); }); };
  auto to_value = [](std::int64_t v) { return v + 1; };
  auto to_promise = [](std::int64_t v) { return promise<std::int64_t>::resolve(v + 1); };
  using O = decltype(to_op);
  using V = decltype(to_value);
  using P = decltype(to_promise);
  constexpr std::size_t sink = sizeof(detail::handler<std::int64_t>);
  EXPECT_EQ(sizeof(detail::chain_pstate<std::int64_t, void, O, O, O>) - sizeof(detail::chain_pstate<std::int64_t, void, V, V, V>), 3 * sink);
  EXPECT_EQ(sizeof(detail::chain_pstate<std::int64_t, void, O, O, O>) - sizeof(detail::chain_pstate<std::int64_t, void, P, P, P>), 3 * sink);

  loop l(clock_kind::virtual_time);
  outcome out;
  watch(promise<std::int64_t>(make_promise_chain<std::int64_t>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
                                  .then(to_value)
                                  .then(to_op)
                                  .then(to_promise)
                                  .then(to_value)),
        out);
  l.run();
  EXPECT_EQ(out.value, "5");
}

// promise::then_callback on a chain's promise: the chain keeps the callback
// (no reaction block) and, when it ends from the loop with nothing else
// waiting, calls it at once; any other ending makes it a reaction first.

TEST(promise_chain, its_state_is_the_sum_of_its_parts_with_no_word_for_its_step_bookkeeping) {
  // The step counters (at_, handlers_from_, lent_) and an empty first
  // cleanup live in the last sink's padding: a byte more there once cost
  // every doxbee chain 8 bytes (16 live bytes per execution in the seeds'
  // run). Whoever adds a member here decides what it costs.
  std::int64_t k = 1;
  auto to_op = [k](std::int64_t v) { return promisify<std::int64_t>([v, k](auto cb) { cb({}, v + k); }); };
  using O = decltype(to_op);
  constexpr std::size_t sink = sizeof(detail::handler<std::int64_t>);
  const std::size_t parts = sizeof(detail::promise_state<std::int64_t>) + sizeof(detail::promise_reaction) // the chain's promise, its microtask
                            + 2 * sink                                  // the sinks of steps 0 and 1 (each an operation's)
                            + sizeof(O)                                 // the handler's slot
                            + sizeof(detail::kept_ref)                  // keep()'s state
                            + sizeof(std::int64_t)                      // the value room
                            + sizeof(callback<std::int64_t>);           // a kept consumer's callback
  EXPECT_EQ(sizeof(detail::chain_pstate<std::int64_t, void, O>), parts);
  EXPECT_EQ(sizeof(detail::chain_pstate<std::int64_t, void, O, O>), parts + sink + sizeof(O));
}

TEST(promise_chain, a_callback_on_the_chains_promise_waits_in_the_chain_without_a_block_of_its_own) {
  loop l(clock_kind::virtual_time);
  auto allocs_of_then_callback = [&](promise<std::int64_t> p, std::string& value) {
    const auto before = detail::memory_snapshot().allocs;
    p.then_callback([&value](error e, std::int64_t v) { value = e ? e.message() : std::to_string(v); });
    const auto made = detail::memory_snapshot().allocs - before;
    l.run();
    return made;
  };
  std::string fused, plain;
  // The callback's own block (its continuation) is counted in both.
  EXPECT_EQ(allocs_of_then_callback(make_promise_chain<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); })
                                        .then([](std::int64_t) { return std::int64_t{7}; }),
                                    fused),
            1u)
      << "the chain keeps the callback";
  EXPECT_EQ(fused, "7");
  EXPECT_EQ(allocs_of_then_callback(make_promise<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); }), plain), 2u)
      << "a reaction block beside the callback's";
  EXPECT_FALSE(plain.empty());
}

TEST(promise_chain, a_kept_callback_keeps_its_place_among_the_promises_other_reactions) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> trace;
  auto chain = [] {
    return promise<std::int64_t>(
        make_promise_chain<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); }).then([](std::int64_t) { return std::int64_t{1}; }));
  };
  auto kept = [&trace](error, std::int64_t v) { trace.push_back("callback " + std::to_string(v)); };
  auto reaction = [&trace](std::int64_t v) { trace.push_back("then " + std::to_string(v)); };

  promise<std::int64_t> p = chain();
  promise<std::int64_t> copy = p;
  p.then_callback(kept); // first: kept by the chain
  promise<> after = copy.then(reaction);
  l.run();
  EXPECT_EQ(trace, (std::vector<std::string>{"callback 1", "then 1"}));

  trace.clear();
  promise<std::int64_t> q = chain();
  promise<> before = q.then(reaction);
  q.then_callback(kept); // second: a reaction of its own
  l.run();
  EXPECT_EQ(trace, (std::vector<std::string>{"then 1", "callback 1"}));
}

TEST(promise_chain, the_value_a_kept_callback_gets_stays_for_the_promises_later_readers) {
  loop l(clock_kind::virtual_time);
  promise<std::int64_t> p =
      make_promise_chain<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); }).then([](std::int64_t) { return std::int64_t{42}; });
  promise<std::int64_t> copy = p;
  std::string first, later;
  p.then_callback([&first](error, std::int64_t v) { first = std::to_string(v); });
  l.run();
  EXPECT_EQ(first, "42");
  copy.then_callback([&later](error, std::int64_t v) { later = std::to_string(v); });
  l.run();
  EXPECT_EQ(later, "42");
}

TEST(promise_chain, a_kept_callback_hears_a_rejection_which_is_then_handled) {
  loop l(clock_kind::virtual_time);
  std::string got;
  bool in_completion = false;
  promise<std::int64_t> p = make_promise_chain<std::int64_t>([&](auto cb) {
                              l.set_timeout(ms, [&in_completion, cb] {
                                in_completion = true;
                                cb(error("no"));
                                in_completion = false;
                              });
                            }).then([](std::int64_t v) { return v; });
  bool called_inside = false;
  p.then_callback([&](error e, std::int64_t) {
    got = e.message();
    called_inside = in_completion;
  });
  const auto before = detail::memory_snapshot().allocs;
  l.run();
  EXPECT_EQ(detail::memory_snapshot().allocs - before, 0u) << "no block: the callback runs on the chain's own reaction";
  EXPECT_EQ(got, "no");
  EXPECT_FALSE(called_inside) << "from a microtask, as any reaction to a rejection";
  EXPECT_EQ(l.unhandled_rejections(), 0u);
}

TEST(promise_chain, a_callback_from_another_context_runs_in_its_own) {
  loop l(clock_kind::virtual_time);
  context made_in, then_in;
  promise<std::int64_t> p;
  {
    context_scope in(&made_in);
    p = make_promise_chain<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); });
  }
  context* seen = nullptr;
  {
    context_scope in(&then_in);
    p.then_callback([&seen](error, std::int64_t) { seen = current_context(); });
  }
  l.run();
  EXPECT_EQ(seen, &then_in);
}

TEST(promise_chain, a_kept_callback_of_a_chain_that_never_ends_is_destroyed_uncalled) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    callback<std::int64_t> held;
    bool called = false;
    {
      promise<std::int64_t> p = make_promise_chain<std::int64_t>([&](callback<std::int64_t> cb) { held = cb; });
      p.then_callback([&called, c = counted(1)](error, std::int64_t) { called = true; });
      EXPECT_EQ(counted::active(), 1);
    }
    held = nullptr;
    l.run();
    EXPECT_FALSE(called);
    EXPECT_EQ(counted::active(), 0);
  }
  EXPECT_EQ(live_objects(), before);
}

// A chain whose value is neither void nor trivially copyable never keeps its
// consumer's callback (its value would be copied for it): it has no room for
// one either, and a callback on it is a reaction as on any promise.

struct pod_like_string { // trivially copyable, as large and aligned as std::string
  alignas(std::string) unsigned char bytes[sizeof(std::string)];
};

TEST(promise_chain, a_chain_that_keeps_no_callback_has_no_room_for_one) {
  auto to_string = [](std::int64_t) { return std::string("x"); };
  auto to_pod = [](std::int64_t) { return pod_like_string{}; };
  using keeps_none = detail::chain_pstate<std::int64_t, void, decltype(to_string)>;
  using keeps_one = detail::chain_pstate<std::int64_t, void, decltype(to_pod)>;
  EXPECT_EQ(sizeof(keeps_one) - sizeof(keeps_none), sizeof(callback<pod_like_string>));
}

TEST(promise_chain, a_callback_on_a_chain_of_strings_is_a_reaction_and_gets_the_value) {
  loop l(clock_kind::virtual_time);
  promise<std::string> p = make_promise_chain<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); }).then([](std::int64_t v) {
    return std::string(40, 'a') + std::to_string(v);
  });
  promise<std::string> copy = p;
  const auto before = detail::memory_snapshot().allocs;
  std::string got;
  p.then_callback([&got](error e, std::string s) { got = e ? e.message() : s; });
  EXPECT_EQ(detail::memory_snapshot().allocs - before, 2u) << "the callback's block and a reaction block";
  std::string later;
  promise<> after = copy.then([&later](const std::string& s) { later = s; });
  l.run();
  EXPECT_EQ(got.substr(0, 40), std::string(40, 'a'));
  EXPECT_EQ(later, got) << "the value stays for the promise's later readers";
}

// A step that an operation completes from the loop, with its callback's only
// reference, lends the chain's reference that callback held to the next
// operation its handler starts (or drops it once the step is handed on):
// the chain must still live exactly as long as something can reach it.

TEST(promise_chain, a_chain_nobody_holds_runs_every_step_and_is_freed_at_its_end) {
  counted::reset();
  const auto before = live_objects();
  std::vector<int> seen;
  {
    loop l(clock_kind::virtual_time);
    auto step = [&seen](std::int64_t v) {
      seen.push_back(static_cast<int>(v));
      return promisify<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); });
    };
    (void)make_promise_chain<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); })
        .then([step, c = counted(1)](std::int64_t v) { return step(v); })
        .then(step)
        .then([step, c = counted(2)](std::int64_t v) { return step(v); })
        .then([&seen](std::int64_t v) { seen.push_back(static_cast<int>(v)); })
        .start(); // its promise goes at once: only the operation in flight holds the chain
    EXPECT_EQ(counted::active(), 2);
    l.run();
    EXPECT_EQ(seen.size(), 4u);
    EXPECT_EQ(counted::active(), 0);
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(promise_chain, a_step_whose_callback_was_copied_keeps_the_chain_until_the_copy_goes) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    callback<std::int64_t> copy;
    std::int64_t first = 0;
    std::string value;
    {
      promise<std::int64_t> p = make_promise_chain<std::int64_t>([&copy](auto cb) {
                                  copy = callback<std::int64_t>(cb); // the sink's second reference
                                  loop_op(ms, std::move(cb));
                                }).then([&first, c = counted(1)](std::int64_t v) {
        first = v;
        return promisify<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); });
      });
      p.then_callback([&value](error e, std::int64_t v) { value = e ? e.message() : std::to_string(v); });
    }
    l.run();
    EXPECT_NE(first, 0);
    EXPECT_EQ(value, std::to_string(first)) << "the second op's value (loop_op's is a function of its op and arg)";
    EXPECT_EQ(counted::active(), 0);
    EXPECT_NE(live_objects(), before) << "the copy still holds the chain";
    copy = nullptr;
    l.run();
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(promise_chain, a_step_handed_on_without_an_operation_drops_what_it_was_lent) {
  counted::reset();
  const auto before = live_objects();
  std::string value;
  std::int64_t first = 0;
  {
    loop l(clock_kind::virtual_time);
    {
      promise<std::int64_t> p =
          make_promise_chain<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); })
              .then([&first](std::int64_t v) {
                first = v;
                return v + 1; // a value
              })
              .then([](std::int64_t v) { return promise<std::int64_t>::resolve(v + 1); }) // a settled promise
              .then([](std::int64_t v) {
                return promisify<std::int64_t>([v](auto cb) {
                  // completes at once, while the step before it is handed on
                  asyncshift::detail::succeed_last<std::int64_t>(cb, v + 1);
                });
              })
              .then([](std::int64_t v) { return v + 1; });
      p.then_callback([&value](error e, std::int64_t v) { value = e ? e.message() : std::to_string(v); });
    }
    l.run();
  }
  EXPECT_EQ(value, std::to_string(first + 4));
  EXPECT_EQ(live_objects(), before);
}

TEST(promise_chain, a_step_that_fails_from_the_loop_after_a_lent_one_frees_the_chain) {
  const auto before = live_objects();
  std::string value;
  {
    loop l(clock_kind::virtual_time);
    {
      promise<std::int64_t> p =
          make_promise_chain<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); })
              .then([&l](std::int64_t) {
                return promisify<std::int64_t>([&l](auto cb) {
                  l.set_timeout(ms, [cb = callback<std::int64_t>(std::move(cb))] { cb(error("boom")); });
                });
              })
              .then([](std::int64_t v) { return v; });
      p.then_callback([&value](error e, std::int64_t v) { value = e ? e.message() : std::to_string(v); });
    }
    l.run();
  }
  EXPECT_EQ(value, "boom");
  EXPECT_EQ(live_objects(), before);
}

// The reference a step completed from the loop hands on (to the operation
// its handler starts, the microtask or reaction the next step waits in) must
// be dropped, once, wherever the step ends without one. Each case: a step
// after an operation from the loop, ending one way, watched by a callback the
// chain keeps and by a `then` reaction; the chain and everything it made are
// freed, and its promise settles as a then chain's would.
TEST(promise_chain, every_way_a_step_after_an_operation_from_the_loop_ends_frees_the_chain) {
  using make_chain = std::function<promise<std::int64_t>(loop&, std::vector<std::string>&)>;
  auto from_loop = [](auto cb) { loop_op(ms, std::move(cb)); };
  auto pending = [](std::int64_t v) { return promise<std::int64_t>::resolve(v).then([](std::int64_t w) { return w + 1; }); };
  const struct {
    const char* name;
    make_chain make;
    std::string value; // the chain's value ("" when it fails)
    std::string error; // or its error's message
  } cases[] = {
      {"the handler throws",
       [&](loop&, auto&) {
         return make_promise_chain<std::int64_t>(from_loop).then([](std::int64_t) -> std::int64_t { throw std::runtime_error("bad row"); });
       },
       "", "bad row"},
      {"the handler returns a rejected promise",
       [&](loop&, auto&) {
         return make_promise_chain<std::int64_t>(from_loop)
             .then([](std::int64_t) { return promise<std::int64_t>::reject(error("refused")); })
             .then([](std::int64_t v) { return v; });
       },
       "", "refused"},
      {"the handler returns an empty promise",
       [&](loop&, auto&) {
         return make_promise_chain<std::int64_t>(from_loop).then([](std::int64_t) { return promise<std::int64_t>(); });
       },
       "", "TypeError: a handler returned an empty promise"},
      {"a middle handler returns a pending promise",
       [&](loop&, auto&) {
         return make_promise_chain<std::int64_t>(from_loop).then([&](std::int64_t) { return pending(6); }).then([](std::int64_t v) {
           return v * 6;
         });
       },
       "42", ""},
      {"a middle handler returns a pending promise of nothing",
       [&](loop&, auto&) {
         return make_promise_chain<std::int64_t>(from_loop)
             .then([](std::int64_t) { return promise<>::resolve().then([] {}); })
             .then([] { return std::int64_t{3}; });
       },
       "3", ""},
      {"a middle handler returns a pending promise that rejects",
       [&](loop&, auto&) {
         return make_promise_chain<std::int64_t>(from_loop)
             .then([](std::int64_t) {
               return promise<std::int64_t>::resolve(6).then([](std::int64_t) -> std::int64_t { throw std::runtime_error("late"); });
             })
             .then([](std::int64_t v) { return v; });
       },
       "", "late"},
      {"the last handler returns a pending promise",
       [&](loop&, auto&) { return make_promise_chain<std::int64_t>(from_loop).then([&](std::int64_t) { return pending(6); }); }, "7",
       ""},
      {"the last operation completes while a microtask waits",
       [&](loop& l, auto& trace) {
         return make_promise_chain<std::int64_t>(from_loop).then([&l, &trace](std::int64_t) {
           return promisify<std::int64_t>([](auto cb) { loop_op(ms, std::move(cb)); }, on_error(queues_when_dropped(&l, &trace)));
         });
       },
       "", ""},
      {"a handler's value arrives while a microtask waits",
       [&](loop& l, auto& trace) {
         return make_promise_chain<std::int64_t>(from_loop, on_error(queues_when_dropped(&l, &trace))).then([](std::int64_t) {
           return std::int64_t{5};
         });
       },
       "5", ""},
  };
  for (const auto& c : cases) {
    for (bool kept : {true, false}) {
      SCOPED_TRACE(std::string(c.name) + (kept ? ", a kept callback" : ", a then reaction"));
      const auto before = live_objects();
      outcome out;
      {
        loop l(clock_kind::virtual_time);
        std::vector<std::string> trace;
        {
          promise<std::int64_t> p = c.make(l, trace);
          if (kept)
            watch(p, out);
          else
            (void)p.then([&out](std::int64_t v) {
              out.done = true;
              out.value = std::to_string(v);
            }, [&out](const error& e) {
              out.done = true;
              out.err = e;
            });
        }
        l.run();
      }
      EXPECT_TRUE(out.done);
      EXPECT_EQ(out.err.message(), c.error);
      if (!c.value.empty()) EXPECT_EQ(out.value, c.value);
      EXPECT_EQ(live_objects(), before);
    }
  }
}

// keep() with a last step that returns a promise still pending (a nested
// chain, as the generated code makes for `if (x) return done(v);` followed by
// a wait): that promise's steps read the kept state too, so the chain keeps
// it until the promise settles (found by a user trial: the chain let go of
// it when it handed its reactions to the promise, and the nested step read
// freed memory under ASan).
TEST(promise_chain, a_kept_state_outlives_a_pending_promise_the_last_step_returns) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    int seen = 0;
    std::string outcome;
    {
      auto owner = make_shared_state<counted>(7);
      counted* state = owner.get();
      promise<int> p = make_promise_chain<int>([&](auto cb) { op_after(l, ms, 1, std::move(cb)); })
          .keep(std::move(owner))
          .then([state, &l, &seen](int v) -> promise<int> {
            state->id += v;
            return make_promise<int>([state, &l](auto cb) { op_after(l, ms, state->id, std::move(cb)); })
                .then([state, &seen](int w) {
                  seen = counted::active() == 1 ? state->id * 100 + w : -1;
                  return w;
                });
          });
      std::move(p).then_callback([&](error e, int v) { outcome = e ? e.message() : std::to_string(v); });
    }
    l.run();
    EXPECT_EQ(seen, 808);
    EXPECT_EQ(outcome, "8");
    EXPECT_EQ(counted::active(), 0) << "the state goes when the promise settled";
  }
  EXPECT_EQ(live_objects(), before);
}
