// The values a join over n operations collects (callback parallel, promise
// all, future and task when_all): stored by index as the operations
// complete, in any order, and handed over as one std::vector<T> in input
// order.
//
// A default-constructible T is stored straight in the vector that is handed
// over: 8 bytes per input for an int64, and no second vector or copy loop at
// the end. Any other T waits in a std::optional and is moved into the result
// at the end. The vector is made when the first value arrives, not when the
// join is: the vector of promises or futures a join is made from is gone by
// then, so a fan-out never holds both.
#pragma once

#include "asyncshift/detail/pool.hpp"

#include <cstddef>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace asyncshift::detail {

/// The element of a variadic join's tuple for a T (future and task when_all,
/// promise all): T, or std::monostate for void.
template <class T>
using tuple_element_for = std::conditional_t<std::is_void_v<T>, std::monostate, T>;

template <class T>
class join_values {
  static constexpr bool in_place = std::is_default_constructible_v<T> && std::is_move_assignable_v<T>;

public:
  /// Expects \p n inputs (once, before any set).
  void expect(std::size_t n) noexcept { n_ = n; }

  /// Stores the value of input \p i (made from \p a).
  template <class... A>
  void set(std::size_t i, A&&... a) {
    if (values_.empty()) values_.resize(n_);
    if constexpr (in_place)
      values_[i] = T(static_cast<A&&>(a)...);
    else
      values_[i].emplace(static_cast<A&&>(a)...);
  }

  /// The values, once every input has stored one (none for n = 0).
  std::vector<T> take() {
    if constexpr (in_place) {
      return std::move(values_);
    } else {
      std::vector<T> out;
      out.reserve(values_.size());
      for (auto& v : values_) out.push_back(std::move(*v));
      return out;
    }
  }

private:
  std::size_t n_ = 0;
  std::vector<std::conditional_t<in_place, T, std::optional<T>>> values_;
};

/// The values that wait in the first bytes of the elements of \p slots, one
/// T in each (put there once its element was done with, for a join whose
/// per-input elements outlive their use: promise all's slots, parallel's
/// sinks), in index order. The vector's pages are touched as it fills, and
/// the slots' pages go back as they are read: the hand-over holds no extra
/// memory, and a fan-out in flight holds no result vector beside its slots.
template <class T, class Slot>
std::vector<T> take_values_from_slots(pooled_array<Slot>& slots) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(Slot) && alignof(T) <= alignof(Slot));
  const std::size_t n = slots.size();
  Slot* const first = slots.get();
  std::vector<T> out;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    out.push_back(std::move(*std::launder(reinterpret_cast<T*>(first + k)))); // T may be move-only
    if ((k + 1) % 65536 == 0) slots.release_prefix(k + 1);
  }
  return out;
}

} // namespace asyncshift::detail
