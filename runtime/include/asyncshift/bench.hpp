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
};

inline std::vector<workload>& registry() {
  static std::vector<workload> r;
  return r;
}

/// One constructor per style of entry function.
class registration {
public:
  registration(const char* name, void (*entry)(std::uint64_t, callback<>)) { add(name, "callback", entry, &start_callback); }
  registration(const char* name, task<> (*entry)(std::uint64_t)) { add(name, "coro", entry, &start_task<void>); }
  registration(const char* name, task<error> (*entry)(std::uint64_t)) { add(name, "coro-values", entry, &start_task<error>); }
  registration(const char* name, promise<void> (*entry)(std::uint64_t)) { add(name, "promise", entry, &start_promise); }
  registration(const char* name, future<void> (*entry)(std::uint64_t)) { add(name, "future", entry, &start_future); }

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
  static void add(const char* name, const char* style, F* entry, starter start) {
    registry().push_back({name, style, reinterpret_cast<void*>(entry), start});
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

/// Registers \p entry, an async function `(std::uint64_t k, callback<> done)`
/// (or its rewritten form), as the workload \p name.
#define ASYNCSHIFT_WORKLOAD(name, entry)                                                                               \
  static const ::asyncshift::bench::registration ASYNCSHIFT_WORKLOAD_CONCAT(asyncshift_workload_, __LINE__)(name, entry)
