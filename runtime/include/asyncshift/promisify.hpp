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
// (make_promise and make_future are the same adapter for the other styles.)
//
// The awaiter is small on purpose: g++ gives every awaiter of a coroutine its
// own slot in the frame, so its size is paid once per co_await in the source.
// One union holds, in turn, the start function (moved onto the stack while it
// runs), the waiting coroutine (while the operation is in flight), and the
// error or the value; the state byte sits in the handler's padding; settle()
// looks at the same awaiter instead of making a second one.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/detail/outcome.hpp"
#include "asyncshift/error.hpp"
#include "asyncshift/on_error.hpp"
#include "asyncshift/result.hpp"
#include "asyncshift/task.hpp"

#include <coroutine>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

namespace asyncshift {

template <class T, class F>
class settled_op;

namespace detail {

/// The handler a mapped operation (callback_op::map) hands to the operation
/// it wraps: a failure goes on to \p cb as it is, a value goes on through
/// \p fn. It is a plain handler, so an operation that takes a template
/// handler keeps it inline (in its timer node or pool job): no block of its
/// own. An exception from \p fn becomes the failure, as it would in a
/// coroutine that awaited the operation and returned fn(value).
template <class T, class U, class Cb, class Fn>
struct mapping_handler {
  Cb cb;
  // A function without captures takes no room: an op keeps the handler in
  // its own block (a worker-pool job, a timer node), 16 bytes a class.
  [[no_unique_address]] Fn fn;

  // Called as a callback<T> is (by value: an op may pass lvalues), and
  // through a const reference (a start function may keep it in a lambda that
  // is not mutable).
  void operator()(error e, T v) const {
    if (e) [[unlikely]]
      return fail<U>(cb, std::move(e));
    deliver_value(std::move(v));
  }
  /// The success entry (succeed() of an operation): no error object.
  void deliver_value(T&& v) const {
    if constexpr (std::is_nothrow_invocable_v<const Fn&, T&&>) {
      succeed<U>(cb, fn(std::move(v)));
    } else {
      std::optional<U> u;
      try {
        u.emplace(fn(std::move(v)));
      } catch (...) {
        return fail<U>(cb, error_from_current_exception());
      }
      succeed<U>(cb, std::move(*u));
    }
  }
};
template <class T, class U, class Cb, class Fn>
struct is_runtime_handler<mapping_handler<T, U, Cb, Fn>> : std::true_type {};

/// The start function of a mapped operation: starts the wrapped one with a
/// mapping_handler around the callback it is given.
template <class T, class U, class F, class Fn>
struct mapped_start {
  F start;
  [[no_unique_address]] Fn fn;

  template <class Cb>
  void operator()(Cb&& cb) {
    start(mapping_handler<T, U, std::decay_t<Cb>, Fn>{static_cast<Cb&&>(cb), std::move(fn)});
  }
};

} // namespace detail

/// An operation described by its starting function, awaitable once: awaiting
/// yields T and throws error_exception on failure (settle() of it yields the
/// outcome as a value instead).
template <class T, class F>
class [[nodiscard]] callback_op : private detail::handler_for<T> {
  using callback_type = detail::callback_t<T>;
  using handler_type = detail::handler_for<T>;
  using value_type = detail::stored_t<T>;

public:
  explicit callback_op(F start) noexcept(std::is_nothrow_move_constructible_v<F>) : handler_type(typename handler_type::borrowed_only{}) {
    ::new (static_cast<void*>(std::addressof(start_))) F(std::move(start));
  }
  /// Moves an operation that has not been awaited yet.
  callback_op(callback_op&& other) noexcept(std::is_nothrow_move_constructible_v<F>) : handler_type(typename handler_type::borrowed_only{}) {
    ::new (static_cast<void*>(std::addressof(start_))) F(std::move(other.start_));
  }
  callback_op& operator=(callback_op&&) = delete;
  ~callback_op() {
    switch (state_) {
    case state::fresh:
      start_.~F();
      break;
    case state::has_value:
      value_.~value_type();
      break;
    case state::has_error:
      err_.~error();
      break;
    default:
      break;
    }
  }

  /// The starting function, for conversion to another style (before awaiting).
  F&& take_start() && noexcept { return std::move(start_); }

  /// The same operation, its value passed through \p fn (before awaiting):
  /// `promisify<std::vector<std::uint8_t>>(start).map([](std::vector<std::uint8_t> b) -> std::int64_t { return b[0]; })`
  /// completes with b[0]. A failure passes through unchanged; an exception
  /// from \p fn becomes the failure. \p fn runs where the operation
  /// completes, inside its callback, as the callback-style continuation
  /// `if (err) return cb(err); cb({}, fn(v));` would: a parallel branch made
  /// of one such operation needs no coroutine frame, promise or future.
  template <class Fn>
    requires(!std::is_void_v<T> && std::is_invocable_v<const Fn&, T &&>)
  auto map(Fn fn) && {
    using U = std::remove_cvref_t<std::invoke_result_t<const Fn&, T&&>>;
    static_assert(!std::is_void_v<U>, "map's function returns the new value");
    using start_type = detail::mapped_start<T, U, F, Fn>;
    return callback_op<U, start_type>(start_type{std::move(start_), std::move(fn)});
  }

  bool await_ready() const noexcept { return false; }

  bool await_suspend(std::coroutine_handle<> waiter) {
    {
      // The union is for the waiter, then the outcome, from now on: the
      // operation may complete before `start` returns.
      F start(std::move(start_));
      start_.~F();
      ::new (static_cast<void*>(std::addressof(waiter_))) std::coroutine_handle<>(waiter);
      this->ops = ops_pointer(); // only an awaited operation is a handler (take_start hands F on)
      state_ = state::starting;
      start(sink_type::borrow(this));
    }
    if (state_ != state::starting) return false; // completed synchronously: carry on
    state_ = state::suspended;
    return true;
  }

  T await_resume() {
    if (state_ == state::has_error) [[unlikely]]
      throw_error(std::move(err_));
    if constexpr (!std::is_void_v<T>) return std::move(value_);
  }

  /// The outcome as a value: error, or result<T>.
  settled_t<T> take_settled() {
    if constexpr (std::is_void_v<T>) {
      return state_ == state::has_error ? std::move(err_) : error{};
    } else {
      if (state_ == state::has_error) return result<T>(std::move(err_));
      return result<T>(error{}, std::move(value_));
    }
  }

private:
  enum class state : unsigned char { fresh, starting, suspended, has_value, has_error };
  template <class, class...>
  friend class detail::sink_callback; // borrowed_sink calls on_callback through its helpers
  // What `start` gets: a borrowed callback<T> that ops taking a template
  // handler complete with a direct call to on_callback.
  using sink_type = detail::rebind_borrowed_t<callback_op, callback_type>;

  template <class... V>
  static void on_callback(handler_type* self, error&& e, V&&... v) {
    if (!e) [[likely]]
      return on_value(self, static_cast<V&&>(v)...);
    auto* me = static_cast<callback_op*>(self);
    const bool was_suspended = me->state_ == state::suspended;
    const std::coroutine_handle<> waiter = me->waiter_; // the outcome takes its place
    ::new (static_cast<void*>(std::addressof(me->err_))) error(std::move(e));
    me->state_ = state::has_error;
    if (was_suspended) waiter.resume();
  }
  /// The success entry (borrowed_sink::deliver_value): no error object.
  template <class... V>
  static void on_value(handler_type* self, V&&... v) {
    auto* me = static_cast<callback_op*>(self);
    const bool was_suspended = me->state_ == state::suspended;
    const std::coroutine_handle<> waiter = me->waiter_; // the outcome takes its place
    ::new (static_cast<void*>(std::addressof(me->value_))) value_type(static_cast<V&&>(v)...);
    me->state_ = state::has_value;
    if (was_suspended) waiter.resume();
  }
  static void no_destroy(handler_type*) noexcept {}

  template <class... V>
  struct ops_table {
    static constexpr detail::handler_ops<V...> value{&on_callback<V...>, &no_destroy};
  };
  static const auto* ops_pointer() noexcept {
    if constexpr (std::is_void_v<T>)
      return &ops_table<>::value;
    else
      return &ops_table<T>::value;
  }

  state state_ = state::fresh; // first, so that it lands in the handler's padding
  union {
    F start_;
    std::coroutine_handle<> waiter_; // state starting or suspended
    error err_;
    value_type value_;
  };
};

/// settle(op): awaiting it yields op's outcome as a value (error, or
/// result<T>) instead of throwing. It looks at op, the temporary it was made
/// from, so co_await it in the same expression:
/// `auto [err, v] = co_await asyncshift::settle(asyncshift::promisify<T>(...));`
template <class T, class F>
class [[nodiscard]] settled_op {
public:
  explicit settled_op(callback_op<T, F>& op) noexcept : op_(&op) {}
  settled_op(const settled_op&) = delete;
  settled_op& operator=(const settled_op&) = delete;

  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> waiter) { return op_->await_suspend(waiter); }
  settled_t<T> await_resume() { return op_->take_settled(); }

private:
  callback_op<T, F>* op_;
};

/// Adapts the callback-style operation started by \p start to an awaitable
/// (make_promise and make_future adapt it to a promise and a future).
/// \p start is taken by value: a lambda that captures by reference is then
/// passed in registers, where a reference parameter would make g++ keep the
/// lambda in the coroutine frame beside the awaiter's own copy.
template <class T = void, class F>
callback_op<T, F> promisify(F start) {
  return callback_op<T, F>(std::move(start));
}

/// An operation with a cleanup that runs when it fails (made by
/// `promisify(start, on_error(g))`). Awaited, it fails as the operation does,
/// after \p g ran; returned from a future's `then` handler, the handler's
/// state starts it and runs \p g inline when its callback reports the error,
/// as `make_future(start, on_error(g))` does, with no future of its own.
template <class T, class F, class G>
class [[nodiscard]] cleanup_op {
public:
  cleanup_op(F start, G cleanup) noexcept(std::is_nothrow_move_constructible_v<F> && std::is_nothrow_move_constructible_v<G>)
      : op_(std::move(start)), cleanup_(std::move(cleanup)) {}

  /// The starting function and the cleanup, for conversion to another style (before awaiting).
  F&& take_start() && noexcept { return std::move(op_).take_start(); }
  G&& take_cleanup() && noexcept { return std::move(cleanup_); }

  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> waiter) { return op_.await_suspend(waiter); }
  T await_resume() {
    if constexpr (std::is_void_v<T>) {
      error e = op_.take_settled();
      if (e) [[unlikely]]
        fail(std::move(e));
    } else {
      result<T> r = op_.take_settled();
      if (r.err) [[unlikely]]
        fail(std::move(r.err));
      return std::move(r.value);
    }
  }

private:
  [[noreturn]] void fail(error e) {
    detail::run_cleanup(cleanup_, e);
    throw_error(std::move(e));
  }

  callback_op<T, F> op_;
  G cleanup_;
};

/// As promisify(start), and \p cleanup (made by on_error) runs when the
/// operation fails, before the failure goes on.
template <class T = void, class F, class G>
cleanup_op<T, F, G> promisify(F start, on_error_cleanup<G> cleanup) {
  return cleanup_op<T, F, G>(std::move(start), std::move(cleanup.f));
}

/// Awaiting settle(op) yields the outcome as a value (error, or result<T>).
template <class T, class F>
settled_op<T, F> settle(callback_op<T, F>&& op) noexcept {
  return settled_op<T, F>(op);
}

} // namespace asyncshift
