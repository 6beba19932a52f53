// Cross-thread completion: work runs on the pool, continuations resume on the
// loop thread, in the context that started the work, from every style. This
// file is its own test binary so that `make test-sanitize` can build it under
// ThreadSanitizer.
#include <asyncshift/context.hpp>
#include <asyncshift/future.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/promisify.hpp>
#include <asyncshift/task.hpp>
#include <asyncshift/worker_pool.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace asyncshift;

namespace {
/// n jobs that meet: each counts itself in and waits (up to a timeout) until
/// all n have, which they can only do on n threads at once.
struct rendezvous {
  explicit rendezvous(int count) : n(count) {}
  /// In a job: true if all n arrived before the timeout.
  bool arrive_and_wait(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(m);
    ++arrived;
    cv.notify_all();
    return cv.wait_for(lock, timeout, [&] { return arrived >= n; });
  }
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  const int n;
};

std::uint64_t checksum(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t s = 0;
  for (auto b : bytes) s = s * 31 + b;
  return s;
}
} // namespace

TEST(worker_pool, work_runs_on_a_pool_thread_and_the_callback_on_the_loop_thread) {
  loop l(clock_kind::real);
  const auto loop_thread = std::this_thread::get_id();
  std::thread::id worked_on, called_on;
  int got = 0;
  queue_work(
      [&] {
        worked_on = std::this_thread::get_id();
        return 42;
      },
      [&](error e, int v) {
        EXPECT_FALSE(e);
        called_on = std::this_thread::get_id();
        got = v;
      });
  l.run(); // returns only once the work is back
  EXPECT_EQ(got, 42);
  EXPECT_NE(worked_on, loop_thread);
  EXPECT_EQ(called_on, loop_thread);
}

TEST(worker_pool, an_exception_in_the_work_becomes_the_callback_error) {
  loop l(clock_kind::real);
  std::string msg;
  queue_work([]() -> int { throw std::runtime_error("work failed"); }, [&](error e, int) { msg = e.message(); });
  l.run();
  EXPECT_EQ(msg, "work failed");
}

TEST(worker_pool, a_continuation_lambda_is_kept_in_the_job_one_block_per_op) {
  loop l(clock_kind::real);
  int got = 0;
  const auto before = detail::memory_snapshot();
  queue_work([] { return 7; }, [&](error, int v) { got += v; }); // either may complete first
  const auto with_lambda = detail::memory_snapshot();
  queue_work([] { return 8; }, callback<int>([&](error, int v) { got += v; }));
  const auto with_callback = detail::memory_snapshot();
  EXPECT_EQ(with_lambda.allocs - before.allocs, 1u) << "the job holds the lambda";
  EXPECT_EQ(with_callback.allocs - with_lambda.allocs, 2u) << "a callback's block, and the job";
  l.run();
  EXPECT_EQ(got, 15);
  EXPECT_EQ(detail::memory_snapshot().live_objects, before.live_objects);
}

TEST(worker_pool, a_job_is_one_block_with_one_slot_for_its_outcome) {
  loop l(clock_kind::real);
  std::uint64_t sum = 0;
  const auto before = detail::memory_snapshot();
  random_bytes(8, 1, [&](error, std::vector<std::uint8_t> bytes) { sum += bytes[0]; });
  const auto submitted = detail::memory_snapshot();
  // The runnable header, the work (n, seed), the continuation, the loop, and
  // the error or the vector in one slot (which one is there, `run` says):
  // 80 bytes. A separate `execute` pointer and an optional beside the error
  // made it 112.
  EXPECT_EQ(submitted.allocs - before.allocs, 1u);
  EXPECT_EQ(submitted.bytes - before.bytes, 80u);
  l.run();
  EXPECT_EQ(detail::memory_snapshot().live_objects, before.live_objects);
}

TEST(worker_pool, work_that_throws_an_error_exception_holding_no_error_still_fails) {
  loop l(clock_kind::real);
  bool failed = false;
  int value = -1;
  queue_work([]() -> int { throw error_exception(error{}); },
             [&](error e, int v) {
               failed = static_cast<bool>(e);
               if (!e) value = v;
             });
  l.run();
  EXPECT_TRUE(failed) << "no value was made, so the callback must not be told it succeeded";
  EXPECT_EQ(value, -1);
}

TEST(worker_pool, work_without_a_value_succeeds_or_fails_its_callback) {
  loop l(clock_kind::real);
  std::string first, second; // the two may complete in either order
  queue_work([] {}, [&](error e) { first = e ? "fail" : "ok"; });
  queue_work([] { throw std::runtime_error("void work failed"); },
             callback<>([&](error e) { second = e ? e.message() : std::string("ok"); }));
  l.run();
  EXPECT_EQ(first, "ok");
  EXPECT_EQ(second, "void work failed");
}

TEST(worker_pool, a_lambda_that_takes_only_the_error_gets_the_works_exception) {
  loop l(clock_kind::real);
  std::string msg = "not called";
  queue_work([]() -> int { throw std::runtime_error("no bytes"); }, [&](error e) { msg = e.message(); });
  l.run();
  EXPECT_EQ(msg, "no bytes");
}

TEST(worker_pool, the_continuation_runs_in_the_context_that_started_the_work) {
  loop l(clock_kind::real);
  context c;
  c.k = 17;
  std::uint64_t seen = 0;
  {
    context_scope scope(&c);
    queue_work([] {}, [&](error) { seen = current_context() ? current_context()->k : 0; });
  }
  l.run();
  EXPECT_EQ(seen, 17u);
}

TEST(worker_pool, thousands_of_jobs_from_every_style_complete_on_the_loop) {
  loop l(clock_kind::virtual_time); // time jumps, but the loop still waits for the pool
  const auto loop_thread = std::this_thread::get_id();
  constexpr int n = 2000;
  std::atomic<int> executed{0};
  int by_callback = 0, by_promise = 0, by_future = 0, by_task = 0;
  std::uint64_t sum = 0;
  // Named, so that it outlives the coroutines it makes (their captures live
  // in the lambda object, not in the coroutine frame).
  auto via_task = [&](auto work) -> task<> {
    int v = co_await promisify<int>([work](callback<int> cb) { queue_work(work, std::move(cb)); });
    EXPECT_EQ(std::this_thread::get_id(), loop_thread);
    ++by_task;
    sum += static_cast<std::uint64_t>(v);
  };
  for (int i = 0; i < n; ++i) {
    auto work = [&executed, i] {
      executed.fetch_add(1, std::memory_order_relaxed);
      return i;
    };
    switch (i % 4) {
    case 0:
      queue_work(work, [&](error e, int v) {
        EXPECT_FALSE(e);
        EXPECT_EQ(std::this_thread::get_id(), loop_thread);
        ++by_callback;
        sum += static_cast<std::uint64_t>(v);
      });
      break;
    case 1:
      make_promise<int>([work](callback<int> cb) { queue_work(work, std::move(cb)); }).then([&](int v) {
        EXPECT_EQ(std::this_thread::get_id(), loop_thread);
        ++by_promise;
        sum += static_cast<std::uint64_t>(v);
      });
      break;
    case 2:
      make_future<int>([work](callback<int> cb) { queue_work(work, std::move(cb)); }).then([&](int v) {
        EXPECT_EQ(std::this_thread::get_id(), loop_thread);
        ++by_future;
        sum += static_cast<std::uint64_t>(v);
      });
      break;
    default:
      start(via_task(work), {});
    }
  }
  l.run();
  EXPECT_EQ(executed.load(), n);
  EXPECT_EQ(by_callback + by_promise + by_future + by_task, n);
  EXPECT_EQ(by_task, n / 4);
  EXPECT_EQ(sum, static_cast<std::uint64_t>(n) * (n - 1) / 2);
}

TEST(worker_pool, random_bytes_are_made_on_the_pool_and_depend_only_on_the_seed) {
  loop l(clock_kind::real);
  std::vector<std::uint64_t> sums(3);
  int done = 0;
  for (int i = 0; i < 3; ++i) // they may complete in any order
    random_bytes(1024, i == 2 ? 2 : 1, [&, i](error e, std::vector<std::uint8_t> bytes) {
      EXPECT_FALSE(e);
      EXPECT_EQ(bytes.size(), 1024u);
      sums[static_cast<std::size_t>(i)] = checksum(bytes);
      ++done;
    });
  l.run();
  ASSERT_EQ(done, 3);
  EXPECT_EQ(sums[0], sums[1]);
  EXPECT_NE(sums[0], sums[2]);
}

TEST(worker_pool, a_private_pool_finishes_its_queue_before_it_is_destroyed) {
  loop l(clock_kind::real);
  int done = 0;
  {
    worker_pool pool(2);
    EXPECT_EQ(pool.size(), 2u);
    for (int i = 0; i < 100; ++i) pool.submit([] { return 1; }, [&](error, int v) { done += v; });
  } // joins after running every job
  l.run();
  EXPECT_EQ(done, 100);
}

TEST(worker_pool, completions_from_one_thread_reach_the_loop_in_the_order_they_were_made) {
  // One pool thread runs its jobs in queue order; the loop's inbox is a stack
  // that the loop reverses, so a batch of completions must not come out
  // newest first.
  loop l(clock_kind::real);
  worker_pool pool(1);
  constexpr int n = 2000;
  std::vector<int> order;
  order.reserve(n);
  for (int i = 0; i < n; ++i) pool.submit([i] { return i; }, [&](error e, int v) {
    EXPECT_FALSE(e);
    order.push_back(v);
  });
  l.run();
  ASSERT_EQ(order.size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ASSERT_EQ(order[static_cast<std::size_t>(i)], i);
}

TEST(worker_pool, jobs_that_wait_for_each_other_each_get_a_thread) {
  // A short queue is dealt out one job per thread, and a thread that wakes
  // and finds more work wakes the next: four jobs that each wait until all
  // four have started finish only if four threads took one each. (A pool
  // that handed one thread two of them, or woke only one thread, would
  // leave them waiting; the timeout turns that into a failure, not a hang.)
  loop l(clock_kind::real);
  worker_pool pool(4);
  rendezvous four(4);
  int all_met = 0;
  for (int i = 0; i < 4; ++i)
    pool.submit([&] { return four.arrive_and_wait(std::chrono::seconds(20)); },
        [&](error e, bool met) {
          EXPECT_FALSE(e);
          all_met += met ? 1 : 0;
        });
  l.run();
  EXPECT_EQ(all_met, 4);
}

TEST(worker_pool, jobs_that_wait_for_each_other_in_one_threads_share_of_a_long_queue_are_stolen) {
  // Four gate jobs hold the four threads while 4 jobs that wait for each
  // other and 60 short ones are queued behind them. When the gates open, the
  // first thread back takes a share of 64 / 8 = 8 jobs: all four waiting ones
  // and four short ones, and blocks in the first. The other threads run the
  // rest of the queue and then must take the three still in its share, or
  // the four never meet (the timeout turns that into a failure, not a hang).
  loop l(clock_kind::real);
  worker_pool pool(4);
  std::mutex m;
  std::condition_variable cv;
  int gates_in = 0, met = 0, short_done = 0;
  bool open = false;
  rendezvous four(4);
  for (int i = 0; i < 4; ++i)
    pool.submit(
        [&] {
          std::unique_lock<std::mutex> lock(m);
          ++gates_in;
          cv.notify_all();
          return cv.wait_for(lock, std::chrono::seconds(10), [&] { return open; });
        },
        [](error e, bool opened) { EXPECT_TRUE(!e && opened); });
  {
    std::unique_lock<std::mutex> lock(m);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return gates_in == 4; }));
  }
  for (int i = 0; i < 4; ++i)
    pool.submit([&] { return four.arrive_and_wait(std::chrono::seconds(10)); },
                [&](error e, bool all_started) { met += !e && all_started ? 1 : 0; });
  for (int i = 0; i < 60; ++i) pool.submit([] { return 1; }, [&](error, int v) { short_done += v; });
  {
    std::lock_guard<std::mutex> lock(m);
    open = true;
  }
  cv.notify_all();
  l.run();
  EXPECT_EQ(met, 4);
  EXPECT_EQ(short_done, 60);
}

TEST(worker_pool, bursts_of_every_size_all_complete_whatever_the_threads_find_empty) {
  // Rounds of bursts, some submitted from completions while the threads are
  // busy, so that threads often wake to an empty queue (another took the
  // work) and go back to sleep. A notification spent that way must not leave
  // the pool believing a thread is still on its way: the next burst would
  // then wake nobody and run() would never return.
  loop l(clock_kind::real);
  worker_pool pool(4);
  std::uint64_t x = 12345;
  auto next = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((x >> 33) % 300) + 1;
  };
  long long expected = 0, sum = 0;
  int rounds_left = 300;
  std::function<void()> burst = [&] {
    const int size = next();
    auto remaining = std::make_shared<int>(size);
    for (int i = 0; i < size; ++i) {
      expected += i;
      pool.submit([i] { return i; }, [&, remaining](error e, int v) {
        EXPECT_FALSE(e);
        sum += v;
        if (--*remaining == 0 && --rounds_left > 0) burst();
      });
    }
  };
  burst();
  burst(); // two chains of bursts overlap
  l.run();
  EXPECT_LE(rounds_left, 0);
  EXPECT_EQ(sum, expected);
}

TEST(worker_pool, a_loop_destroyed_after_run_threw_waits_for_work_still_out_and_destroys_its_handler_uncalled) {
  // A continuation throws out of run() while another job is still on a pool
  // thread, and the loop goes out of scope. The job must not be handed back
  // to freed memory: ~loop waits for it and destroys its handler, uncalled.
  auto token = std::make_shared<int>(0); // held by the slow job's handler
  bool called = false;
  std::atomic<bool> go{false};
  std::thread releaser;
  {
    loop l(clock_kind::real);
    queue_work(
        [&go] {
          while (!go.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          return 1;
        },
        [&called, token](error, int) { called = true; });
    queue_work([] { return 2; }, [](error, int) { throw std::runtime_error("continuation threw"); });
    EXPECT_THROW(l.run(), std::runtime_error);
    EXPECT_EQ(token.use_count(), 2); // the slow job is still out
    releaser = std::thread([&go] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      go.store(true);
    });
  }
  EXPECT_EQ(token.use_count(), 1); // back, and its handler destroyed
  EXPECT_FALSE(called);
  releaser.join();
}

TEST(worker_pool, a_loop_destroyed_without_running_waits_for_its_jobs_values_and_errors_alike) {
  auto token = std::make_shared<int>(0);
  int called = 0;
  {
    loop l(clock_kind::real);
    queue_work(
        [] {
          std::this_thread::sleep_for(std::chrono::milliseconds(30));
          return 1;
        },
        [&called, token](error, int) { ++called; });
    queue_work(
        []() -> int {
          std::this_thread::sleep_for(std::chrono::milliseconds(30));
          throw std::runtime_error("work failed");
        },
        [&called, token](error, int) { ++called; });
  } // never run
  EXPECT_EQ(token.use_count(), 1);
  EXPECT_EQ(called, 0);
}

namespace {
/// A completion handed to the loop by hand: records which thread ran it.
struct counted_completion : detail::runnable {
  int* ran = nullptr;
  std::thread::id* ran_on = nullptr;
  counted_completion() {
    ctx = nullptr; // complete_external_work runs it in the context its caller set
    run = [](detail::runnable* self) {
      auto* me = static_cast<counted_completion*>(self);
      ++*me->ran;
      *me->ran_on = std::this_thread::get_id();
    };
  }
};
} // namespace

TEST(loop_inbox, completions_pushed_by_many_threads_at_once_all_run_on_the_loop_and_it_waits_for_the_last) {
  // The inbox is a lock-free stack that several threads push onto while the
  // loop takes from it and sleeps between batches; the loop counts the work
  // back as it takes it, so run() returns only after the last completion.
  // The last thread starts late, so the loop has to sleep and be woken.
  loop l(clock_kind::real);
  constexpr int threads = 4, per_thread = 20000;
  std::vector<counted_completion> completions(threads * per_thread);
  int ran = 0;
  std::vector<std::thread::id> ran_on(completions.size());
  for (std::size_t i = 0; i < completions.size(); ++i) {
    completions[i].ran = &ran;
    completions[i].ran_on = &ran_on[i];
    l.add_external_work();
  }
  std::vector<std::thread> pushers;
  for (int t = 0; t < threads; ++t)
    pushers.emplace_back([&, t] {
      if (t == threads - 1) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      for (int i = 0; i < per_thread; ++i) l.complete_external_work(&completions[static_cast<std::size_t>(t * per_thread + i)]);
    });
  l.run();
  for (auto& p : pushers) p.join();
  EXPECT_EQ(ran, threads * per_thread);
  for (const auto& id : ran_on) ASSERT_EQ(id, std::this_thread::get_id());
}

// ---- from_any_thread: a leaf that completes on a thread of its own ----------

namespace {
/// A leaf as a user writes one over a library's own thread.
void leaf_on_own_thread(int v, callback<int> cb) {
  std::thread([v, done = from_any_thread(std::move(cb))]() mutable {
    std::this_thread::sleep_for(std::chrono::milliseconds(5)); // run() must wait for it
    if (v < 0)
      done(error("negative"));
    else
      done({}, v * 2);
  }).detach();
}
} // namespace

TEST(from_any_thread, a_leaf_completing_on_its_own_thread_delivers_on_the_loop) {
  loop l(clock_kind::real);
  int got = 0;
  std::thread::id delivered_on;
  leaf_on_own_thread(21, [&](error e, int v) {
    got = e ? -1 : v;
    delivered_on = std::this_thread::get_id();
  });
  l.run(); // returned before the thread completed, with nothing delivered
  EXPECT_EQ(got, 42);
  EXPECT_EQ(delivered_on, std::this_thread::get_id());
}

TEST(from_any_thread, every_style_reaches_it_and_failures_arrive) {
  loop l(clock_kind::real);
  int from_promise = 0, from_future = 0, from_task = 0;
  std::string failed;
  make_promise<int>([](auto cb) { leaf_on_own_thread(1, std::move(cb)); }).then([&](int v) { from_promise = v; });
  make_future<int>([](auto cb) { leaf_on_own_thread(2, std::move(cb)); }).then([&](int v) { from_future = v; });
  auto t = []() -> task<int> { co_return co_await promisify<int>([](auto cb) { leaf_on_own_thread(3, std::move(cb)); }); };
  start(t(), [&](error e, int v) { from_task = e ? -1 : v; });
  leaf_on_own_thread(-1, [&](error e, int) { failed = e.message(); });
  l.run();
  EXPECT_EQ(from_promise, 2);
  EXPECT_EQ(from_future, 4);
  EXPECT_EQ(from_task, 6);
  EXPECT_EQ(failed, "negative");
}

TEST(from_any_thread, a_void_callback_and_the_async_context_come_back) {
  loop l(clock_kind::real);
  context c;
  context* seen = nullptr;
  bool ok = false;
  {
    context_scope in(&c);
    callback<> cb = [&](error e) {
      ok = !e;
      seen = current_context();
    };
    std::thread([done = from_any_thread(std::move(cb))]() mutable { done({}); }).detach();
  }
  l.run();
  EXPECT_TRUE(ok);
  EXPECT_EQ(seen, &c);
}

TEST(from_any_thread, a_completion_dropped_uncalled_lets_the_loop_end_and_calls_nothing) {
  loop l(clock_kind::real);
  bool called = false;
  auto alive = std::make_shared<int>(0);
  std::weak_ptr<int> watch = alive;
  callback<int> cb = [&called, alive = std::move(alive)](error, int) { called = true; };
  std::thread([done = from_any_thread(std::move(cb))]() mutable {}).detach();
  l.run();
  EXPECT_FALSE(called);
  EXPECT_TRUE(watch.expired()) << "the callback was destroyed, on the loop";
}
