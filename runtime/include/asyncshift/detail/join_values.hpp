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

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace asyncshift::detail {

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

} // namespace asyncshift::detail
