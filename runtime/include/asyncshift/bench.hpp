// What a workload file includes: the runtime, the simulated I/O, the doxbee
// world, and ASYNCSHIFT_WORKLOAD, which registers the workload's entry with
// the benchmark main (bench/harness).
//
//   void upload(std::uint64_t k, asyncshift::callback<> done) { ... }
//   ASYNCSHIFT_WORKLOAD("doxbee", upload);
//
// After rewriting, the same line registers the promise, future or task
// version of the entry: registration has one constructor per style, and the
// style a binary runs is read off the entry's type.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/combinators.hpp"
#include "asyncshift/context.hpp"
#include "asyncshift/doxbee.hpp"
#include "asyncshift/error.hpp"
#include "asyncshift/fake.hpp"
#include "asyncshift/fanout.hpp"
#include "asyncshift/future.hpp"
#include "asyncshift/future_chain.hpp"
#include "asyncshift/loop.hpp"
#include "asyncshift/promise.hpp"
#include "asyncshift/promise_chain.hpp"
#include "asyncshift/promisify.hpp"
#include "asyncshift/result.hpp"
#include "asyncshift/shared_state.hpp"
#include "asyncshift/task.hpp"

#include <cstdint>
#include <vector>

namespace asyncshift::bench {

/// The command-line parameters of a workload binary (SPEC §7).
struct params_t {
  std::uint64_t n = 10000;
  double t = 1;
  std::uint64_t p = 25;
  double e = 0;
  std::uint64_t seed = 1;
  clock_kind clock = clock_kind::real;
};

namespace detail {
inline params_t g_params;
} // namespace detail

/// The parameters this run was started with.
inline const params_t& params() noexcept { return detail::g_params; }

/// Starts execution k of a workload; the outcome goes to \p done.
using starter = void (*)(void* entry, std::uint64_t k, callback<> done);

struct workload {
  const char* name;
  const char* style;
  void* entry;
  starter start;
  /// A peer's own event loop (asio::io_context::run, say): run until idle.
  /// Null for asyncshift's workloads, which run on asyncshift::loop.
  void (*run_loop)() = nullptr;
  /// How the workload's own file was compiled (ASYNCSHIFT_WORKLOAD records
  /// it there: the benchmark main it links may have been built otherwise):
  /// "release", "optimized-with-asserts" or "debug", and the compiler.
  /// Null for peers, which are built with the benchmark main.
  const char* build = nullptr;
  const char* compiler = nullptr;
  /// The style the build meant this binary to run (asyncshift_add_workload
  /// defines ASYNCSHIFT_BENCH_STYLE per target), or null: a rewrite that
  /// left the entry as it was is an error, not a "coro" row of callbacks.
  const char* expected_style = nullptr;
};

inline std::vector<workload>& registry() {
  static std::vector<workload> r;
  return r;
}

/// Where a registration comes from: how its file was compiled and the
/// style its build meant it to be (the fields of workload of those names).
struct origin {
  const char* build = nullptr;
  const char* compiler = nullptr;
  const char* expected_style = nullptr;
};

/// One constructor per style of entry function.
class registration {
public:
  registration(const char* name, void (*entry)(std::uint64_t, callback<>), origin from = {}) {
    add(name, "callback", entry, &start_callback, from);
  }
  registration(const char* name, task<> (*entry)(std::uint64_t), origin from = {}) {
    add(name, "coro", entry, &start_task<void>, from);
  }
  registration(const char* name, task<error> (*entry)(std::uint64_t), origin from = {}) {
    add(name, "coro-values", entry, &start_task<error>, from);
  }
  registration(const char* name, promise<void> (*entry)(std::uint64_t), origin from = {}) {
    add(name, "promise", entry, &start_promise, from);
  }
  registration(const char* name, future<void> (*entry)(std::uint64_t), origin from = {}) {
    add(name, "future", entry, &start_future, from);
  }
  /// Anything else: a workload's entry is `void f(std::uint64_t k,
  /// asyncshift::callback<> done)` (or what the tool rewrites it into).
  template <class F>
  registration(const char*, F, origin = {}) {
    static_assert(sizeof(F) == 0, "ASYNCSHIFT_WORKLOAD's entry must be `void entry(std::uint64_t k, asyncshift::callback<> "
                                  "done)`: one execution k, completed through done with no value");
  }

private:
  // The starters are plain functions, not lambdas converted to pointers:
  // clang made a converted lambda's pointer a thunk that called the
  // lambda's body out of line (one more call per execution).
  static void start_callback(void* e, std::uint64_t k, callback<> done) {
    reinterpret_cast<void (*)(std::uint64_t, callback<>)>(e)(k, std::move(done));
  }
  template <class T>
  static void start_task(void* e, std::uint64_t k, callback<> done) {
    start(reinterpret_cast<task<T> (*)(std::uint64_t)>(e)(k), std::move(done));
  }
  static void start_promise(void* e, std::uint64_t k, callback<> done) {
    reinterpret_cast<promise<void> (*)(std::uint64_t)>(e)(k).then_callback(std::move(done));
  }
  static void start_future(void* e, std::uint64_t k, callback<> done) {
    reinterpret_cast<future<void> (*)(std::uint64_t)>(e)(k).then_callback(std::move(done));
  }

  template <class F>
  static void add(const char* name, const char* style, F* entry, starter start, origin from) {
    registry().push_back({name, style, reinterpret_cast<void*>(entry), start, nullptr, from.build, from.compiler,
                          from.expected_style});
  }
};

/// Registers a hand-written peer (bench/peers/): \p start begins execution k
/// and completes \p done; \p run_loop runs the peer's own event loop until it
/// is idle. The harness measures and reports it like any workload.
inline bool register_peer(const char* name, const char* style, starter start, void (*run_loop)()) {
  registry().push_back({name, style, nullptr, start, run_loop});
  return true;
}

} // namespace asyncshift::bench

#define ASYNCSHIFT_WORKLOAD_CONCAT2(a, b) a##b
#define ASYNCSHIFT_WORKLOAD_CONCAT(a, b) ASYNCSHIFT_WORKLOAD_CONCAT2(a, b)

// How the file that expands ASYNCSHIFT_WORKLOAD is compiled (these expand
// there, in the workload's own flags).
#if defined(NDEBUG) && defined(__OPTIMIZE__)
#define ASYNCSHIFT_BENCH_BUILD "release"
#elif defined(__OPTIMIZE__)
#define ASYNCSHIFT_BENCH_BUILD "optimized-with-asserts"
#else
#define ASYNCSHIFT_BENCH_BUILD "debug"
#endif
#if defined(__clang__)
#define ASYNCSHIFT_BENCH_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define ASYNCSHIFT_BENCH_COMPILER "gcc " __VERSION__
#else
#define ASYNCSHIFT_BENCH_COMPILER "unknown"
#endif
#if defined(ASYNCSHIFT_BENCH_STYLE) // the style asyncshift_add_workload built this file as
#define ASYNCSHIFT_BENCH_EXPECTED_STYLE ASYNCSHIFT_BENCH_STYLE
#else
#define ASYNCSHIFT_BENCH_EXPECTED_STYLE nullptr
#endif
/// Registers \p entry, an async function `(std::uint64_t k, callback<> done)`
/// (or its rewritten form), as the workload \p name.
#define ASYNCSHIFT_WORKLOAD(name, entry)                                                                               \
  static const ::asyncshift::bench::registration ASYNCSHIFT_WORKLOAD_CONCAT(asyncshift_workload_, __LINE__)(           \
      name, entry,                                                                                                     \
      ::asyncshift::bench::origin{ASYNCSHIFT_BENCH_BUILD, ASYNCSHIFT_BENCH_COMPILER, ASYNCSHIFT_BENCH_EXPECTED_STYLE})
