// The async context: which execution an operation belongs to.
//
// Like Node's AsyncLocalStorage, the runtime carries the current execution from
// the moment an operation starts to the moment its continuation runs, in every
// style: timer nodes, ready-queue entries and microtasks capture the context
// when they are created and restore it when they run. Workloads never pass the
// execution around; the trace and the error injection read it from here.
#pragma once

#include "asyncshift/detail/cxx20.hpp"

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace asyncshift {

/// One execution of a workload (execution k of n) and the per-execution
/// bookkeeping of the simulated I/O: the trace accumulator and the ordinal of
/// each op name, on which error injection depends.
struct context {
  std::uint64_t k = 0;
  std::int64_t start_ns = 0;
  /// Order-independent hash of the multiset of (start time, op, arg).
  std::uint64_t trace = 0;
  std::uint32_t ops_started = 0;
  /// How many ops of each name this execution started, indexed by the op's
  /// id (ids are small and dense: one per distinct op name in the program);
  /// names past the array count in a map.
  static constexpr std::uint32_t inline_ops = 16;
  std::uint32_t ordinals[inline_ops] = {};
  std::unique_ptr<std::unordered_map<std::uint32_t, std::uint32_t>> more_ordinals;

  /// Returns how many ops named \p op this execution started before, and
  /// counts this one.
  std::uint32_t next_ordinal(std::uint32_t op) {
    if (op < inline_ops) [[likely]]
      return ordinals[op]++;
    return next_ordinal_beyond_inline(op);
  }

private:
  /// next_ordinal for an op id past the inline array: out of line, so that
  /// next_ordinal itself is small enough for clang to inline (it called it
  /// out of line from the doxbee coro-values style's frame).
  [[gnu::noinline]] std::uint32_t next_ordinal_beyond_inline(std::uint32_t op) {
    if (!more_ordinals) more_ordinals = std::make_unique<std::unordered_map<std::uint32_t, std::uint32_t>>();
    return (*more_ordinals)[op]++;
  }
};

namespace detail {
constinit inline thread_local context* tl_context = nullptr;
} // namespace detail

/// The execution whose code is running now (null outside any execution).
inline context* current_context() noexcept { return detail::tl_context; }

/// Makes \p c current for the lifetime of the scope.
class context_scope {
public:
  explicit context_scope(context* c) noexcept : saved_(detail::tl_context) { detail::tl_context = c; }
  ~context_scope() { detail::tl_context = saved_; }
  context_scope(const context_scope&) = delete;
  context_scope& operator=(const context_scope&) = delete;

private:
  context* saved_;
};

} // namespace asyncshift
