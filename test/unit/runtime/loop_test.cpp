// The event loop: queues, timers per duration, clocks, cross-thread hand-off.
#include <asyncshift/context.hpp>
#include <asyncshift/loop.hpp>

#include <gtest/gtest.h>

#include <chrono>

#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using asyncshift::clock_kind;
using asyncshift::loop;
using asyncshift::context;
using asyncshift::context_scope;
using asyncshift::current_context;

TEST(loop, virtual_time_jumps_to_the_next_timer_and_never_sleeps) {
  loop l(clock_kind::virtual_time);
  std::vector<std::int64_t> fired;
  l.set_timeout(5'000'000'000, [&] { fired.push_back(l.now_ns()); }); // 5 s
  l.set_timeout(1'000'000, [&] { fired.push_back(l.now_ns()); });
  auto start = std::chrono::steady_clock::now();
  l.run();
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(fired, (std::vector<std::int64_t>{1'000'000, 5'000'000'000}));
  EXPECT_LT(took, std::chrono::milliseconds(500));
}

TEST(loop, timers_of_one_duration_fire_in_the_order_they_were_set) {
  loop l(clock_kind::virtual_time);
  std::string order;
  for (char c : std::string("abcdef")) l.set_timeout(10, [&order, c] { order += c; });
  l.run();
  EXPECT_EQ(order, "abcdef");
}

TEST(loop, timers_of_different_durations_fire_in_due_order) {
  loop l(clock_kind::virtual_time);
  std::string order;
  l.set_timeout(30, [&] { order += '3'; });
  l.set_timeout(10, [&] { order += '1'; });
  l.set_timeout(20, [&] { order += '2'; });
  l.set_timeout(10, [&] { order += '1'; });
  l.run();
  EXPECT_EQ(order, "1123");
}

// A negative delay is a delay of 0, as setTimeout's is: it takes its turn
// behind the 0 ns timers set before it, and as the loop's first timer it
// needs no FIFO made for it (the loop remembers the last FIFO's delay, and
// "none yet" must not match it).
TEST(loop, a_negative_delay_is_a_delay_of_zero) {
  loop l(clock_kind::virtual_time);
  std::string order;
  l.set_timeout(-1, [&] { order += 'a'; });
  l.set_timeout(0, [&] { order += 'b'; });
  l.set_timeout(-5, [&] { order += 'c'; });
  l.set_timeout(std::numeric_limits<std::int64_t>::min(), [&] { order += 'd'; });
  l.set_timeout(1, [&] { order += 'e'; });
  l.run();
  EXPECT_EQ(order, "abcde");
  EXPECT_EQ(l.now_ns(), 1);
}

// A turn runs the timers that were due when it began: a 0 ns timer set by a
// timer of this turn waits for the next turn, after the work posted
// meanwhile, as in Node (a timer set for "now" does not jump the queue).
TEST(loop, a_timer_set_during_a_turn_for_no_time_runs_on_the_next_turn) {
  loop l(clock_kind::virtual_time);
  std::string order;
  l.set_timeout(0, [&] {
    order += 'a';
    l.set_timeout(0, [&] { order += 'c'; });
    l.post([&] { order += 'b'; });
  });
  l.set_timeout(0, [&] { order += 'x'; });
  l.run();
  EXPECT_EQ(order, "axbc");
}

TEST(loop, a_ready_queue_turn_runs_only_what_was_posted_before_it) {
  loop l(clock_kind::virtual_time);
  std::string order;
  l.post([&] {
    order += 'a';
    l.post([&] { order += 'c'; });
    l.set_timeout(0, [&] { order += 't'; });
  });
  l.post([&] { order += 'b'; });
  l.run();
  EXPECT_EQ(order, "abtc") << "the timer's turn comes between the two ready-queue turns";
}

// A timer that sets one of a new duration makes the loop add a FIFO (and
// may move the others in memory) while it runs the first FIFO's timers.
TEST(loop, a_timer_that_sets_a_timer_of_a_new_duration_leaves_the_rest_of_the_turn_intact) {
  loop l(clock_kind::virtual_time);
  std::string order;
  l.set_timeout(10, [&] {
    order += 'a';
    for (int d = 1; d <= 8; ++d) l.set_timeout(d * 100, [&order, d] { order += static_cast<char>('0' + d); });
  });
  l.set_timeout(10, [&] { order += 'b'; });
  l.set_timeout(10, [&] {
    order += 'c';
    l.set_timeout(50, [&] {
      order += 'e';
      l.set_timeout(33, [&] { order += 'f'; }); // a new duration again, now while several FIFOs run
    });
  });
  l.set_timeout(10, [&] { order += 'd'; });
  l.set_timeout(60, [&] { order += 'E'; }); // due with 'e', in the turn 'e' adds a FIFO in
  l.run();
  EXPECT_EQ(order, "abcdEef12345678");
}

TEST(loop, microtasks_drain_after_each_callback_before_the_next_timer) {
  loop l(clock_kind::virtual_time);
  std::string order;
  static std::string* out = &order;
  out = &order;
  l.set_timeout(1, [&] {
    order += 'a';
    l.queue_microtask([](void*) { *out += 'm'; }, nullptr);
  });
  l.set_timeout(1, [&] { order += 'b'; });
  l.run();
  EXPECT_EQ(order, "amb");
}

TEST(loop, work_posted_during_a_turn_runs_on_the_next_turn) {
  loop l(clock_kind::virtual_time);
  int depth = 0;
  std::function<void()> again = [&] {
    if (++depth < 100000) l.post(again);
  };
  l.post(again);
  l.run();
  EXPECT_EQ(depth, 100000);
}

TEST(loop, the_context_is_carried_from_scheduling_to_firing) {
  loop l(clock_kind::virtual_time);
  asyncshift::context a, b;
  a.k = 1;
  b.k = 2;
  std::vector<std::uint64_t> seen;
  {
    asyncshift::context_scope s(&a);
    l.set_timeout(5, [&] { seen.push_back(asyncshift::current_context()->k); });
  }
  {
    asyncshift::context_scope s(&b);
    l.set_timeout(1, [&] { seen.push_back(asyncshift::current_context()->k); });
  }
  l.run();
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{2, 1}));
}

TEST(loop, real_clock_waits_for_timers) {
  loop l(clock_kind::real);
  auto start = std::chrono::steady_clock::now();
  bool fired = false;
  l.set_timeout(20'000'000, [&] { fired = true; }); // 20 ms
  l.run();
  EXPECT_TRUE(fired);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(19));
}

// A timer counts from when it is scheduled, not from the start of the turn
// (or the loop's construction): it did fire at once after 30 ms of work.
// Only lower bounds: a slow machine makes these later, never earlier.
TEST(loop, a_real_clock_timer_counts_from_when_it_is_scheduled) {
  using std::chrono::milliseconds;
  using std::chrono::steady_clock;
  loop l(clock_kind::real);
  std::this_thread::sleep_for(milliseconds(30)); // work before run()
  auto set_at = steady_clock::now();
  steady_clock::duration before_run{}, in_turn{};
  l.set_timeout(20'000'000, [&] { before_run = steady_clock::now() - set_at; });
  l.run();
  l.set_timeout(0, [&] {
    std::this_thread::sleep_for(milliseconds(30)); // work earlier in the turn
    auto t = steady_clock::now();
    l.set_timeout(20'000'000, [&, t] { in_turn = steady_clock::now() - t; });
  });
  l.run();
  EXPECT_GE(before_run, milliseconds(20));
  EXPECT_GE(in_turn, milliseconds(20));
}

// A turn that always finds ready work still lets due timers run.
TEST(loop, a_busy_loop_still_comes_to_its_timers) {
  loop l(clock_kind::real);
  struct again : asyncshift::detail::runnable {
    loop* l = nullptr;
    bool fired = false;
  } n;
  n.l = &l;
  n.run = [](asyncshift::detail::runnable* self) { // posts itself again until the timer fired
    auto* me = static_cast<again*>(self);
    if (!me->fired) me->l->post(me);
  };
  l.set_timeout(5'000'000, [&] { n.fired = true; });
  l.post(&n);
  l.run(); // never returned: the ready queue was never empty, so the clock was never read again
  EXPECT_TRUE(n.fired);
}

TEST(loop, work_completed_on_another_thread_resumes_on_the_loop) {
  loop l(clock_kind::virtual_time);
  struct node : asyncshift::detail::runnable {
    std::thread::id ran_on;
  } n;
  n.run = [](asyncshift::detail::runnable* self) { static_cast<node*>(self)->ran_on = std::this_thread::get_id(); };
  n.ctx = nullptr; // complete_external_work runs it in the context its caller set
  l.add_external_work();
  std::thread worker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    l.complete_external_work(&n);
  });
  l.run();
  worker.join();
  EXPECT_EQ(n.ran_on, std::this_thread::get_id());
}

TEST(loop, run_gives_back_the_context_it_was_called_in_even_when_a_continuation_throws) {
  loop l(clock_kind::virtual_time);
  context outer, inner;
  context_scope scope(&outer);
  {
    context_scope in(&inner);
    l.set_timeout(1, [] {}); // runs in `inner`
  }
  l.run();
  EXPECT_EQ(current_context(), &outer) << "not the context of the last runnable";
  {
    context_scope in(&inner);
    l.set_timeout(1, [] { throw std::runtime_error("continuation"); });
  }
  EXPECT_THROW(l.run(), std::runtime_error);
  EXPECT_EQ(current_context(), &outer);
  EXPECT_EQ(&loop::current(), &l);
}

TEST(loop, running_names_the_loop_that_dispatched_the_caller_even_when_another_was_made_first) {
  // current() names the running loop, else the first made on the thread;
  // running() (the promise chain's check for queued microtasks, with no test
  // for a missing loop) must name the loop whose run() dispatched the code.
  loop first(clock_kind::virtual_time);
  loop second(clock_kind::virtual_time);
  ASSERT_EQ(&loop::current(), &first);
  loop* from_timer = nullptr;
  loop* from_microtask = nullptr;
  second.set_timeout(0, [&] {
    from_timer = &loop::running();
    second.queue_microtask([](void* p) { *static_cast<loop**>(p) = &loop::running(); }, &from_microtask);
  });
  second.run();
  EXPECT_EQ(from_timer, &second);
  EXPECT_EQ(from_microtask, &second);
  EXPECT_EQ(&loop::current(), &first) << "run() gives the thread's loop back";
}
