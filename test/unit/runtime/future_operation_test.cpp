// A future's `then` handler that returns an operation (promisify(start),
// with or without on_error) instead of a future: the handler's state starts
// it and is settled by it directly, with no future state in between. What the
// tool prints for a step whose one exit is a call.
#include "counted.hpp"
#include "timed_ops.hpp"

#include <asyncshift/future.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/promisify.hpp>
#include <asyncshift/task.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace asyncshift;
using asyncshift::test::counted;
using asyncshift::test::live_objects;

using asyncshift::test::failing_op_after;
using asyncshift::test::ms;
using asyncshift::test::op_after;

TEST(future_operation_layout, the_cleanup_of_a_returned_operation_takes_the_room_of_the_handlers) {
  // The handler has returned before its operation starts: the cleanup (a
  // word here, and its flag) lives where the handler's captures (two words) were.
  std::int64_t a = 1, b = 2;
  auto returns_plain = [a, b](int) { return a + b; };
  auto returns_operation = [a, b](int) {
    return promisify<int>([b](auto cb) { cb({}, static_cast<int>(b)); }, on_error([a] { (void)a; }));
  };
  using plain_then = detail::then_fstate<int, std::int64_t, decltype(returns_plain), detail::pass_through>;
  using operation_then = detail::then_fstate<int, int, decltype(returns_operation), detail::pass_through>;
  EXPECT_EQ(sizeof(operation_then), sizeof(plain_then));
}

TEST(future_operation, a_returned_operation_delivers_its_value_down_the_chain) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int v) { return promisify<int>([&l, v](auto cb) { op_after(l, ms, v + 10, cb); }); })
      .then([&](int v) { got = v; });
  l.run();
  EXPECT_EQ(got, 11);
  EXPECT_EQ(l.now_ns(), 2 * ms) << "the operation started when the handler returned";
}

TEST(future_operation, a_returned_operation_needs_no_future_state_of_its_own) {
  loop l(clock_kind::virtual_time);
  auto chain = [&](bool as_operation) {
    const auto allocs = detail::memory_snapshot().allocs;
    int got = 0;
    auto first = make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); });
    if (as_operation)
      std::move(first)
          .then([&](int v) { return promisify<int>([&l, v](auto cb) { op_after(l, ms, v + 1, cb); }); })
          .then([&](int v) { got = v; });
    else
      std::move(first)
          .then([&](int v) { return make_future<int>([&l, v](auto cb) { op_after(l, ms, v + 1, cb); }); })
          .then([&](int v) { got = v; });
    l.run();
    EXPECT_EQ(got, 2);
    return detail::memory_snapshot().allocs - allocs;
  };
  const auto with_future = chain(false);
  const auto with_operation = chain(true);
  EXPECT_EQ(with_future - with_operation, 1u) << "the handler's state is the operation's callback target";
}

TEST(future_operation, a_returned_operation_that_fails_fails_the_chain) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int) { return promisify<int>([&l](auto cb) { failing_op_after(l, ms, "io failed", cb); }); })
      .then([](int) { ADD_FAILURE() << "must stay failed"; }, [&](error e) { msg = e.message(); });
  l.run();
  EXPECT_EQ(msg, "io failed");
}

TEST(future_operation, on_error_runs_the_cleanup_inline_before_the_chain_fails_and_never_on_success) {
  for (const bool fails : {false, true}) {
    SCOPED_TRACE(fails ? "the operation fails" : "the operation succeeds");
    loop l(clock_kind::virtual_time);
    std::vector<std::string> order;
    make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); })
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
              [&](error e) { order.push_back("failed: " + e.message()); });
    l.run();
    if (fails)
      EXPECT_EQ(order, (std::vector<std::string>{"cleanup: io failed", "failed: io failed"}));
    else
      EXPECT_EQ(order, (std::vector<std::string>{"value 2"}));
  }
}

TEST(future_operation, the_cleanup_and_the_start_function_are_freed_when_the_operation_completes) {
  loop l(clock_kind::virtual_time);
  counted::reset();
  const auto before = live_objects();
  int active_at_continuation = -1;
  make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int) {
        return promisify<int>([&l, c = counted(1)](auto cb) { op_after(l, ms, 2, cb); },
                              on_error([c = counted(2)] { ADD_FAILURE() << "no error"; }));
      })
      .then([&](int) { active_at_continuation = counted::active(); });
  l.run();
  EXPECT_EQ(active_at_continuation, 0) << "the start function went when it ran, the cleanup on success";
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(live_objects(), before);
}

TEST(future_operation, a_synchronous_failure_runs_the_cleanup_once_and_a_throwing_start_fails_the_chain) {
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  std::vector<std::string> errors;
  auto record = [&](error e) { errors.push_back(e.message()); };
  make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int) {
        return promisify<int>([](auto cb) { cb(error("at once")); }, on_error([&] { ++cleanups; }));
      })
      .then([](int) { ADD_FAILURE(); }, record);
  make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int) {
        return promisify<int>([](auto) -> void { throw std::runtime_error("start failed"); },
                              on_error([&] { ++cleanups; }));
      })
      .then([](int) { ADD_FAILURE(); }, record);
  make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); })
      .then([&](int) { return promisify<int>([](auto) -> void { throw std::runtime_error("no cleanup"); }); })
      .then([](int) { ADD_FAILURE(); }, record);
  l.run();
  EXPECT_EQ(cleanups, 2);
  EXPECT_EQ(errors, (std::vector<std::string>{"at once", "start failed", "no cleanup"}));
}

TEST(future_operation, an_operation_returned_before_anyone_waits_settles_the_future_for_later) {
  loop l(clock_kind::virtual_time);
  callback<int> complete;
  auto f = make_future<int>([&](callback<int> cb) { complete = cb; }).then([&](int v) {
    return promisify<int>([&l, v](auto cb) { op_after(l, v == 0 ? 0 : ms, v + 1, cb); });
  });
  complete({}, 0); // the operation completes synchronously: nobody waits yet
  ASSERT_TRUE(f.is_ready());
  EXPECT_EQ(std::move(f).get(), 1);

  auto g = make_future<int>([&](callback<int> cb) { complete = cb; }).then([&](int v) {
    return promisify<int>([&l, v](auto cb) { op_after(l, ms, v + 1, cb); });
  });
  complete({}, 5);
  EXPECT_FALSE(g.is_ready());
  l.run();
  ASSERT_TRUE(g.is_ready());
  EXPECT_EQ(std::move(g).get(), 6);
}

TEST(future_operation, then_on_a_ready_future_starts_the_operation_at_once) {
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  auto f = make_ready_future(3).then([&](int v) { return promisify<int>([v](auto cb) { cb({}, v * 2); }); });
  auto g = make_ready_future(3).then(
      [&](int) { return promisify<int>([](auto cb) { cb(error("failed")); }, on_error([&] { ++cleanups; })); });
  EXPECT_EQ(std::move(f).get(), 6);
  EXPECT_EQ(g.get_error().message(), "failed");
  EXPECT_EQ(cleanups, 1);
}

TEST(future_operation, an_error_handler_may_return_an_operation_with_a_cleanup_too) {
  // The state keeps room only for the value handler's cleanup; the error
  // handler's goes through a future of its own.
  loop l(clock_kind::virtual_time);
  int cleanups = 0;
  std::string msg;
  make_future<int>([&](auto cb) { failing_op_after(l, ms, "first", cb); })
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

TEST(future_operation, an_abandoned_operation_frees_the_chain) {
  counted::reset();
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    callback<int> kept;
    make_future<int>([&](auto cb) { op_after(l, ms, 1, cb); })
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

TEST(future_operation, a_prebuilt_chain_of_a_million_synchronous_operations_completes_in_constant_stack) {
  const auto before = live_objects();
  {
    const char* base = asyncshift::test::stack_here();
    std::size_t deepest = 0;
    callback<int> complete;
    future<int> f = make_future<int>([&](callback<int> cb) { complete = cb; });
    for (int i = 0; i < 1'000'000; ++i)
      f = std::move(f).then([&](int x) {
        deepest = std::max(deepest, asyncshift::test::stack_depth_below(base));
        return promisify<int>([x](auto cb) { cb({}, x + 1); }, on_error([] {}));
      });
    int got = 0;
    std::move(f).then([&](int v) { got = v; });
    complete({}, 0);
    EXPECT_EQ(got, 1'000'000);
    EXPECT_LT(deepest, 64u * 1024);
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(future_operation, awaiting_an_operation_with_a_cleanup_runs_it_before_the_error_is_thrown) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> order;
  auto body = [&]() -> task<int> {
    const int a = co_await promisify<int>([&](auto cb) { op_after(l, ms, 4, cb); }, on_error([&] { order.push_back("no"); }));
    try {
      co_await promisify<int>([&](auto cb) { failing_op_after(l, ms, "io failed", cb); },
                              on_error([&](const error& e) { order.push_back("cleanup: " + e.message()); }));
    } catch (const error_exception& e) {
      order.push_back(std::string("caught: ") + e.what());
    }
    co_return a;
  };
  int got = 0;
  start(body(), [&](error, int v) { got = v; });
  l.run();
  EXPECT_EQ(got, 4);
  EXPECT_EQ(order, (std::vector<std::string>{"cleanup: io failed", "caught: io failed"}));
}
