// Micro-benchmarks: asyncshift's callbacks, promise, future and task next to
// their peers from Debian's packages, in one run: Boost.Thread's
// future::then (BOOST_THREAD_VERSION 5), std::future, and standalone Asio's
// awaitable. Names are <what>/<library>[/<n>], so one line per library sits
// under each heading; docs/runtime.md reports the ratios.
//
//   one_shot       make a future (or promise, task...), complete it, read it
//   chain          n = 1000 continuations, each adding one, built on a value
//                  that arrives after the chain is built (std::future: n
//                  promise/future pairs in a row, it has no continuations)
//   ready_chain    the same on a value that is already there
//   loop_steps     n = 1000 steps one after another through an event loop
//                  (asyncshift::loop::post, asio::post): the async round trip
//   when_all       16 ready inputs joined
//
// Everything runs on one thread; Boost and std futures still pay for their
// locks, which is what a thread-safe future costs when nothing else runs.
#define BOOST_THREAD_VERSION 5
#define BOOST_THREAD_PROVIDES_FUTURE_CONTINUATION
#define BOOST_THREAD_PROVIDES_FUTURE_WHEN_ALL_WHEN_ANY

#include <asyncshift/callback.hpp>
#include <asyncshift/future.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/promisify.hpp>
#include <asyncshift/task.hpp>

#include <benchmark/benchmark.h>

#if ASYNCSHIFT_MICRO_BOOST
#include <boost/thread/future.hpp>
#endif
#if ASYNCSHIFT_MICRO_ASIO
#include <asio/awaitable.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#endif

#include <future>
#include <vector>

namespace {

using namespace asyncshift;

constexpr int chain_length = 1000;
constexpr int join_width = 16;

void add_one(int x, callback<int> cb) { cb({}, x + 1); }

// ---- one_shot -----------------------------------------------------------------

void one_shot_callback(benchmark::State& state) {
  for (auto _ : state) {
    int got = 0;
    add_one(0, [&](error, int v) { got = v; });
    benchmark::DoNotOptimize(got);
  }
}
BENCHMARK(one_shot_callback)->Name("one_shot/asyncshift_callback");

void one_shot_future(benchmark::State& state) {
  for (auto _ : state) {
    int got = make_future<int>([](callback<int> cb) { add_one(0, std::move(cb)); }).get();
    benchmark::DoNotOptimize(got);
  }
}
BENCHMARK(one_shot_future)->Name("one_shot/asyncshift_future");

void one_shot_promise(benchmark::State& state) {
  loop l(clock_kind::virtual_time);
  for (auto _ : state) {
    int got = 0;
    make_promise<int>([](callback<int> cb) { add_one(0, std::move(cb)); }).then([&](int v) { got = v; });
    l.drain_microtasks();
    benchmark::DoNotOptimize(got);
  }
}
BENCHMARK(one_shot_promise)->Name("one_shot/asyncshift_promise");

task<int> one() { co_return 1; }

void one_shot_task(benchmark::State& state) {
  for (auto _ : state) {
    int got = 0;
    start(one(), [&](error, int v) { got = v; });
    benchmark::DoNotOptimize(got);
  }
}
BENCHMARK(one_shot_task)->Name("one_shot/asyncshift_task");

void one_shot_std_future(benchmark::State& state) {
  for (auto _ : state) {
    std::promise<int> p;
    std::future<int> f = p.get_future();
    p.set_value(1);
    benchmark::DoNotOptimize(f.get());
  }
}
BENCHMARK(one_shot_std_future)->Name("one_shot/std_future");

#if ASYNCSHIFT_MICRO_BOOST
void one_shot_boost_future(benchmark::State& state) {
  for (auto _ : state) {
    boost::promise<int> p;
    boost::future<int> f = p.get_future();
    p.set_value(1);
    benchmark::DoNotOptimize(f.get());
  }
}
BENCHMARK(one_shot_boost_future)->Name("one_shot/boost_future");
#endif

#if ASYNCSHIFT_MICRO_ASIO
asio::awaitable<int> asio_one() { co_return 1; }

void one_shot_asio_awaitable(benchmark::State& state) {
  asio::io_context io;
  for (auto _ : state) {
    int got = 0;
    asio::co_spawn(io, []() -> asio::awaitable<int> { co_return co_await asio_one(); }(), [&](std::exception_ptr, int v) { got = v; });
    io.run();
    io.restart();
    benchmark::DoNotOptimize(got);
  }
}
BENCHMARK(one_shot_asio_awaitable)->Name("one_shot/asio_awaitable");
#endif

// ---- chain: the value arrives after the chain is built --------------------------

void chain_future(benchmark::State& state) {
  for (auto _ : state) {
    callback<int> complete;
    future<int> f = make_future<int>([&](callback<int> cb) { complete = std::move(cb); });
    for (int i = 0; i < chain_length; ++i) f = std::move(f).then([](int v) { return v + 1; });
    int got = 0;
    std::move(f).then([&](int v) { got = v; });
    complete({}, 0);
    benchmark::DoNotOptimize(got);
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(chain_future)->Name("chain/asyncshift_future/1000");

void chain_promise(benchmark::State& state) {
  loop l(clock_kind::virtual_time);
  for (auto _ : state) {
    deferred<int> d;
    promise<int> p = d.get_promise();
    for (int i = 0; i < chain_length; ++i) p = p.then([](int v) { return v + 1; });
    int got = 0;
    p.then([&](int v) { got = v; });
    p = {};
    d.resolve(0);
    l.drain_microtasks();
    benchmark::DoNotOptimize(got);
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(chain_promise)->Name("chain/asyncshift_promise/1000");

task<int> plus_one(int v) { co_return v + 1; }

task<int> task_chain(callback<int>* complete) {
  int x = co_await promisify<int>([complete](callback<int> cb) { *complete = std::move(cb); });
  for (int i = 0; i < chain_length; ++i) x = co_await plus_one(x);
  co_return x;
}

void chain_task(benchmark::State& state) {
  for (auto _ : state) {
    callback<int> complete;
    int got = 0;
    start(task_chain(&complete), [&](error, int v) { got = v; });
    complete({}, 0);
    benchmark::DoNotOptimize(got);
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(chain_task)->Name("chain/asyncshift_task/1000");

void chain_std_future(benchmark::State& state) {
  for (auto _ : state) {
    int x = 0;
    for (int i = 0; i < chain_length; ++i) {
      std::promise<int> p;
      std::future<int> f = p.get_future();
      p.set_value(x + 1);
      x = f.get();
    }
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(chain_std_future)->Name("chain/std_future/1000");

#if ASYNCSHIFT_MICRO_BOOST
void chain_boost_future(benchmark::State& state) {
  for (auto _ : state) {
    boost::promise<int> p;
    boost::future<int> f = p.get_future();
    for (int i = 0; i < chain_length; ++i)
      f = f.then(boost::launch::sync, [](boost::future<int> x) { return x.get() + 1; });
    p.set_value(0);
    benchmark::DoNotOptimize(f.get());
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(chain_boost_future)->Name("chain/boost_future/1000");
#endif

#if ASYNCSHIFT_MICRO_ASIO
asio::awaitable<int> asio_plus_one(int v) { co_return v + 1; }

void chain_asio_awaitable(benchmark::State& state) {
  asio::io_context io;
  for (auto _ : state) {
    int got = 0;
    asio::co_spawn(
        io,
        []() -> asio::awaitable<int> {
          int x = 0;
          for (int i = 0; i < chain_length; ++i) x = co_await asio_plus_one(x);
          co_return x;
        }(),
        [&](std::exception_ptr, int v) { got = v; });
    io.run();
    io.restart();
    benchmark::DoNotOptimize(got);
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(chain_asio_awaitable)->Name("chain/asio_awaitable/1000");
#endif

// ---- ready_chain: every value is already there --------------------------------------

void ready_chain_future(benchmark::State& state) {
  for (auto _ : state) {
    future<int> f = make_ready_future(0);
    for (int i = 0; i < chain_length; ++i) f = std::move(f).then([](int v) { return v + 1; });
    benchmark::DoNotOptimize(std::move(f).get());
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(ready_chain_future)->Name("ready_chain/asyncshift_future/1000");

void ready_chain_promise(benchmark::State& state) {
  loop l(clock_kind::virtual_time);
  for (auto _ : state) {
    promise<int> p = promise<int>::resolve(0);
    for (int i = 0; i < chain_length; ++i) p = p.then([](int v) { return v + 1; });
    int got = 0;
    p.then([&](int v) { got = v; });
    p = {};
    l.drain_microtasks();
    benchmark::DoNotOptimize(got);
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(ready_chain_promise)->Name("ready_chain/asyncshift_promise/1000");

#if ASYNCSHIFT_MICRO_BOOST
void ready_chain_boost_future(benchmark::State& state) {
  for (auto _ : state) {
    boost::future<int> f = boost::make_ready_future(0);
    for (int i = 0; i < chain_length; ++i)
      f = f.then(boost::launch::sync, [](boost::future<int> x) { return x.get() + 1; });
    benchmark::DoNotOptimize(f.get());
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(ready_chain_boost_future)->Name("ready_chain/boost_future/1000");
#endif

// ---- loop_steps: n async steps through an event loop -------------------------------

void loop_steps_callback(benchmark::State& state) {
  loop l(clock_kind::virtual_time);
  for (auto _ : state) {
    int steps = 0;
    struct stepper {
      loop* l;
      int* steps;
      void operator()() const {
        if (++*steps < chain_length) l->post(*this);
      }
    };
    l.post(stepper{&l, &steps});
    l.run();
    benchmark::DoNotOptimize(steps);
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(loop_steps_callback)->Name("loop_steps/asyncshift_callback/1000");

future<> future_steps(loop& l, int i) {
  if (i == chain_length) return make_ready_future();
  return make_future([&l](callback<> cb) { l.post([cb] { cb({}); }); }).then([&l, i] { return future_steps(l, i + 1); });
}

void loop_steps_future(benchmark::State& state) {
  loop l(clock_kind::virtual_time);
  for (auto _ : state) {
    future_steps(l, 0);
    l.run();
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(loop_steps_future)->Name("loop_steps/asyncshift_future/1000");

promise<> promise_steps(loop& l, int i) {
  if (i == chain_length) return promise<>::resolve();
  return make_promise([&l](callback<> cb) { l.post([cb] { cb({}); }); }).then([&l, i] { return promise_steps(l, i + 1); });
}

void loop_steps_promise(benchmark::State& state) {
  loop l(clock_kind::virtual_time);
  for (auto _ : state) {
    promise_steps(l, 0);
    l.run();
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(loop_steps_promise)->Name("loop_steps/asyncshift_promise/1000");

task<> task_steps(loop& l) {
  for (int i = 0; i < chain_length; ++i) co_await promisify([&l](callback<> cb) { l.post([cb] { cb({}); }); });
}

void loop_steps_task(benchmark::State& state) {
  loop l(clock_kind::virtual_time);
  for (auto _ : state) {
    spawn(task_steps(l));
    l.run();
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(loop_steps_task)->Name("loop_steps/asyncshift_task/1000");

#if ASYNCSHIFT_MICRO_ASIO
void loop_steps_asio_awaitable(benchmark::State& state) {
  asio::io_context io;
  for (auto _ : state) {
    asio::co_spawn(
        io,
        [&io]() -> asio::awaitable<void> {
          for (int i = 0; i < chain_length; ++i) co_await asio::post(io, asio::use_awaitable);
        },
        asio::detached);
    io.run();
    io.restart();
  }
  state.SetItemsProcessed(state.iterations() * chain_length);
}
BENCHMARK(loop_steps_asio_awaitable)->Name("loop_steps/asio_awaitable/1000");
#endif

// ---- when_all ---------------------------------------------------------------------------

void when_all_future(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<future<int>> fs;
    fs.reserve(join_width);
    for (int i = 0; i < join_width; ++i) fs.push_back(make_ready_future(i));
    benchmark::DoNotOptimize(when_all(std::move(fs)).get());
  }
}
BENCHMARK(when_all_future)->Name("when_all/asyncshift_future/16");

void when_all_promise(benchmark::State& state) {
  loop l(clock_kind::virtual_time);
  for (auto _ : state) {
    std::vector<promise<int>> ps;
    ps.reserve(join_width);
    for (int i = 0; i < join_width; ++i) ps.push_back(promise<int>::resolve(i));
    std::size_t got = 0;
    promise<int>::all(std::move(ps)).then([&](std::vector<int> v) { got = v.size(); });
    l.drain_microtasks();
    benchmark::DoNotOptimize(got);
  }
}
BENCHMARK(when_all_promise)->Name("when_all/asyncshift_promise/16");

task<int> value_task(int i) { co_return i; }

task<std::size_t> join_tasks() {
  std::vector<task<int>> ts;
  ts.reserve(join_width);
  for (int i = 0; i < join_width; ++i) ts.push_back(value_task(i));
  co_return (co_await when_all(std::move(ts))).size();
}

void when_all_task(benchmark::State& state) {
  for (auto _ : state) {
    std::size_t got = 0;
    start(join_tasks(), [&](error, std::size_t n) { got = n; });
    benchmark::DoNotOptimize(got);
  }
}
BENCHMARK(when_all_task)->Name("when_all/asyncshift_task/16");

#if ASYNCSHIFT_MICRO_BOOST
void when_all_boost_future(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<boost::future<int>> fs;
    fs.reserve(join_width);
    for (int i = 0; i < join_width; ++i) fs.push_back(boost::make_ready_future(i));
    auto all = boost::when_all(fs.begin(), fs.end());
    benchmark::DoNotOptimize(all.get().size());
  }
}
BENCHMARK(when_all_boost_future)->Name("when_all/boost_future/16");
#endif

} // namespace

BENCHMARK_MAIN();
