// task<T>: laziness, symmetric transfer, errors, start/spawn, promisify.
#include <asyncshift/loop.hpp>
#include <asyncshift/promisify.hpp>
#include <asyncshift/task.hpp>

#include "counted.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace asyncshift;

namespace {

task<int> forty_two() { co_return 42; }

task<int> add_one(task<int> t) { co_return co_await std::move(t) + 1; }

task<> fail_with(std::string msg) {
  throw error_exception(error(msg));
  co_return;
}

void sync_op(int x, callback<int> cb) { cb({}, x * 2); }
void async_op(loop& l, int x, callback<int> cb) {
  l.set_timeout(10, [=] { cb({}, x + 1); });
}
void failing_op(callback<> cb) { cb(error("nope")); }

task<std::size_t> chain(std::size_t n) {
  std::size_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<std::size_t>(co_await promisify<int>([&](auto cb) { sync_op(1, cb); }));
  co_return sum;
}

task<std::size_t> sync_task() { co_return 1; }
task<std::size_t> nested(std::size_t n) {
  std::size_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += co_await sync_task();
  co_return sum;
}

} // namespace

TEST(task, does_not_start_until_awaited) {
  bool started = false;
  auto make = [&]() -> task<> {
    started = true;
    co_return;
  };
  task<> t = make();
  EXPECT_FALSE(started);
  bool done = false;
  start(std::move(t), [&](error e) { done = !e; });
  EXPECT_TRUE(started);
  EXPECT_TRUE(done);
}

TEST(task, awaiting_a_task_yields_its_value) {
  int got = 0;
  start(add_one(forty_two()), [&](error e, int v) {
    ASSERT_FALSE(e);
    got = v;
  });
  EXPECT_EQ(got, 43);
}

TEST(task, an_exception_becomes_the_callback_error) {
  std::string msg;
  start(fail_with("bad"), [&](error e) { msg = e.message(); });
  EXPECT_EQ(msg, "bad");
}

TEST(task, settle_turns_an_exception_into_a_value) {
  std::string msg;
  auto body = [&]() -> task<> {
    error e = co_await settle(fail_with("settled"));
    msg = e.message();
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  EXPECT_EQ(msg, "settled");
}

TEST(promisify, a_synchronously_completing_op_does_not_suspend) {
  int got = 0;
  auto body = [&]() -> task<> { got = co_await promisify<int>([](auto cb) { sync_op(21, cb); }); };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  EXPECT_EQ(got, 42);
}

TEST(promisify, an_asynchronous_op_resumes_the_coroutine_from_the_loop) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  auto body = [&]() -> task<> { got = co_await promisify<int>([&](auto cb) { async_op(l, 1, cb); }); };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  EXPECT_EQ(got, 0);
  l.run();
  EXPECT_EQ(got, 2);
}

TEST(promisify, a_failure_throws_error_exception_or_settles_to_a_value) {
  std::string thrown, settled;
  auto body = [&]() -> task<> {
    try {
      co_await promisify([](auto cb) { failing_op(cb); });
    } catch (const error_exception& e) {
      thrown = e.error().message();
    }
    error e = co_await settle(promisify([](auto cb) { failing_op(cb); }));
    settled = e.message();
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  EXPECT_EQ(thrown, "nope");
  EXPECT_EQ(settled, "nope");
}

TEST(task, a_million_synchronous_completions_do_not_grow_the_stack) {
  std::size_t got = 0;
  start(chain(1'000'000), [&](error e, std::size_t v) {
    ASSERT_FALSE(e);
    got = v;
  });
  EXPECT_EQ(got, 2'000'000u) << "each of the million ops doubles 1";
  // Awaiting a task that completes synchronously relies on symmetric
  // transfer being a tail call; g++ does not make it one under
  // AddressSanitizer (its redzones forbid the sibling call), so there each
  // await nests and only a thousand are checked.
#if defined(__SANITIZE_ADDRESS__)
  constexpr std::size_t nested_tasks = 1'000;
#else
  constexpr std::size_t nested_tasks = 1'000'000;
#endif
  start(nested(nested_tasks), [&](error e, std::size_t v) {
    ASSERT_FALSE(e);
    got = v;
  });
  EXPECT_EQ(got, nested_tasks);
}

TEST(task, values_style_tasks_deliver_their_error_value_to_a_callback) {
  auto body = []() -> task<error> { co_return error("as value"); };
  std::string msg;
  start(body(), [&](error e) { msg = e.message(); });
  EXPECT_EQ(msg, "as value");
  auto with_value = []() -> task<result<int>> { co_return {{}, 5}; };
  int got = 0;
  start(with_value(), [&](error e, int v) {
    EXPECT_FALSE(e);
    got = v;
  });
  EXPECT_EQ(got, 5);
}

TEST(task, a_values_style_task_delivers_a_value_that_comes_with_its_error) {
  // coro-values prints `done(err, "partial")` as `co_return {err, "partial"};`:
  // the callback gets both, as the original's caller did (the value was dropped).
  auto partial = []() -> task<result<std::string>> { co_return {error("503"), "partial"}; };
  std::string msg, got;
  start(partial(), [&](error e, std::string v) {
    msg = e.message();
    got = v;
  });
  EXPECT_EQ(msg, "503");
  EXPECT_EQ(got, "partial");
}

TEST(task, frames_come_from_the_pool_and_are_returned) {
  auto before = detail::memory_snapshot().live_objects;
  start(forty_two(), [](error, int) {});
  EXPECT_EQ(detail::memory_snapshot().live_objects, before);
}

// A detached task delivers from its final awaiter and the frame goes right
// after, with no second entry to destroy it: its parameters are alive while
// the callback runs, as a continuation's captures are while it calls `done`.
TEST(task, a_detached_task_calls_back_and_then_frees_its_frame_and_parameters) {
  using asyncshift::test::counted;
  counted::reset();
  const auto before = detail::memory_snapshot().live_objects;
  auto body = [](counted c) -> task<int> { co_return c.id; };
  task<int> t = body(counted(7)); // the argument dies here; the frame keeps a copy
  ASSERT_EQ(counted::active(), 1);
  int alive_in_callback = -1;
  int got = 0;
  start(std::move(t), [&](error e, int v) {
    EXPECT_FALSE(e);
    got = v;
    alive_in_callback = counted::active();
  });
  EXPECT_EQ(got, 7);
  EXPECT_EQ(alive_in_callback, 1);
  EXPECT_EQ(counted::active(), 0);
  EXPECT_EQ(detail::memory_snapshot().live_objects, before);
}

// A task ends with a value or an exception, never both: one slot holds
// either (an optional beside an exception_ptr took 16 bytes more per frame).
TEST(task, its_promise_keeps_the_value_or_the_exception_in_one_slot) {
  EXPECT_EQ(sizeof(detail::task_promise<std::int64_t>), 24u) << "link, mode and what it holds, then one slot";
  EXPECT_EQ(sizeof(detail::task_promise<void>), 24u);
}

namespace {
struct throws_when_destroyed {
  ~throws_when_destroyed() noexcept(false) { throw std::runtime_error("late"); }
};
} // namespace

// co_return stores the value, then a local's destructor throws: the
// exception takes the slot, and the value stored first is destroyed once.
TEST(task, an_exception_after_co_return_replaces_the_value_and_destroys_it) {
  using asyncshift::test::counted;
  counted::reset();
  loop l(clock_kind::virtual_time);
  auto body = [](loop& l) -> task<counted> {
    throws_when_destroyed guard;
    co_await promisify([&l](callback<> cb) { l.set_timeout(1, [cb] { cb({}); }); }); // suspends first (see below)
    co_return counted(5);
  };
  error got;
  int value_id = -1;
  {
    task<counted> t = body(l);
    start(std::move(t), [&](error e, counted c) {
      got = std::move(e);
      if (!got) value_id = c.id;
    });
  }
  l.run();
  EXPECT_EQ(got.message(), "late");
  EXPECT_EQ(value_id, -1);
  EXPECT_EQ(counted::active(), 0) << "the value stored by co_return was destroyed";
}

TEST(task, a_value_moved_out_by_its_awaiter_is_destroyed_once) {
  using asyncshift::test::counted;
  counted::reset();
  {
    auto body = []() -> task<counted> { co_return counted(9); };
    task<counted> t = body();
    auto outer = [](task<counted> inner) -> task<int> {
      counted c = co_await std::move(inner);
      co_return c.id;
    };
    int got = 0;
    start(outer(std::move(t)), [&](error, int v) { got = v; });
    EXPECT_EQ(got, 9);
  }
  EXPECT_EQ(counted::active(), 0);
}

// A task that throws before it ever suspends throws out of start(), as the
// callback-style function it was converted from threw to its caller (and as
// promise and future style do); once it has suspended, a failure goes to the
// callback.
namespace {
task<int> parse_then_wait(loop& l, std::string text) {
  int n = std::stoi(text); // throws std::invalid_argument for "abc"
  co_await promisify([&l](callback<> cb) { l.set_timeout(1, [cb] { cb({}); }); });
  if (n < 0) throw std::runtime_error("negative");
  co_return n;
}
task<int> outer_catches(loop& l) {
  try {
    start(parse_then_wait(l, "abc"), [](error, int) {});
  } catch (const std::invalid_argument&) {
    co_return -1;
  }
  co_return 0;
}
} // namespace

TEST(task, a_task_that_throws_before_it_suspends_throws_out_of_start_and_its_callback_is_not_called) {
  loop l(clock_kind::virtual_time);
  int calls = 0;
  EXPECT_THROW(start(parse_then_wait(l, "abc"), [&](error, int) { ++calls; }), std::invalid_argument);
  EXPECT_THROW(spawn(parse_then_wait(l, "abc")), std::invalid_argument);
  l.run();
  EXPECT_EQ(calls, 0);
}

TEST(task, a_task_that_fails_after_it_suspended_fails_its_callback) {
  loop l(clock_kind::virtual_time);
  std::string msg;
  int value = 0;
  start(parse_then_wait(l, "-3"), [&](error e, int) { msg = e.message(); });
  start(parse_then_wait(l, "7"), [&](error, int v) { value = v; });
  EXPECT_TRUE(msg.empty()) << "not before it resumes";
  l.run();
  EXPECT_EQ(msg, "negative");
  EXPECT_EQ(value, 7);
}

// Nothing can ever handle the failure of a spawned task: it is reported at
// once, as an unhandled rejection is when the loop ends (a JavaScript async
// function left floating reports its rejection too), and counted with them.
TEST(task, a_spawned_task_that_fails_after_it_suspended_is_reported_as_unhandled) {
  loop l(clock_kind::virtual_time);
  spawn(parse_then_wait(l, "-3"));
  spawn(parse_then_wait(l, "7"));
  testing::internal::CaptureStderr();
  l.run();
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(l.unhandled_rejections(), 1u);
  EXPECT_EQ(said, "asyncshift: unhandled failure of a spawned task: negative\n");
}

TEST(task, a_spawned_task_in_errors_as_values_style_that_fails_is_reported_as_unhandled) {
  loop l(clock_kind::virtual_time);
  auto fails = [&l]() -> task<error> {
    co_await promisify([&l](callback<> cb) { l.set_timeout(1, [cb] { cb({}); }); });
    co_return error("lost");
  };
  spawn(fails());
  testing::internal::CaptureStderr();
  l.run();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "asyncshift: unhandled failure of a spawned task: lost\n");
  EXPECT_EQ(l.unhandled_rejections(), 1u);
}

TEST(task, a_start_inside_a_task_that_is_starting_throws_into_that_task) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  start(outer_catches(l), [&](error e, int v) { got = e ? -100 : v; });
  l.run();
  EXPECT_EQ(got, -1);
}
