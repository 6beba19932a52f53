// A promise's `then` handler that returns an operation (promisify(start),
// with or without on_error) instead of a promise: the handler's state starts
// it and is settled by it directly, with no promise state to adopt. What the
// tool prints for a step whose one exit is a call. Reactions on the state
// still run from microtasks.
#include "counted.hpp"
#include "timed_ops.hpp"

#include <asyncshift/loop.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/promisify.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace asyncshift;
using asyncshift::test::counted;
using asyncshift::test::live_objects;

using asyncshift::test::failing_op_after;
using asyncshift::test::ms;
using asyncshift::test::op_after;

TEST(promise_operation_layout, the_cleanup_of_a_returned_operation_takes_the_room_of_the_handlers) {
  // The handler has returned before its operation starts: the cleanup (a
  // word here, and its flag) lives where the handler's captures (two words) were.
  std::int64_t a = 1, b = 2;
  auto returns_plain = [a, b](int) { return a + b; };
  auto returns_operation = [a, b](int) {
    return promisify<int>([b](auto cb) { cb({}, static_cast<int>(b)); }, on_error([a] { (void)a; }));
  };
  using plain_then = detail::then_state<int, std::int64_t, decltype(returns_plain), detail::pass_through>;
  using operation_then = detail::then_state<int, int, decltype(returns_operation), detail::pass_through>;
  EXPECT_EQ(sizeof(operation_then), sizeof(plain_then));
}

TEST(promise_operation, a_returned_operation_delivers_its_value_down_the_chain) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int v) { return promisify<int>([&l, v](auto cb) { op_after(l, ms, v + 10, cb); }); })
      .then([&](int v) { got = v; });
  l.run();
  EXPECT_EQ(got, 11);
  EXPECT_EQ(l.now_ns(), 2 * ms) << "the operation started when the handler returned";
}

TEST(promise_operation, a_returned_operation_needs_no_promise_state_of_its_own) {
  loop l(clock_kind::virtual_time);
  auto chain = [&](bool as_operation) {
    const auto allocs = detail::memory_snapshot().allocs;
    int got = 0;
    auto first = make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); });
    if (as_operation)
      first.then([&](int v) { return promisify<int>([&l, v](auto cb) { op_after(l, ms, v + 1, cb); }); })
          .then([&](int v) { got = v; });
    else
      first.then([&](int v) { return make_promise<int>([&l, v](auto cb) { op_after(l, ms, v + 1, cb); }); })
          .then([&](int v) { got = v; });
    l.run();
    EXPECT_EQ(got, 2);
    return detail::memory_snapshot().allocs - allocs;
  };
  const auto with_promise = chain(false);
  const auto with_operation = chain(true);
  EXPECT_EQ(with_promise - with_operation, 1u) << "the handler's state is the operation's callback target";
}

namespace {
/// The order of events around a step whose returned operation (or promise)
/// completes at once.
template <bool AsOperation>
std::vector<std::string> order_around_a_synchronous_step() {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> order;
  promise<int>::resolve(1)
      .then([&](int v) {
        order.push_back("handler");
        promise<>::resolve().then([&] { order.push_back("queued by the handler"); });
        auto start = [v](auto cb) { cb({}, v + 1); };
        if constexpr (AsOperation)
          return promisify<int>(start);
        else
          return make_promise<int>(start);
      })
      .then([&](int v) { order.push_back("next step " + std::to_string(v)); });
  order.push_back("synchronous code");
  l.run();
  return order;
}
} // namespace

TEST(promise_operation, reactions_still_run_from_microtasks_when_the_operation_completes_at_once) {
  const std::vector<std::string> expected{"synchronous code", "handler", "queued by the handler", "next step 2"};
  EXPECT_EQ(order_around_a_synchronous_step<false>(), expected);
  EXPECT_EQ(order_around_a_synchronous_step<true>(), expected);
}

TEST(promise_operation, a_returned_operation_that_fails_rejects_the_chain_and_is_reported_if_unhandled) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int) { return promisify<int>([&l](auto cb) { failing_op_after(l, ms, "io failed", cb); }); })
      .then([](int) { ADD_FAILURE() << "must stay rejected"; }, [&](error e) { msg = e.message(); });
  auto unhandled = make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); }).then([&](int) {
    return promisify<int>([&l](auto cb) { failing_op_after(l, ms, "nobody listens", cb); });
  });
  l.run();
  EXPECT_EQ(msg, "io failed");
  EXPECT_TRUE(unhandled.is_rejected());
  EXPECT_EQ(l.unhandled_rejections(), 1u);
}

TEST(promise_operation, on_error_runs_the_cleanup_inline_before_the_chain_rejects_and_never_on_success) {
  for (const bool fails : {false, true}) {
    SCOPED_TRACE(fails ? "the operation fails" : "the operation succeeds");
    loop l(clock_kind::virtual_time);
    std::vector<std::string> order;
    make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); })
        .then([&](int) {
          return promisify<int>(
              [&l, fails](auto cb) {
                if (fails)
                  failing_op_after(l, ms, "io failed", cb);
                else
                  op_after(l, ms, 2, cb);
              },
              on_error([&](const error& e) { order.push_back("cleanup: " + e.message()); }));
        })
        .then([&](int v) { order.push_back("value " + std::to_string(v)); },
              [&](error e) { order.push_back("rejected: " + e.message()); });
    l.run();
    if (fails)
      EXPECT_EQ(order, (std::vector<std::string>{"cleanup: io failed", "rejected: io failed"}));
    else
      EXPECT_EQ(order, (std::vector<std::string>{"value 2"}));
  }
}

TEST(promise_operation, the_cleanup_and_the_start_function_are_freed_when_the_operation_completes) {
  loop l(clock_kind::virtual_time);
  counted::reset();
  const auto before = live_objects();
  int active_at_continuation = -1;
  {
    auto p = make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); })
                 .then([&](int) {
                   return promisify<int>([&l, c = counted(1)](auto cb) { op_after(l, ms, 2, cb); },
                                         on_error([c = counted(2)] { ADD_FAILURE() << "no error"; }));
                 });
    p.then([&](int) { active_at_continuation = counted::active(); });
    l.run();
    EXPECT_TRUE(p.is_fulfilled()) << "the state lives on (our handle), its cleanup does not";
  }
  EXPECT_EQ(active_at_continuation, 0) << "the start function went when it ran, the cleanup on success";
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(live_objects(), before);
}

TEST(promise_operation, a_synchronous_failure_runs_the_cleanup_once_and_a_throwing_start_rejects) {
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  std::vector<std::string> errors;
  auto record = [&](error e) { errors.push_back(e.message()); };
  make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int) {
        return promisify<int>([](auto cb) { cb(error("at once")); }, on_error([&] { ++cleanups; }));
      })
      .then([](int) { ADD_FAILURE(); }, record);
  make_promise<int>([&](auto cb) { op_after(l, 2 * ms, 1, cb); })
      .then([&](int) {
        return promisify<int>([](auto) -> void { throw std::runtime_error("start failed"); },
                              on_error([&] { ++cleanups; }));
      })
      .then([](int) { ADD_FAILURE(); }, record);
  make_promise<int>([&](auto cb) { op_after(l, 3 * ms, 1, cb); })
      .then([&](int) { return promisify<int>([](auto) -> void { throw std::runtime_error("no cleanup"); }); })
      .then([](int) { ADD_FAILURE(); }, record);
  l.run();
  EXPECT_EQ(cleanups, 2);
  EXPECT_EQ(errors, (std::vector<std::string>{"at once", "start failed", "no cleanup"}));
}

TEST(promise_operation, a_cleanup_that_cancels_its_operation_runs_once_and_the_first_outcome_wins) {
  // The start keeps its callback and throws; the cleanup cancels the
  // operation, which completes from inside the cleanup: that outcome settles
  // the state, the cleanup does not run again, and the start's error is dropped.
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  std::vector<std::string> errors;
  callback<int> held;
  make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int) {
        return promisify<int>(
            [&](callback<int> cb) {
              held = std::move(cb);
              throw std::runtime_error("start failed");
            },
            on_error([&] {
              ++cleanups;
              std::exchange(held, {})(error("cancelled"));
            }));
      })
      .then([](int) { ADD_FAILURE(); }, [&](error e) { errors.push_back(e.message()); });
  l.run();
  EXPECT_EQ(cleanups, 1);
  EXPECT_EQ(errors, (std::vector<std::string>{"cancelled"}));
}

TEST(promise_operation, an_error_handler_may_return_an_operation_with_a_cleanup_too) {
  // The state keeps room only for the value handler's cleanup; the error
  // handler's goes through a promise of its own.
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  std::string msg;
  make_promise<int>([&](auto cb) { failing_op_after(l, ms, "first", cb); })
      .then([&](int v) { return promisify<int>([v](auto cb) { cb({}, v); }); },
            [&](error) {
              return promisify<int>([&l](auto cb) { failing_op_after(l, ms, "second", cb); },
                                    on_error([&] { ++cleanups; }));
            })
      .then([](int) { ADD_FAILURE(); }, [&](error e) { msg = e.message(); });
  l.run();
  EXPECT_EQ(cleanups, 1);
  EXPECT_EQ(msg, "second");
}

TEST(promise_operation, then_on_a_settled_promise_starts_the_operation_from_its_microtask) {
  loop l(clock_kind::virtual_time);
  int started = 0;
  auto p = promise<int>::resolve(3).then([&](int v) {
    return promisify<int>([&started, v](auto cb) {
      ++started;
      cb({}, v * 2);
    });
  });
  EXPECT_EQ(started, 0) << "handlers run from microtasks";
  l.run();
  EXPECT_EQ(started, 1);
  ASSERT_TRUE(p.is_fulfilled());
  int got = 0;
  p.then([&](int v) { got = v; });
  l.run();
  EXPECT_EQ(got, 6);
}

TEST(promise_operation, an_abandoned_operation_frees_the_chain) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    callback<int> kept;
    make_promise<int>([&](auto cb) { op_after(l, ms, 1, cb); })
        .then([&](int) {
          return promisify<int>([&kept](callback<int> cb) { kept = std::move(cb); }, on_error([c = counted(1)] {}));
        })
        .then([c = counted(2)](int) { ADD_FAILURE() << "never completes"; });
    l.run();
    EXPECT_EQ(counted::active(), 2);
  } // the operation drops its callback without calling it
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(live_objects(), before);
}
