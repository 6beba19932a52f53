// What promise.hpp and future.hpp share: how a state stores its outcome (a
// value or an error, in one union), and how a user's handler is called with
// a value or an error whatever it declared (by value, by reference, or
// nothing), moving the value when nobody else can see it.
#pragma once

#include <cassert>

#include "asyncshift/error.hpp"
#include "asyncshift/result.hpp"

#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace asyncshift::detail {

/// Stands in for the value of a void operation, so states need no
/// specialisation for void.
struct empty_value {};

template <class T>
using stored_t = std::conditional_t<std::is_void_v<T>, empty_value, T>;

enum class outcome_status : std::uint8_t {
  pending,
  fulfilled,
  rejected,
  /// The outcome was moved out to the one consumer (futures only).
  taken,
};

/// Whether a settled value can be copied for a second reader. A standard
/// container says it is copy-constructible whatever its elements are (its
/// copy constructor is not constrained), so `std::vector<std::unique_ptr<U>>`
/// passes `std::is_copy_constructible` and then fails to compile when
/// copied: look at the elements too (and into pairs, tuples and optionals,
/// which a map's elements are, and into a settled result).
template <class T, class = void>
struct copyable : std::is_copy_constructible<T> {};
template <class T>
struct copyable<T, std::void_t<typename T::value_type, typename T::allocator_type>>
    : std::bool_constant<std::is_copy_constructible_v<T> && copyable<std::remove_cv_t<typename T::value_type>>::value> {};
template <class A, class B>
struct copyable<std::pair<A, B>> : std::bool_constant<copyable<std::remove_cv_t<A>>::value && copyable<std::remove_cv_t<B>>::value> {};
template <class... U>
struct copyable<std::tuple<U...>> : std::bool_constant<(copyable<std::remove_cv_t<U>>::value && ...)> {};
template <class U>
struct copyable<std::optional<U>> : copyable<std::remove_cv_t<U>> {};
template <class U>
struct copyable<result<U>> : copyable<U> {};
template <class T>
inline constexpr bool copyable_v = copyable<T>::value;

/// The value of a settled \p v for one reader: moved out when nobody else
/// can read it (\p may_move), copied otherwise. A move-only value is always
/// moved: it has one reader (a future's continuation, or a promise's first).
template <class T>
T take_or_copy(T& v, bool may_move) {
  if constexpr (copyable_v<T>) {
    if (may_move) return T(std::move(v));
    return T(std::as_const(v));
  } else {
    (void)may_move; // promise_state::may_take_value: true for a move-only value
    return T(std::move(v));
  }
}

/// Handlers are called with a value if they take one; a handler of a
/// non-void operation may also take nothing and ignore it.
template <class T, class F>
constexpr bool takes_value() {
  if constexpr (std::is_void_v<T>)
    return false;
  else
    return std::is_invocable_v<F&, T&&> || std::is_invocable_v<F&, T&> || std::is_invocable_v<F&, const T&>;
}

template <class T, class F, bool = takes_value<T, F>()>
struct value_call {
  using type = std::invoke_result_t<F&>;
};
template <class T, class F>
struct value_call<T, F, true> {
  using type = typename std::conditional_t<std::is_invocable_v<F&, T&&>, std::invoke_result<F&, T&&>,
                                           std::conditional_t<std::is_invocable_v<F&, T&>, std::invoke_result<F&, T&>,
                                                              std::invoke_result<F&, const T&>>>::type;
};

/// What calling handler \p F with the value of a T operation returns.
template <class T, class F>
using value_result_t = typename value_call<T, F>::type;

/// Calls \p f with \p v: moved when \p may_move (nobody else will read it),
/// otherwise as a const reference, or as a copy when f wants an rvalue or a
/// mutable reference.
template <class T, class F>
value_result_t<T, F> invoke_with_value(F& f, stored_t<T>& v, bool may_move) {
  if constexpr (!takes_value<T, F>()) {
    (void)v;
    (void)may_move;
    return f();
  } else if constexpr (std::is_invocable_v<F&, T&&> && std::is_invocable_v<F&, const T&>) {
    if constexpr (copyable_v<T>) {
      if (may_move) return f(std::move(v));
      return f(std::as_const(v));
    } else {
      // By value or by const reference: a by-value parameter would copy.
      assert(may_move && "a move-only value read by more than one reaction");
      (void)may_move;
      return f(std::move(v));
    }
  } else if constexpr (std::is_invocable_v<F&, T&&>) {
    if constexpr (copyable_v<T>) {
      if (may_move) return f(std::move(v));
      return f(T(std::as_const(v)));
    } else {
      // A move-only value (std::unique_ptr) has one reader: a future's
      // continuation, or a promise's only reaction.
      assert(may_move && "a move-only value read by more than one reaction");
      (void)may_move;
      return f(std::move(v));
    }
  } else if constexpr (std::is_invocable_v<F&, T&>) {
    if constexpr (copyable_v<T>) {
      if (may_move) return f(v);
      T copy(std::as_const(v));
      return f(copy);
    } else {
      assert(may_move && "a move-only value read by more than one reaction");
      (void)may_move;
      return f(v);
    }
  } else {
    (void)may_move;
    return f(std::as_const(v));
  }
}

template <class G>
constexpr bool takes_error() {
  return std::is_invocable_v<G&, error&&> || std::is_invocable_v<G&, error&> || std::is_invocable_v<G&, const error&>;
}

template <class G>
using error_result_t = typename std::conditional_t<takes_error<G>(), std::invoke_result<G&, error&&>, std::invoke_result<G&>>::type;

/// Calls error handler \p g with \p e (moved when \p may_move), or with
/// nothing if it takes nothing.
template <class G>
error_result_t<G> invoke_with_error(G& g, error& e, bool may_move) {
  if constexpr (!takes_error<G>()) {
    (void)e;
    (void)may_move;
    return g();
  } else if constexpr (std::is_invocable_v<G&, error&&>) {
    if (may_move) return g(std::move(e));
    return g(error(e));
  } else {
    (void)may_move;
    return g(e);
  }
}

/// Marks "no handler here": the outcome passes through unchanged.
struct pass_through {};

/// The two handlers of a `then` state (promise and future alike).
template <class OnValue, class OnError>
struct then_handlers {
  [[no_unique_address]] OnValue on_value;
  [[no_unique_address]] OnError on_error;
};

/// Where a `then` state keeps its handlers: in a union, so that they are
/// destroyed as soon as they have run (the state's derived_flag says whether
/// they are alive)...
template <class H>
struct handlers_slot {
  template <class V, class E>
  handlers_slot(V&& v, E&& e) : h{static_cast<V&&>(v), static_cast<E&&>(e)} {}
  ~handlers_slot() {}
  void destroy() noexcept { h.~H(); }
  union {
    H h;
  };
};
/// ...or, when they hold nothing (a handler that captures nothing, beside
/// pass_through), in no bytes at all: a union is never empty, and such a
/// state would carry a word for them.
template <class H>
struct empty_handlers_slot {
  template <class V, class E>
  empty_handlers_slot(V&& v, E&& e) : h{static_cast<V&&>(v), static_cast<E&&>(e)} {}
  void destroy() noexcept {}
  [[no_unique_address]] H h;
};
template <class OnValue, class OnError, class H = then_handlers<OnValue, OnError>>
using handlers_slot_t =
    std::conditional_t<std::is_empty_v<H> && std::is_trivially_destructible_v<H>, empty_handlers_slot<H>, handlers_slot<H>>;

/// Makes a T from \p v in \p slot, a union member that shares its storage
/// with \p link (what a pending state keeps there: its waiting continuation
/// or reactions), and returns the link it displaced. If making the T throws,
/// the link is put back and the exception goes on: the state is still
/// pending, and whatever settles it next must find what waits on it.
template <class T, class Link, class... V>
Link* emplace_displacing(T& slot, Link*& link, V&&... v) {
  Link* displaced = link;
  if constexpr (std::is_nothrow_constructible_v<T, V&&...>) {
    ::new (static_cast<void*>(std::addressof(slot))) T(static_cast<V&&>(v)...);
  } else {
    try {
      ::new (static_cast<void*>(std::addressof(slot))) T(static_cast<V&&>(v)...);
    } catch (...) {
      link = displaced;
      throw;
    }
  }
  return displaced;
}

} // namespace asyncshift::detail
