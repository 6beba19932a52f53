// asyncshift::task<T> — a lazy C++20 coroutine.
//
// A task does nothing until it is awaited (or started with start()); awaiting
// it transfers control symmetrically into it, and its end transfers back to
// the awaiting coroutine, so a chain of a million synchronous completions uses
// constant stack. Frames come from the runtime's recycling pool. Errors travel
// as exceptions (error_exception for asyncshift errors); settle() turns them
// back into values.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/detail/pool.hpp"
#include "asyncshift/error.hpp"
#include "asyncshift/result.hpp"

#include <coroutine>
#include <cstdint>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace asyncshift {

template <class T = void>
class task;

namespace detail {

template <class T>
struct callback_for {
  using type = callback<T>;
};
template <>
struct callback_for<void> {
  using type = callback<>;
};

class task_promise_base {
public:
  static void* operator new(std::size_t n) { return pool_allocate(n); }
  static void operator delete(void* p, std::size_t n) noexcept { pool_deallocate(p, n); }

  std::suspend_always initial_suspend() noexcept { return {}; }

  void unhandled_exception() noexcept { exception_ = std::current_exception(); }

  void set_continuation(std::coroutine_handle<> c) noexcept {
    link_ = reinterpret_cast<std::uintptr_t>(c.address());
    mode_ = mode::awaited;
  }

protected:
  enum class mode : std::uint8_t { none, awaited, detached };

  template <class Promise>
  static std::coroutine_handle<> on_final(std::coroutine_handle<Promise> h) noexcept {
    Promise& p = h.promise();
    switch (p.mode_) {
    case mode::awaited:
      return std::coroutine_handle<>::from_address(reinterpret_cast<void*>(p.link_));
    case mode::detached:
      p.finish_detached(h);
      return std::noop_coroutine();
    case mode::none:
      break;
    }
    return std::noop_coroutine();
  }

  /// Awaiting coroutine (mode awaited) or a released callback (mode detached).
  std::uintptr_t link_ = 0;
  mode mode_ = mode::none;
  std::exception_ptr exception_;

  template <class>
  friend class task_promise;
};

template <class T>
class task_promise : public task_promise_base {
public:
  struct final_awaiter {
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<task_promise> h) noexcept { return on_final(h); }
    void await_resume() const noexcept {}
  };

  task<T> get_return_object() noexcept;
  final_awaiter final_suspend() noexcept { return {}; }

  void return_value(T value) noexcept(std::is_nothrow_move_constructible_v<T>) { value_.emplace(std::move(value)); }

  /// The result, or the exception rethrown.
  T take() {
    if (exception_) std::rethrow_exception(exception_);
    return std::move(*value_);
  }
  /// The result with any failure as a value.
  settled_t<T> take_settled() {
    if constexpr (std::is_same_v<T, error>) {
      if (exception_) return error_from(exception_);
      return std::move(*value_);
    } else {
      if (exception_) return error_from(exception_);
      return {error{}, std::move(*value_)};
    }
  }

  template <class Callback>
  void detach(Callback cb) noexcept {
    link_ = cb.release_raw();
    mode_ = mode::detached;
  }

  void finish_detached(std::coroutine_handle<task_promise> h) noexcept;

private:
  std::optional<T> value_;
};

template <>
class task_promise<void> : public task_promise_base {
public:
  struct final_awaiter {
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<task_promise> h) noexcept { return on_final(h); }
    void await_resume() const noexcept {}
  };

  task<void> get_return_object() noexcept;
  final_awaiter final_suspend() noexcept { return {}; }
  void return_void() noexcept {}

  void take() {
    if (exception_) std::rethrow_exception(exception_);
  }
  error take_settled() { return exception_ ? error_from(exception_) : error{}; }

  template <class Callback>
  void detach(Callback cb) noexcept {
    link_ = cb.release_raw();
    mode_ = mode::detached;
  }

  void finish_detached(std::coroutine_handle<task_promise> h) noexcept {
    callback<> cb = callback<>::adopt_raw(link_);
    error e = take_settled();
    h.destroy();
    cb(std::move(e));
  }
};

template <class T>
struct is_result : std::false_type {};
template <class U>
struct is_result<result<U>> : std::true_type {
  using value_type = U;
};

/// How a task's outcome is delivered to a callback when it is started
/// detached: task<T> → callback<T>; in the errors-as-values style,
/// task<error> → callback<> and task<result<U>> → callback<U>.
template <class T>
struct detached_callback {
  using type = typename callback_for<T>::type;
};
template <>
struct detached_callback<error> {
  using type = callback<>;
};
template <class U>
struct detached_callback<result<U>> {
  using type = callback<U>;
};

template <class T>
void task_promise<T>::finish_detached(std::coroutine_handle<task_promise> h) noexcept {
  auto cb = detached_callback<T>::type::adopt_raw(link_);
  std::exception_ptr ex = std::move(exception_);
  std::optional<T> value = std::move(value_);
  h.destroy();
  if (ex) {
    cb(error_from(ex));
  } else if constexpr (std::is_same_v<T, error>) {
    cb(std::move(*value));
  } else if constexpr (is_result<T>::value) {
    if (value->err)
      cb(std::move(value->err));
    else
      cb({}, std::move(value->value));
  } else {
    cb({}, std::move(*value));
  }
}

} // namespace detail

template <class T>
class [[nodiscard]] task {
public:
  using promise_type = detail::task_promise<T>;
  using value_type = T;
  using handle_type = std::coroutine_handle<promise_type>;

  task() noexcept = default;
  explicit task(handle_type h) noexcept : h_(h) {}
  task(task&& other) noexcept : h_(std::exchange(other.h_, {})) {}
  task& operator=(task other) noexcept {
    std::swap(h_, other.h_);
    return *this;
  }
  ~task() {
    if (h_) h_.destroy();
  }

  bool valid() const noexcept { return static_cast<bool>(h_); }

  struct awaiter {
    handle_type h;
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
      h.promise().set_continuation(awaiting);
      return h;
    }
    T await_resume() { return h.promise().take(); }
  };
  struct settled_awaiter {
    handle_type h;
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
      h.promise().set_continuation(awaiting);
      return h;
    }
    settled_t<T> await_resume() { return h.promise().take_settled(); }
  };

  awaiter operator co_await() && noexcept { return awaiter{h_}; }
  awaiter operator co_await() & noexcept { return awaiter{h_}; }
  settled_awaiter settled() noexcept { return settled_awaiter{h_}; }

  /// Gives up ownership of the frame.
  handle_type release() noexcept { return std::exchange(h_, {}); }

private:
  handle_type h_;
};

template <class T>
task<T> detail::task_promise<T>::get_return_object() noexcept {
  return task<T>(std::coroutine_handle<task_promise<T>>::from_promise(*this));
}
inline task<void> detail::task_promise<void>::get_return_object() noexcept {
  return task<void>(std::coroutine_handle<task_promise<void>>::from_promise(*this));
}

/// Awaits \p t and yields its outcome as a value (error or result<T>) instead
/// of throwing.
template <class T>
auto settle(task<T>&& t) {
  struct settled_task {
    task<T> t;
    typename task<T>::settled_awaiter a;
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept { return a.await_suspend(awaiting); }
    settled_t<T> await_resume() { return a.await_resume(); }
  };
  auto a = t.settled();
  return settled_task{std::move(t), a};
}

namespace detail {
template <class A>
decltype(auto) get_awaiter(A&& a) {
  if constexpr (requires { static_cast<A&&>(a).operator co_await(); })
    return static_cast<A&&>(a).operator co_await();
  else
    return static_cast<A&&>(a);
}
template <class A>
using await_result_t = decltype(get_awaiter(std::declval<A>()).await_resume());
} // namespace detail

/// Awaits \p a; if it fails with an asyncshift error, runs \p cleanup before
/// the error propagates. (What `if (err) { cleanup; return done(err); }`
/// becomes when a try block cannot hold the await.)
template <class Awaitable, class F>
task<detail::await_result_t<Awaitable>> on_error(Awaitable a, F cleanup) {
  try {
    co_return co_await std::move(a);
  } catch (const error_exception&) {
    cleanup();
    throw;
  }
}

/// Starts \p t now (it runs until its first suspension) and delivers its
/// outcome to \p cb. The frame is freed when the task ends.
template <class T>
void start(task<T> t, typename detail::detached_callback<T>::type cb) {
  auto h = t.release();
  h.promise().detach(std::move(cb));
  h.resume();
}

/// Starts \p t and ignores its outcome (fire-and-forget).
template <class T>
void spawn(task<T> t) {
  start(std::move(t), {});
}

} // namespace asyncshift
