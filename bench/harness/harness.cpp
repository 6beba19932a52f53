// The workload runner: n executions at once on one loop, as bluebird's
// performance.js runs n parallel calls, then one JSON line (SPEC §7).
//
// The trace digest: each execution's context accumulates an order-independent
// hash of the multiset of (virtual start time, op, arg) of the ops it started;
// when it completes, that hash, the op count, k and the outcome (success, or
// the failure's message) are mixed into one value per execution, and the
// values are summed, so the digest does not depend on the order executions
// finished in. Two styles of a workload print the same digest under the
// virtual clock exactly when every execution started the same ops at the
// same virtual times with the same arguments and ended the same way.
#include "harness.hpp"

#include "asyncshift/bench.hpp"
#include "asyncshift/detail/hash.hpp"

#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

namespace asyncshift::bench {
namespace {

struct options {
  params_t params;
  std::uint64_t warmup = UINT64_MAX; // default: min(n / 10, 1000)
  bool dump = false;
  std::string workload;
};

[[noreturn]] void usage(const char* argv0, int code, const char* problem = nullptr) {
  std::FILE* out = code == 0 ? stdout : stderr;
  if (problem) std::fprintf(out, "%s: %s\n", argv0, problem);
  std::fprintf(out,
               "usage: %s [--n N] [--t MS] [--p P] [--e PROB] [--seed S] [--clock=real|virtual]\n"
               "          [--warmup N] [--workload NAME]\n"
               "Runs N executions of the workload at once and prints one JSON line.\n"
               "  --n N           executions (default 10000)\n"
               "  --t MS          latency of every simulated I/O op in ms (default 1)\n"
               "  --p P           parallelism parameter of the workload (default 25)\n"
               "  --e PROB        probability that an op fails (default 0)\n"
               "  --seed S        seed of the error injection (default 1)\n"
               "  --clock=KIND    real (sleeps) or virtual (time jumps to the next timer)\n"
               "  --warmup N      executions run before measuring (default min(n/10, 1000))\n"
               "  --dump-executions  print each execution's ops, trace hash and outcome to stderr\n"
               "                  (to find the execution where two styles differ)\n",
               argv0);
  std::exit(code);
}

template <class T>
T parse_number(const char* argv0, std::string_view flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  T value{};
  if constexpr (std::is_floating_point_v<T>)
    value = static_cast<T>(std::strtod(text.c_str(), &end));
  else
    value = static_cast<T>(std::strtoull(text.c_str(), &end, 10));
  if (text.empty() || *end != '\0' || errno != 0 || (!std::is_floating_point_v<T> && text[0] == '-')) {
    std::string msg = "invalid value '" + text + "' for " + std::string(flag);
    usage(argv0, 2, msg.c_str());
  }
  return value;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") usage(argv[0], 0);
    std::string flag = arg, value;
    bool has_value = false;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) {
        std::string msg = "missing value for " + flag;
        usage(argv[0], 2, msg.c_str());
      }
      return argv[++i];
    };
    if (flag == "--n") o.params.n = parse_number<std::uint64_t>(argv[0], flag, next());
    else if (flag == "--t") o.params.t = parse_number<double>(argv[0], flag, next());
    else if (flag == "--p") o.params.p = parse_number<std::uint64_t>(argv[0], flag, next());
    else if (flag == "--e") o.params.e = parse_number<double>(argv[0], flag, next());
    else if (flag == "--seed") o.params.seed = parse_number<std::uint64_t>(argv[0], flag, next());
    else if (flag == "--warmup") o.warmup = parse_number<std::uint64_t>(argv[0], flag, next());
    else if (flag == "--workload") o.workload = next();
    else if (flag == "--dump-executions") o.dump = true;
    else if (flag == "--clock") {
      std::string v = next();
      if (v == "real") o.params.clock = clock_kind::real;
      else if (v == "virtual") o.params.clock = clock_kind::virtual_time;
      else usage(argv[0], 2, ("invalid clock '" + v + "' (expected real or virtual)").c_str());
    } else {
      std::string msg = "unknown flag '" + arg + "'";
      usage(argv[0], 2, msg.c_str());
    }
  }
  if (o.params.t < 0) usage(argv[0], 2, "--t must not be negative");
  if (o.params.e < 0 || o.params.e > 1) usage(argv[0], 2, "--e must be a probability in [0, 1]");
  return o;
}

/// One execution: its async context and the sink its outcome is delivered to.
struct execution : asyncshift::detail::handler<> {
  context ctx;
  struct run_state* run = nullptr;
  bool completed = false;

  execution() : asyncshift::detail::handler<>{&ops_} {}
  static void deliver(asyncshift::detail::handler<>* self, error&& e);
  static void no_destroy(asyncshift::detail::handler<>*) noexcept {}
  static constexpr asyncshift::detail::handler_ops<> ops_{&deliver, &no_destroy};
};

struct run_state {
  bool dump = false;
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t digest = 0;
};

void execution::deliver(asyncshift::detail::handler<>* self, error&& e) {
  auto* me = static_cast<execution*>(self);
  run_state& r = *me->run;
  if (me->completed) {
    ++r.duplicates;
    return;
  }
  me->completed = true;
  ++r.completed;
  if (e) ++r.failed;
  const std::uint64_t outcome = e ? asyncshift::detail::hash_string(e.message()) : 0x5eedULL;
  const context& c = me->ctx;
  std::uint64_t h = asyncshift::detail::combine(c.k, c.trace);
  h = asyncshift::detail::combine(h, c.ops_started);
  h = asyncshift::detail::combine(h, outcome);
  r.digest += h;
  if (r.dump)
    std::fprintf(stderr, "execution %" PRIu64 ": ops=%u trace=%016" PRIx64 " outcome=%s\n", c.k, c.ops_started, c.trace,
                 e ? e.message().c_str() : "ok");
}

/// The records of executions [first, first + count), made before measuring.
std::unique_ptr<execution[]> prepare(run_state& r, std::uint64_t first, std::uint64_t count) {
  std::unique_ptr<execution[]> execs(new execution[count]);
  for (std::uint64_t i = 0; i < count; ++i) {
    execs[i].run = &r;
    execs[i].ctx.k = first + i;
  }
  return execs;
}

/// Starts every prepared execution and runs the loop until all are done.
void run_executions(const workload& w, loop& l, execution* execs, std::uint64_t count) {
  for (std::uint64_t i = 0; i < count; ++i) {
    execution& x = execs[i];
#ifndef NDEBUG
    x.called = false;
#endif
    x.ctx.start_ns = l.now_ns();
    context_scope scope(&x.ctx);
    w.start(w.entry, x.ctx.k, callback<>::borrow(&x));
  }
  l.run();
}

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  return 0;
}

const char* build_kind() {
#if defined(NDEBUG) && defined(__OPTIMIZE__)
  return "release";
#elif defined(__OPTIMIZE__)
  return "optimized-with-asserts";
#else
  return "debug";
#endif
}

} // namespace

int harness_main(int argc, char** argv) {
  options o = parse(argc, argv);
  auto& all = registry();
  if (all.empty()) {
    std::fprintf(stderr, "%s: no workload registered (ASYNCSHIFT_WORKLOAD missing?)\n", argv[0]);
    return 2;
  }
  const workload* w = &all.front();
  if (!o.workload.empty()) {
    w = nullptr;
    for (const auto& candidate : all)
      if (o.workload == candidate.name) w = &candidate;
    if (!w) {
      std::fprintf(stderr, "%s: no workload named '%s'\n", argv[0], o.workload.c_str());
      return 2;
    }
  } else if (all.size() > 1) {
    std::fprintf(stderr, "%s: several workloads registered; pick one with --workload\n", argv[0]);
    return 2;
  }

  detail::g_params = o.params;
  fake::settings_t fs;
  fs.latency_ns = static_cast<std::int64_t>(o.params.t * 1e6);
  fs.error_rate = o.params.e;
  fs.seed = o.params.seed;
  fake::configure(fs);

  loop l(o.params.clock);
  const std::uint64_t n = o.params.n;
  std::uint64_t warmup = o.warmup == UINT64_MAX ? std::min<std::uint64_t>(n / 10, 1000) : o.warmup;
  if (warmup) { // ks after the measured ones; its digest is discarded
    run_state wr;
    auto execs = prepare(wr, n, warmup);
    run_executions(*w, l, execs.get(), warmup);
  }

  run_state r;
  r.dump = o.dump;
  auto execs = prepare(r, 0, n);
  const asyncshift::detail::memory_stats before = asyncshift::detail::tl_memory;
  asyncshift::detail::tl_memory.peak_live_bytes = asyncshift::detail::tl_memory.live_bytes;
  const double cpu0 = cpu_ms();
  const auto t0 = std::chrono::steady_clock::now();
  run_executions(*w, l, execs.get(), n);
  const auto t1 = std::chrono::steady_clock::now();
  const double cpu1 = cpu_ms();
  const asyncshift::detail::memory_stats after = asyncshift::detail::tl_memory;

  const double time_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double denom = n ? static_cast<double>(n) : 1.0;
  const double allocs = static_cast<double>(after.allocs - before.allocs) / denom;
  const double bytes = static_cast<double>(after.bytes - before.bytes) / denom;
  const double peak_live = static_cast<double>(after.peak_live_bytes - before.live_bytes) / denom;

  std::printf("{\"workload\":\"%s\",\"style\":\"%s\",\"n\":%" PRIu64 ",\"t\":%g,\"p\":%" PRIu64
              ",\"e\":%g,\"seed\":%" PRIu64 ",\"clock\":\"%s\","
              "\"time_ms\":%.3f,\"cpu_ms\":%.3f,\"rss_mb\":%.2f,\"allocs_per_exec\":%.2f,\"bytes_per_exec\":%.1f,"
              "\"peak_live_bytes_per_exec\":%.1f,\"completed\":%" PRIu64 ",\"failed\":%" PRIu64
              ",\"trace_digest\":\"%016" PRIx64 "\",\"build\":\"%s\"}\n",
              w->name, w->style, n, o.params.t, o.params.p, o.params.e, o.params.seed,
              o.params.clock == clock_kind::real ? "real" : "virtual", time_ms, cpu1 - cpu0, peak_rss_mb(),
              allocs, bytes, peak_live, r.completed,
              r.failed, r.digest, build_kind());
  std::fflush(stdout);

  if (r.duplicates != 0) {
    std::fprintf(stderr, "%s: %" PRIu64 " executions completed more than once\n", argv[0], r.duplicates);
    return 1;
  }
  if (r.completed != n) {
    std::fprintf(stderr, "%s: only %" PRIu64 " of %" PRIu64 " executions completed\n", argv[0], r.completed, n);
    return 1;
  }
  return 0;
}

} // namespace asyncshift::bench
