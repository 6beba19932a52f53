// promisify: the generic adapter from any callback-style operation to the
// other styles.
//
//   co_await asyncshift::promisify<std::int64_t>([&](auto cb) { blob.put(stream, cb); });
//
// `start` receives a callback and starts the operation with it. Awaited in a
// coroutine, the operation delivers straight into the awaiter that lives in
// the coroutine frame (a borrowed callback: no allocation), and an operation
// that completes synchronously does not suspend at all. This is how generated
// code reaches every leaf — runtime ops and user functions alike — so no op
// needs a hand-written wrapper per style, and every style pays the same.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/error.hpp"
#include "asyncshift/result.hpp"
#include "asyncshift/task.hpp"

#include <coroutine>
#include <optional>
#include <type_traits>
#include <utility>

namespace asyncshift {

namespace detail {

template <class T>
struct value_slot {
  std::optional<T> value;
  template <class... V>
  void set(V&&... v) {
    value.emplace(static_cast<V&&>(v)...);
  }
  T take() { return std::move(*value); }
};
template <>
struct value_slot<void> {
  void set() noexcept {}
  void take() noexcept {}
};

template <class T>
using handler_for = typename callback_for<T>::type::handler_type;

} // namespace detail

/// An operation described by its starting function, awaitable once.
/// With Settled = false, awaiting yields T and throws error_exception on
/// failure; with Settled = true it yields settled_t<T> (never throws for the
/// operation's own failure).
template <class T, class F, bool Settled = false>
class [[nodiscard]] callback_op : private detail::handler_for<T> {
  using callback_type = typename detail::callback_for<T>::type;
  using handler_type = detail::handler_for<T>;

public:
  explicit callback_op(F start) noexcept(std::is_nothrow_move_constructible_v<F>)
      : handler_type{ops_pointer()}, start_(std::move(start)) {}

  callback_op(callback_op&& other) noexcept(std::is_nothrow_move_constructible_v<F>)
      : handler_type{ops_pointer()}, start_(std::move(other.start_)) {}

  /// The starting function, for conversion to another style.
  F&& take_start() && noexcept { return std::move(start_); }

  bool await_ready() const noexcept { return false; }

  bool await_suspend(std::coroutine_handle<> waiter) {
    waiter_ = waiter;
    start_(callback_type::borrow(this));
    if (state_ == state::completed) return false; // completed synchronously: carry on
    state_ = state::suspended;
    return true;
  }

  auto await_resume() {
    if constexpr (Settled) {
      if constexpr (std::is_void_v<T>)
        return std::move(error_);
      else
        return result<T>(std::move(error_), slot_.take());
    } else {
      if (error_) [[unlikely]]
        throw error_exception(std::move(error_));
      return slot_.take();
    }
  }

private:
  enum class state : unsigned char { starting, suspended, completed };

  template <class... V>
  static void deliver(handler_type* self, error&& e, V&&... v) {
    auto* me = static_cast<callback_op*>(self);
    me->error_ = std::move(e);
    me->slot_.set(static_cast<V&&>(v)...);
    if (me->state_ == state::suspended) {
      me->state_ = state::completed;
      me->waiter_.resume();
    } else {
      me->state_ = state::completed;
    }
  }
  static void no_destroy(handler_type*) noexcept {}

  template <class... V>
  struct ops_table {
    static constexpr detail::handler_ops<V...> value{&deliver<V...>, &no_destroy};
  };
  static const auto* ops_pointer() noexcept {
    if constexpr (std::is_void_v<T>)
      return &ops_table<>::value;
    else
      return &ops_table<T>::value;
  }

  F start_;
  std::coroutine_handle<> waiter_;
  error error_;
  detail::value_slot<T> slot_;
  state state_ = state::starting;

  template <class, class, bool>
  friend class callback_op;
};

/// Adapts the callback-style operation started by \p start to an awaitable
/// (and, with promise.hpp/future.hpp, to a promise or a future).
template <class T = void, class F>
callback_op<T, std::decay_t<F>> promisify(F&& start) {
  return callback_op<T, std::decay_t<F>>(static_cast<F&&>(start));
}

/// Awaiting settle(op) yields the outcome as a value (error, or result<T>).
template <class T, class F>
callback_op<T, F, true> settle(callback_op<T, F, false>&& op) {
  return callback_op<T, F, true>(std::move(op).take_start());
}

} // namespace asyncshift
