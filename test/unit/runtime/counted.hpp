// A type that counts its constructions, copies, moves and destructions
// (cppcoro's test/counted.hpp): lifetime tests check that values are moved,
// not copied, along a chain, and that nothing outlives its last owner.
#pragma once

#include <asyncshift/detail/pool.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace asyncshift::test {

struct counted {
  static inline int default_constructions = 0;
  static inline int copy_constructions = 0;
  static inline int move_constructions = 0;
  static inline int destructions = 0;

  static void reset() { default_constructions = copy_constructions = move_constructions = destructions = 0; }
  static int constructions() { return default_constructions + copy_constructions + move_constructions; }
  /// Objects alive now.
  static int active() { return constructions() - destructions; }

  int id = 0;

  counted() { ++default_constructions; }
  explicit counted(int i) : id(i) { ++default_constructions; }
  counted(const counted& other) : id(other.id) { ++copy_constructions; }
  counted(counted&& other) noexcept : id(other.id) { ++move_constructions; }
  counted& operator=(const counted&) = default;
  counted& operator=(counted&&) noexcept = default;
  ~counted() { ++destructions; }
};

/// A value whose copy and move throw when it holds a negative number: a
/// state that fails to take it must stay pending, its waiting reactions or
/// continuation intact, and then fail.
struct poisoned_move {
  int v = 0;
  explicit poisoned_move(int x) : v(x) {}
  poisoned_move(const poisoned_move& o) : v(o.v) {
    if (v < 0) throw std::runtime_error("move threw");
  }
  poisoned_move(poisoned_move&& o) : v(o.v) {
    if (v < 0) throw std::runtime_error("move threw");
  }
};

/// Pooled objects alive on this thread (promise states, reactions, frames...).
inline std::int64_t live_objects() { return asyncshift::detail::memory_snapshot().live_objects; }

/// The address of a frame on the machine stack, for "no stack growth"
/// checks. Not a local's address: in a coroutine a local may live in the
/// frame on the heap, and under AddressSanitizer in a fake stack frame.
[[gnu::noinline]] inline const char* stack_here() { return static_cast<const char*>(__builtin_frame_address(0)); }

/// How deep the stack is below \p base (a stack_here() of the test), in bytes.
[[gnu::noinline]] inline std::size_t stack_depth_below(const char* base) {
  const char* p = stack_here();
  return base > p ? static_cast<std::size_t>(base - p) : static_cast<std::size_t>(p - base);
}

/// Records, when it is destroyed, how deep the stack is below \p base into
/// \p deepest (the deepest so far): captured by a handler, it measures where
/// the handler's state goes.
struct stack_probe {
  std::size_t* deepest = nullptr;
  const char* base = nullptr;
  stack_probe(std::size_t* d, const char* b) : deepest(d), base(b) {}
  stack_probe(const stack_probe&) = default;
  stack_probe& operator=(const stack_probe&) = default;
  ~stack_probe() {
    if (deepest) *deepest = std::max(*deepest, stack_depth_below(base));
  }
};

} // namespace asyncshift::test
