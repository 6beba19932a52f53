// Simulated I/O: the one operation every workload is built from.
//
// fake::io(op, arg, cb) completes after the configured latency on the current
// loop, records (virtual start time, op, arg) in the current execution's
// trace, and fails with the configured probability. Whether it fails depends
// only on (seed, execution k, op name, the op's ordinal among the execution's
// ops of that name): never on the order the loop ran things in, so every style
// of a workload sees the same failures.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/context.hpp"
#include "asyncshift/detail/hash.hpp"
#include "asyncshift/detail/pool.hpp"
#include "asyncshift/loop.hpp"

#include <charconv>
#include <cmath>
#include <deque>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

// g++ otherwise calls start_io out of line from the doxbee world's ops: a
// call and six saved registers per op. clang inlines it into each op by
// itself; what it kept out of line were the ops, which doxbee.hpp inlines
// always with clang (ASYNCSHIFT_OP_INLINE, docs/runtime.md Round 35; Round 10
// had found clang better with start_io out of line, no longer so).
#if defined(__GNUC__) && !defined(__clang__)
#define ASYNCSHIFT_START_IO_INLINE [[gnu::always_inline]] inline
#else
#define ASYNCSHIFT_START_IO_INLINE inline
#endif

namespace asyncshift::fake {

struct settings_t {
  /// How long every op takes.
  std::int64_t latency_ns = 1'000'000;
  /// Probability that an op fails.
  double error_rate = 0;
  std::uint64_t seed = 1;
};

namespace detail {
inline settings_t g_settings;
inline std::uint64_t g_fail_threshold = 0; // error_rate scaled to 2^64

struct op_registry {
  std::mutex mutex;
  std::unordered_map<std::string, std::uint32_t> ids;
  std::deque<std::string> names; // stable addresses: op_name keeps views
};
inline op_registry& registry() {
  static op_registry r;
  return r;
}
} // namespace detail

inline const settings_t& settings() noexcept { return detail::g_settings; }

inline void configure(const settings_t& s) {
  detail::g_settings = s;
  if (s.error_rate <= 0)
    detail::g_fail_threshold = 0;
  else if (s.error_rate >= 1)
    detail::g_fail_threshold = UINT64_MAX;
  else
    detail::g_fail_threshold = static_cast<std::uint64_t>(std::ldexp(s.error_rate, 64));
}

/// An interned op name: its id (for per-execution ordinals) and its hash,
/// computed once. Make these `static` or global; construction takes a lock.
class op_name {
public:
  explicit op_name(std::string_view name) : hash_(asyncshift::detail::hash_string(name)) {
    auto& r = detail::registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto [it, inserted] = r.ids.emplace(std::string(name), static_cast<std::uint32_t>(r.names.size()));
    if (inserted) r.names.emplace_back(name);
    id_ = it->second;
    name_ = r.names[id_];
  }
  std::string_view name() const noexcept { return name_; }
  std::uint64_t hash() const noexcept { return hash_; }
  std::uint32_t id() const noexcept { return id_; }

private:
  std::string_view name_;
  std::uint64_t hash_;
  std::uint32_t id_;
};

/// The value an op completes with: a deterministic function of (op, arg).
inline std::int64_t value_of(const op_name& op, std::int64_t arg) noexcept {
  return static_cast<std::int64_t>(asyncshift::detail::combine(op.hash(), static_cast<std::uint64_t>(arg)) >> 1);
}

namespace detail {

/// Whether a Deliver uses the op's value (value_of costs two mixes; most
/// ops complete without one, and skip it).
template <class Deliver>
constexpr bool uses_value() {
  if constexpr (requires { Deliver::uses_value; })
    return Deliver::uses_value;
  else
    return true;
}

/// The name of the op with id \p id (as interned by op_name). Each thread
/// remembers the names of the first ids it looked up (names never move, and
/// an id's name never changes), so a failure takes the registry's lock only
/// the first time its op fails on that thread.
inline std::string_view name_of(std::uint32_t id) {
  constexpr std::uint32_t remembered = 64;
  constinit thread_local std::string_view known[remembered] = {};
  if (id < remembered && known[id].data() != nullptr) [[likely]]
    return known[id];
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const std::string_view name = r.names[id];
  if (id < remembered) known[id] = name;
  return name;
}

/// What a failing op's error names: the op, and its ordinal among the
/// execution's ops of that name.
struct op_failure {
  std::uint32_t op_id;
  std::uint32_t ordinal;
};

[[gnu::cold, gnu::noinline]] inline error injected_failure(op_failure f) {
  constexpr std::string_view prefix = "injected failure: ";
  const std::string_view name = name_of(f.op_id);
  char digits[10]; // a uint32_t's
  char* end = std::to_chars(digits, digits + sizeof digits, f.ordinal).ptr;
  std::string message; // built in one allocation, where operator+ grew it three times
  message.reserve(prefix.size() + name.size() + 2 + static_cast<std::size_t>(end - digits));
  message.append(prefix).append(name).append(" #").append(digits, end);
  return error(std::move(message));
}

/// The timer node of one op: it owns the op's completion handler until it
/// fires. `Deliver` maps the op's int64 value to what the handler gets, and
/// fails it with the value type's default.
///
/// The handler is held in the node itself. A continuation lambda handed
/// straight to the op (the callback style) lives there as Asio keeps a
/// handler in its operation: one block per op, not a node and a callback
/// block. For a callback<T...> (every generated style hands the op a callback
/// that borrows a frame, a promise or a future state) the node is 48 bytes,
/// the smallest pool class that holds a timer node and a callback: every op
/// of every style makes one, and a million-op fan-out has them all alive at
/// once. So the node keeps no (op, arg): an op that succeeds holds the value
/// it delivers (a function of op and arg alone, so computing it at the start
/// changes nothing), one that fails holds what its error message names, and
/// which of the two it is lives in `run` (fire or fire_failed).
template <class Deliver, class H>
struct io_node final : asyncshift::detail::timer_node {
  H handler;
  union {
    std::int64_t value; // run == fire (set only when Deliver uses it)
    op_failure failure; // run == fire_failed
  };

  template <class G>
  explicit io_node(G&& g) noexcept(std::is_nothrow_constructible_v<H, G&&>) : handler(static_cast<G&&>(g)) {}

  static void fire(asyncshift::detail::runnable* self) {
    auto* me = static_cast<io_node*>(self);
    const std::int64_t value = uses_value<Deliver>() ? me->value : 0;
    // Always inlined: clang otherwise calls the lambda out of line from
    // some fires, and the delivery is no longer fire's own last act.
    asyncshift::detail::release_then_call(me, me->handler,
                                          [&](H& h) __attribute__((always_inline)) { Deliver::deliver(h, value); });
  }
  /// fire with every call in it inlined, for a continuation lambda (the
  /// callback style): g++ kept some of the doxbee continuations out of line
  /// (each is called from fire and from fire_failed), a call and saved
  /// registers per op. Not for the runtime's own handlers: flattened, g++
  /// made the promise and future styles' code worse.
  [[gnu::flatten]] static void fire_flattened(asyncshift::detail::runnable* self) { fire(self); }
  /// What `run` is while the op is set to succeed.
  static constexpr void (*fire_fn)(asyncshift::detail::runnable*) =
      asyncshift::detail::is_runtime_handler<H>::value ? &fire : &fire_flattened;

  [[gnu::cold]] static void fire_failed(asyncshift::detail::runnable* self) {
    auto* me = static_cast<io_node*>(self);
    const auto failure = me->failure;
    asyncshift::detail::release_then_call(me, me->handler, [&](H& h) { Deliver::fail(h, injected_failure(failure)); });
  }
};

/// An op that completes with its int64 value.
struct deliver_value {
  template <class H>
  ASYNCSHIFT_INLINE static void deliver(H& h, std::int64_t v) {
    asyncshift::detail::succeed_from_loop<std::int64_t>(h, std::int64_t{v});
  }
  template <class H>
  static void fail(H& h, error e) {
    asyncshift::detail::fail<std::int64_t>(h, std::move(e));
  }
};
/// An op that completes without a value.
struct deliver_nothing {
  static constexpr bool uses_value = false;
  template <class H>
  ASYNCSHIFT_INLINE static void deliver(H& h, std::int64_t) {
    asyncshift::detail::succeed_from_loop<>(h);
  }
  template <class H>
  static void fail(H& h, error e) {
    asyncshift::detail::fail<>(h, std::move(e));
  }
};

/// Decides whether the \p ordinal-th op named \p op of execution \p k fails:
/// a function of (seed, k, op, ordinal) only; if it does, says so in \p out
/// (and leaves it alone otherwise). Out of line: it runs only when failures
/// are possible.
[[gnu::noinline]] inline bool decide_failure(context* c, const op_name& op, op_failure& out) noexcept {
  using asyncshift::detail::combine;
  const std::uint32_t ordinal = c->next_ordinal(op.id());
  const std::uint64_t h = asyncshift::detail::mix64(combine(combine(g_settings.seed, c->k), op.hash() ^ ordinal));
  if (h >= g_fail_threshold) return false;
  out = {op.id(), ordinal};
  return true;
}

/// The trace entry of one op: a hash of (start time, op, arg). The trace is
/// the sum of its ops' entries, so it is a hash of the multiset of ops,
/// whatever order they started in.
inline std::uint64_t trace_entry(std::int64_t t, const op_name& op, std::int64_t arg) noexcept {
  return asyncshift::detail::combine(op.hash() + static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(arg));
}

/// Records the start of \p op in execution \p c: its trace entry and count.
ASYNCSHIFT_INLINE void record_start(context& c, std::int64_t now, const op_name& op, std::int64_t arg) noexcept {
  c.trace += trace_entry(now - c.start_ns, op, arg);
  ++c.ops_started;
}

/// Records the start of \p op in execution \p c (if any) and decides whether
/// it fails (filling in \p out only if it does).
ASYNCSHIFT_INLINE bool start_op(context* c, std::int64_t now, const op_name& op, std::int64_t arg, op_failure& out) noexcept {
  if (!c) return false;
  record_start(*c, now, op, arg);
  // The ordinal only decides failures (and names them): with none
  // possible, counting it would change nothing.
  if (g_fail_threshold == 0) [[likely]]
    return false;
  return decide_failure(c, op, out);
}

inline const op_name& intern(std::string_view op) {
  // Slow path for ad-hoc names: one interned op_name per distinct string.
  static std::mutex mutex;
  static std::unordered_map<std::string, std::unique_ptr<op_name>> names;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = names[std::string(op)];
  if (!slot) slot = std::make_unique<op_name>(op);
  return *slot;
}

/// Decides whether the op of \p node fails; if it does, \p node delivers the
/// failure instead of its value.
template <class Node>
[[gnu::noinline]] void decide_failure_of(context* c, const op_name& op, Node* node) noexcept {
  if (decide_failure(c, op, node->failure)) node->run = &Node::fire_failed;
}

/// start_io's general path: any pool state, a new timer FIFO, failures.
template <class Deliver, class H>
[[gnu::noinline]] void start_io_slow(const op_name& op, std::int64_t arg, std::int64_t latency_ns, H&& handler) {
  using node_type = io_node<Deliver, std::decay_t<H>>;
  auto* node = asyncshift::detail::pool_new<node_type>(static_cast<H&&>(handler));
  context* c = current_context();
  loop& l = loop::current();
  node->run = node_type::fire_fn;
  if constexpr (uses_value<Deliver>()) node->value = value_of(op, arg);
  if (start_op(c, l.now_ns(), op, arg, node->failure)) [[unlikely]] // the failure replaces the value
    node->run = &node_type::fire_failed;
  l.schedule(node, latency_ns, c);
}
} // namespace detail

/// Starts \p op with \p arg and completes \p handler after \p latency_ns,
/// with `Deliver::deliver(handler, value)` on success. The building block of
/// every fake op. \p handler is a callback<T...> or a continuation lambda,
/// kept in the op's timer node until it runs.
template <class Deliver, class H>
ASYNCSHIFT_START_IO_INLINE void start_io(const op_name& op, std::int64_t arg, std::int64_t latency_ns, H&& handler) {
  using node_type = detail::io_node<Deliver, std::decay_t<H>>;
  static_assert(!asyncshift::detail::is_callback<std::decay_t<H>>::value || sizeof(node_type) <= 48,
                "an op's timer node outgrew its pool class");
  // The common case makes no call but a final tail call, so that an
  // out-of-line copy of this function saves no registers: a pooled block at
  // hand and the same timer FIFO as the last op. With failures injected,
  // the decision is that tail call (the node has not fired yet).
  if constexpr (std::is_nothrow_constructible_v<std::decay_t<H>, H&&>) {
    loop* l = asyncshift::detail::tl_loop;
    if (l && l->fifo_cached(latency_ns)) [[likely]] {
      if (void* p = asyncshift::detail::pool_try_pop<node_type>()) [[likely]] {
        auto* node = ::new (p) node_type(static_cast<H&&>(handler));
        context* c = current_context();
        node->run = node_type::fire_fn;
        if constexpr (detail::uses_value<Deliver>()) node->value = value_of(op, arg);
        l->schedule_cached(node, latency_ns, c);
        if (c) {
          detail::record_start(*c, l->now_ns(), op, arg);
          if (detail::g_fail_threshold != 0) [[unlikely]]
            return detail::decide_failure_of(c, op, node);
        }
        return;
      }
    }
  }
  detail::start_io_slow<Deliver>(op, arg, latency_ns, static_cast<H&&>(handler));
}

/// Starts \p op with \p arg; completes \p cb after \p latency_ns.
inline void io_after(const op_name& op, std::int64_t arg, std::int64_t latency_ns, callback<std::int64_t> cb) {
  start_io<detail::deliver_value>(op, arg, latency_ns, std::move(cb));
}

/// Starts \p op with \p arg; completes \p cb after the configured latency.
inline void io(const op_name& op, std::int64_t arg, callback<std::int64_t> cb) {
  start_io<detail::deliver_value>(op, arg, detail::g_settings.latency_ns, std::move(cb));
}

/// As io(), for ops that complete without a value.
inline void io(const op_name& op, std::int64_t arg, callback<> cb) {
  start_io<detail::deliver_nothing>(op, arg, detail::g_settings.latency_ns, std::move(cb));
}

/// As above, for an op named by a string (interned on first use).
inline void io(std::string_view op, std::int64_t arg, callback<std::int64_t> cb) {
  io(detail::intern(op), arg, std::move(cb));
}

} // namespace asyncshift::fake
