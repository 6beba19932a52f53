// The workload runner: n executions at once on one loop, as bluebird's
// performance.js runs n parallel calls, then one JSON line (SPEC §7).
//
// What a run does, in order, and why:
//   1. warm-up: min(350, n) executions run to completion first, exactly as
//      performance.js does, so the pool, the timer FIFOs and the microtask
//      ring have grown and the code is hot before anything is measured;
//   2. the peak-RSS counter is reset (one write to /proc/self/clear_refs) and
//      the RSS read once, so `mem_mb` is the growth of resident memory during
//      the measured run (bluebird's "memory", but a true kernel-tracked peak
//      rather than two samples);
//   3. the measured run, in asyncshift_bench_measured_run() (the function
//      `make bench-instructions` tells callgrind to count in): nothing in it
//      makes a system call per operation or per completion; allocation
//      counters are plain thread-local increments;
//   4. one /proc read for the peak, and the JSON line.
//
// The trace digest: each execution's context accumulates an order-independent
// hash of the multiset of (virtual start time, op, arg) of the ops it started;
// once the loop has run dry, that hash, the op count, k and the outcome
// (success, or the failure's message) are mixed into one value per execution,
// and the values are summed, so the digest does not depend on the order
// executions finished in. Ops an execution starts after it completed (work
// left running: a fire-and-forget call after `done`, the other branches of a
// fan-out that already failed) count too, whichever side of the completion
// a style starts them on. Two styles of a workload print the same digest under the
// virtual clock exactly when every execution started the same ops at the
// same virtual times with the same arguments and ended the same way.
#include "harness.hpp"

#include "asyncshift/bench.hpp"
#include "asyncshift/detail/hash.hpp"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace asyncshift::bench {
namespace {

struct options {
  params_t params;
  std::uint64_t warmup = UINT64_MAX; // default: min(n, 350), as performance.js
  bool dump = false;
  bool harness_only = false;
  int progress = -1; // -1: when stderr is a terminal
  std::string workload;
};

[[noreturn]] void usage(const char* argv0, int code, const char* problem = nullptr) {
  std::FILE* out = code == 0 ? stdout : stderr;
  if (problem) std::fprintf(out, "%s: %s\n", argv0, problem);
  std::fprintf(out,
               "usage: %s [--n N] [--t MS] [--p P] [--e PROB] [--seed S] [--clock=real|virtual]\n"
               "          [--warmup N] [--workload NAME] [--[no-]progress] [--harness-only]\n"
               "Runs N executions of the workload at once and prints one JSON line.\n"
               "  --n N           executions (default 10000)\n"
               "  --t MS          latency of every simulated I/O op in ms (default 1)\n"
               "  --p P           parallelism parameter of the workload (default 25)\n"
               "  --e PROB        probability that an op fails (default 0)\n"
               "  --seed S        seed of the error injection (default 1)\n"
               "  --clock=KIND    real (sleeps) or virtual (time jumps to the next timer)\n"
               "  --warmup N      executions run to completion before measuring\n"
               "                  (default min(n, 350), as bluebird's performance.js)\n"
               "  --progress      a progress line on stderr once a run takes over 2 s\n"
               "                  (default: only when stderr is a terminal)\n"
               "  --harness-only  executions complete at once without running the workload:\n"
               "                  measures the harness's own cost per execution\n"
               "  --dump-executions  print each execution's op count, trace hash and outcome to stderr\n"
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
    else if (flag == "--harness-only") o.harness_only = true;
    else if (flag == "--progress") o.progress = 1;
    else if (flag == "--no-progress") o.progress = 0;
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

struct run_state {
  bool dump = false;
  // Read by the progress thread: relaxed loads and stores compile to plain
  // moves, so counting costs the measured path nothing extra.
  std::atomic<std::uint64_t> completed{0};
  std::uint64_t failed = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t digest = 0;
};

/// One execution: its async context and the sink its outcome is delivered to.
struct execution : asyncshift::detail::handler<> {
  context ctx;
  run_state* run = nullptr;
  bool completed = false;
  bool failed = false;
  std::uint64_t outcome = 0; ///< hash of the failure's message, or of success
  std::string failure;       ///< the failure's message, for --dump-executions

  execution() : asyncshift::detail::handler<>{&ops_} {}
  static void deliver(asyncshift::detail::handler<>* self, error&& e);
  [[gnu::noinline]] static void deliver_again(execution* me);
  [[gnu::noinline]] static void record_failure(execution* me, const error& e);
  static void no_destroy(asyncshift::detail::handler<>*) noexcept {}
  static constexpr asyncshift::detail::handler_ops<> ops_{&deliver, &no_destroy};
};

// Each execution's end, on the measured path of every style: a success is a
// few stores, and the rest (a second call, a failure's message) is out of
// line, so that the common path saves no registers.
void execution::deliver(asyncshift::detail::handler<>* self, error&& e) {
  auto* me = static_cast<execution*>(self);
  if (me->completed) [[unlikely]]
    return deliver_again(me);
  me->completed = true;
  run_state& r = *me->run;
  r.completed.store(r.completed.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (e) [[unlikely]]
    return record_failure(me, e);
  me->outcome = 0x5eedULL;
}

void execution::deliver_again(execution* me) { ++me->run->duplicates; }

void execution::record_failure(execution* me, const error& e) {
  run_state& r = *me->run;
  ++r.failed;
  me->failed = true;
  me->outcome = asyncshift::detail::hash_string(e.message());
  if (r.dump) me->failure = e.message();
}

/// The digest of executions that have all completed, their loop run dry
/// (see the top of this file); with --dump-executions, each one's record.
std::uint64_t digest_of(const run_state& r, const execution* execs, std::uint64_t count) {
  std::uint64_t digest = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const execution& x = execs[i];
    if (!x.completed) continue;
    const context& c = x.ctx;
    std::uint64_t h = asyncshift::detail::combine(c.k, c.trace);
    h = asyncshift::detail::combine(h, c.ops_started);
    h = asyncshift::detail::combine(h, x.outcome);
    digest += h;
    if (r.dump)
      std::fprintf(stderr, "execution %" PRIu64 ": ops=%u trace=%016" PRIx64 " outcome=%s\n", c.k, c.ops_started, c.trace,
                   x.failed ? x.failure.c_str() : "ok");
  }
  return digest;
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

struct run_request {
  const workload* w;
  loop* l;
  execution* execs;
  std::uint64_t count;
  bool harness_only;
};

/// Starts every prepared execution and runs the loop until all are done.
void run_executions(const run_request& q) {
  const workload& w = *q.w;
  for (std::uint64_t i = 0; i < q.count; ++i) {
    execution& x = q.execs[i];
#ifndef NDEBUG
    x.called = false;
#endif
    x.ctx.start_ns = q.l->now_ns();
    context_scope scope(&x.ctx);
    if (q.harness_only) [[unlikely]]
      callback<>::borrow(&x)({});
    else
      w.start(w.entry, x.ctx.k, callback<>::borrow(&x));
  }
  if (w.run_loop) w.run_loop();
  else q.l->run();
}

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

/// A field of /proc/self/status in MB (VmHWM: peak RSS, VmRSS: RSS now).
double status_mb(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::size_t len = std::strlen(field);
  while (std::getline(status, line))
    if (line.compare(0, len, field) == 0 && line.size() > len && line[len] == ':')
      return std::strtod(line.c_str() + len + 1, nullptr) / 1024.0;
  return 0;
}

/// Resets the kernel's peak-RSS counter to the current RSS (Linux >= 4.0).
bool reset_peak_rss() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
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

const char* compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

/// Prints "name style: done/n executions, s" on stderr every second once a
/// run has lasted two, from its own thread, so the measured path never looks
/// at a clock for it. Made before measuring (starting a thread allocates).
class progress_line {
public:
  progress_line(bool enabled, const workload& w, const run_state& r, std::uint64_t n) {
    if (!enabled) return;
    thread_ = std::thread([this, &w, &r, n] {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return armed_; });
      const auto t0 = std::chrono::steady_clock::now();
      auto next = t0 + std::chrono::seconds(2);
      while (!cv_.wait_until(lock, next, [this] { return stop_; })) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "\r\033[K  %s %s: %" PRIu64 "/%" PRIu64 " executions, %.0f s", w.name, w.style,
                     r.completed.load(std::memory_order_relaxed), n, s);
        std::fflush(stderr);
        shown_ = true;
        next += std::chrono::seconds(1);
      }
      if (shown_) std::fprintf(stderr, "\r\033[K");
    });
  }
  void start() { signal([this] { armed_ = true; }); }
  void stop() {
    if (!thread_.joinable()) return;
    signal([this] { armed_ = stop_ = true; });
    thread_.join();
  }
  ~progress_line() { stop(); }

private:
  template <class F>
  void signal(F f) {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      f();
    }
    cv_.notify_one();
  }
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool stop_ = false;
  bool shown_ = false;
};

const workload* pick_workload(const options& o, const char* argv0) {
  auto& all = registry();
  if (all.empty()) {
    std::fprintf(stderr, "%s: no workload registered (ASYNCSHIFT_WORKLOAD missing?)\n", argv0);
    return nullptr;
  }
  if (o.workload.empty()) {
    if (all.size() > 1) {
      std::fprintf(stderr, "%s: several workloads registered; pick one with --workload\n", argv0);
      return nullptr;
    }
    return &all.front();
  }
  for (const auto& candidate : all)
    if (o.workload == candidate.name) return &candidate;
  std::fprintf(stderr, "%s: no workload named '%s'\n", argv0, o.workload.c_str());
  return nullptr;
}

} // namespace

shared_memory_stats& other_threads_memory() noexcept {
  static shared_memory_stats stats;
  return stats;
}

} // namespace asyncshift::bench

/// The measured region: `make bench-instructions` runs the binaries under
/// `valgrind --tool=callgrind --toggle-collect=asyncshift_bench_measured_run`,
/// so instruction counts cover exactly this call (start-up, warm-up and
/// reporting excluded). Not inlined, and with C linkage for a stable name.
extern "C" [[gnu::noinline]] void asyncshift_bench_measured_run(const void* request) {
  asyncshift::bench::run_executions(*static_cast<const asyncshift::bench::run_request*>(request));
}

namespace asyncshift::bench {

int harness_main(int argc, char** argv) {
  options o = parse(argc, argv);
  const workload* w = pick_workload(o, argv[0]);
  if (!w) return 2;
  if (w->expected_style && std::strcmp(w->expected_style, w->style) != 0) {
    std::fprintf(stderr,
                 "%s: built as the %s style of workload '%s', but its entry is in %s style: the rewrite left it as it "
                 "was (does the entry start anything asynchronous?)\n",
                 argv[0], w->expected_style, w->name, w->style);
    return 2;
  }
  // The workload's own file decides (a user's Debug build links the
  // installed release main), unless this main is not a release build either.
  const char* const build = std::strcmp(build_kind(), "release") != 0 || !w->build ? build_kind() : w->build;
  const char* const made_by = w->compiler ? w->compiler : compiler();
  if (std::strcmp(build, "release") != 0)
    std::fprintf(stderr, "***WARNING*** %s is not an optimised release build (%s): its timings mean little\n", argv[0], build);
  if (w->run_loop && o.params.clock != clock_kind::real) {
    std::fprintf(stderr, "%s: %s runs on its own event loop, which has only the real clock\n", argv[0], w->style);
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
  const std::uint64_t warmup = o.warmup == UINT64_MAX ? std::min<std::uint64_t>(n, 350) : o.warmup;
  if (warmup) { // ks after the measured ones; its digest is discarded
    run_state wr;
    auto execs = prepare(wr, n, warmup);
    const run_request q{w, &l, execs.get(), warmup, o.harness_only};
    run_executions(q);
  }

  run_state r;
  r.dump = o.dump;
  auto execs = prepare(r, 0, n);
  const run_request q{w, &l, execs.get(), n, o.harness_only};
  progress_line progress(o.progress == 1 || (o.progress == -1 && isatty(STDERR_FILENO)), *w, r, n);

  const bool peak_reset = reset_peak_rss();
  const double rss_start = status_mb("VmRSS");
  const asyncshift::detail::memory_counts before = asyncshift::detail::memory_snapshot();
  const std::uint64_t other_allocs0 = other_threads_memory().allocs.load();
  const std::uint64_t other_bytes0 = other_threads_memory().bytes.load();
  asyncshift::detail::tl_memory.peak_live_bytes = asyncshift::detail::tl_memory.live_bytes;
  progress.start();
  const double cpu0 = cpu_ms();
  const auto t0 = std::chrono::steady_clock::now();
  asyncshift_bench_measured_run(&q);
  const auto t1 = std::chrono::steady_clock::now();
  const double cpu1 = cpu_ms();
  r.digest = digest_of(r, execs.get(), n);
  const asyncshift::detail::memory_counts after = asyncshift::detail::memory_snapshot();
  const std::uint64_t other_allocs = other_threads_memory().allocs.load() - other_allocs0;
  const std::uint64_t other_bytes = other_threads_memory().bytes.load() - other_bytes0;
  progress.stop();
  const double rss_peak = status_mb("VmHWM");

  const double time_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double denom = n ? static_cast<double>(n) : 1.0;
  const double allocs = static_cast<double>(after.allocs - before.allocs + other_allocs) / denom;
  const double bytes = static_cast<double>(after.bytes - before.bytes + other_bytes) / denom;
  const double peak_live = static_cast<double>(after.peak_live_bytes - before.live_bytes) / denom;
  // Without the reset, the peak may predate the run: report the whole RSS.
  const double mem_mb = peak_reset ? std::max(0.0, rss_peak - rss_start) : rss_peak;

  // Counters compiled out (ASYNCSHIFT_NO_MEMORY_STATS): null, not zeros.
  char allocs_text[32] = "null", bytes_text[32] = "null", peak_text[32] = "null";
  if constexpr (asyncshift::detail::memory_stats_enabled) {
    std::snprintf(allocs_text, sizeof allocs_text, "%.2f", allocs);
    std::snprintf(bytes_text, sizeof bytes_text, "%.1f", bytes);
    std::snprintf(peak_text, sizeof peak_text, "%.1f", peak_live);
  }
  std::printf("{\"workload\":\"%s\",\"style\":\"%s\",\"n\":%" PRIu64 ",\"t\":%g,\"p\":%" PRIu64
              ",\"e\":%g,\"seed\":%" PRIu64 ",\"clock\":\"%s\","
              "\"time_ms\":%.3f,\"cpu_ms\":%.3f,\"rss_mb\":%.2f,\"allocs_per_exec\":%s,\"bytes_per_exec\":%s,"
              "\"completed\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"trace_digest\":\"%016" PRIx64 "\","
              "\"mem_mb\":%.2f,\"peak_live_bytes_per_exec\":%s,\"warmup\":%" PRIu64
              ",\"harness_only\":%s,\"build\":\"%s\",\"compiler\":\"%s\"}\n",
              w->name, w->style, n, o.params.t, o.params.p, o.params.e, o.params.seed,
              o.params.clock == clock_kind::real ? "real" : "virtual", time_ms, cpu1 - cpu0, rss_peak, allocs_text,
              bytes_text, r.completed.load(), r.failed, r.digest, mem_mb, peak_text, warmup,
              o.harness_only ? "true" : "false", build, made_by);
  std::fflush(stdout);

  if (r.duplicates != 0) {
    std::fprintf(stderr, "%s: %" PRIu64 " executions completed more than once\n", argv[0], r.duplicates);
    return 1;
  }
  if (r.completed.load() != n) {
    std::fprintf(stderr, "%s: only %" PRIu64 " of %" PRIu64 " executions completed\n", argv[0], r.completed.load(), n);
    return 1;
  }
  return 0;
}

} // namespace asyncshift::bench
