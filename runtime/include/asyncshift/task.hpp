// asyncshift::task<T> — a lazy C++20 coroutine.
//
// A task does nothing until it is awaited (or started with start()); awaiting
// it transfers control symmetrically into it, and its end transfers back to
// the awaiting coroutine, so a chain of a million synchronous completions uses
// constant stack. Frames come from the runtime's recycling pool. Errors travel
// as exceptions (error_exception for asyncshift errors); settle() turns them
// back into values.
//
// when_all (at the end) starts tasks side by side and waits for all of them,
// or for the first error; nothing is cancelled, so branches that are still
// running when it completes keep going, detached, and free their own frames.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/detail/join_values.hpp"
#include "asyncshift/detail/outcome.hpp"
#include "asyncshift/detail/pool.hpp"
#include "asyncshift/error.hpp"
#include "asyncshift/loop.hpp"
#include "asyncshift/result.hpp"

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace asyncshift {

template <class T = void>
class task;

namespace detail {

class task_promise_base {
public:
  static void* operator new(std::size_t n) { return pool_allocate(n); }
  static void operator delete(void* p, std::size_t n) noexcept { pool_deallocate(p, n); }

  std::suspend_always initial_suspend() noexcept { return {}; }

  void set_continuation(std::coroutine_handle<> c) noexcept {
    link_ = reinterpret_cast<std::uintptr_t>(c.address());
    mode_ = mode::awaited;
  }

protected:
  enum class mode : std::uint8_t { none, awaited, detached };

  /// In deliver_detached, for a task that ends with \p thrown: true when
  /// start() takes it, because the task is still in the run start() began
  /// (it never suspended) and it is not an asyncshift error. It then leaves
  /// start(), as it would have left the callback-style function; an
  /// error_exception stands for `done(err)`, and goes to the callback.
  static bool taken_by_start(void* frame, const std::exception_ptr& thrown) noexcept;

  // Inlined always: g++ otherwise calls it out of line from a large
  // coroutine once its failure path grows (a call per finished task).
  template <class Promise>
  ASYNCSHIFT_INLINE static std::coroutine_handle<> on_final(std::coroutine_handle<Promise> h) noexcept {
    Promise& p = h.promise();
    // Detached tasks never get here: their final awaiter is ready.
    if (p.mode_ == mode::awaited) return std::coroutine_handle<>::from_address(reinterpret_cast<void*>(p.link_));
    return std::noop_coroutine();
  }

  /// What a task<T>'s promise holds (task_promise<T>: one slot for the value
  /// or the exception; it sits in the padding after mode_).
  enum class held : std::uint8_t { nothing, value, exception };

  /// Awaiting coroutine (mode awaited) or a released callback (mode detached).
  std::uintptr_t link_ = 0;
  mode mode_ = mode::none;
  held held_ = held::nothing;

  template <class>
  friend class task_promise;
};

template <class T>
class task_promise : public task_promise_base {
public:
  struct final_awaiter {
    task_promise* p;
    bool await_ready() const noexcept { return p->mode_ == mode::detached; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<task_promise> h) noexcept { return on_final(h); }
    void await_resume() const noexcept { p->deliver_detached(); }
  };

  task_promise() noexcept {}
  task_promise(const task_promise&) = delete;
  task_promise& operator=(const task_promise&) = delete;
  ~task_promise() { clear(); }

  task<T> get_return_object() noexcept;
  final_awaiter final_suspend() noexcept { return {this}; }

  void return_value(T value) noexcept(std::is_nothrow_move_constructible_v<T>) {
    ::new (static_cast<void*>(std::addressof(value_))) T(std::move(value));
    held_ = held::value;
  }
  /// Also after return_value, if destroying a local threw: the exception wins.
  void unhandled_exception() noexcept {
    clear();
    ::new (static_cast<void*>(std::addressof(exception_))) std::exception_ptr(std::current_exception());
    held_ = held::exception;
  }

  /// The result, or the exception rethrown.
  T take() {
    if (held_ == held::exception) std::rethrow_exception(exception_);
    return std::move(value_);
  }
  /// The result with any failure as a value.
  settled_t<T> take_settled() {
    if constexpr (std::is_same_v<T, error>) {
      if (held_ == held::exception) return error_from(exception_);
      return std::move(value_);
    } else {
      if (held_ == held::exception) return error_from(exception_);
      return {error{}, std::move(value_)};
    }
  }

  template <class Callback>
  void detach(Callback cb) noexcept {
    link_ = cb.release_raw();
    mode_ = mode::detached;
  }

  void deliver_detached() noexcept;
  /// deliver_detached's failure, out of line (as task_promise<void>'s).
  template <class Callback>
  [[gnu::noinline, gnu::cold]] void deliver_exception(Callback cb) noexcept {
    if (taken_by_start(std::coroutine_handle<task_promise>::from_promise(*this).address(), exception_))
      return; // cb goes uncalled
    cb(error_from(exception_));
  }

private:
  void clear() noexcept {
    if (held_ == held::value)
      value_.~T();
    else if (held_ == held::exception)
      exception_.~exception_ptr();
    held_ = held::nothing;
  }

  // One slot: a task ends with a value or an exception, never both (16
  // bytes less per frame than an optional beside an exception_ptr).
  union {
    T value_;
    std::exception_ptr exception_;
  };
};

template <>
class task_promise<void> : public task_promise_base {
public:
  struct final_awaiter {
    task_promise* p;
    bool await_ready() const noexcept { return p->mode_ == mode::detached; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<task_promise> h) noexcept { return on_final(h); }
    void await_resume() const noexcept { p->deliver_detached(); }
  };

  task<void> get_return_object() noexcept;
  final_awaiter final_suspend() noexcept { return {this}; }
  void return_void() noexcept {}
  void unhandled_exception() noexcept { exception_ = std::current_exception(); }

  void take() {
    if (exception_) std::rethrow_exception(exception_);
  }
  error take_settled() { return exception_ ? error_from(exception_) : error{}; }

  template <class Callback>
  void detach(Callback cb) noexcept {
    link_ = cb.release_raw();
    mode_ = mode::detached;
  }

  void deliver_detached() noexcept {
    callback<> cb = callback<>::adopt_raw(link_);
    if (exception_) [[unlikely]]
      return deliver_exception(std::move(cb));
    cb(error{});
  }
  /// deliver_detached's failure, out of line (the check for start() beside
  /// it, inlined at every task's end, cost doxbee's coroutine ~16
  /// instructions per execution with g++).
  [[gnu::noinline, gnu::cold]] void deliver_exception(callback<> cb) noexcept {
    if (taken_by_start(std::coroutine_handle<task_promise>::from_promise(*this).address(), exception_))
      return; // cb goes uncalled
    cb(error_from(exception_));
  }

private:
  std::exception_ptr exception_;
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

/// What start() learns of a task's first run: the exception it ended with,
/// if it never suspended. Made for every start() (every execution of the
/// coroutine styles), so it costs a few stores: the exception_ptr is made
/// only when there is one (libstdc++'s destructor of one is a call into the
/// library), and no mode is set on the task and reset after.
struct start_record {
  void* frame; ///< the task start() is running
  bool threw = false;
  union {
    std::exception_ptr thrown; // when threw
  };
  explicit start_record(void* f) noexcept : frame(f) {}
  ~start_record() {} // start() destroys thrown when it rethrows it
};
/// The record of the start() running a task for the first time on this thread.
constinit inline thread_local start_record* tl_starting = nullptr;

[[gnu::noinline, gnu::cold]] inline bool task_promise_base::taken_by_start(void* frame,
                                                                           const std::exception_ptr& thrown) noexcept {
  start_record* r = tl_starting;
  if (!r || r->frame != frame || is_error_exception(thrown)) return false; // an asyncshift error is `done(err)`
  ::new (static_cast<void*>(std::addressof(r->thrown))) std::exception_ptr(thrown);
  r->threw = true;
  return true;
}

template <class T>
void task_promise<T>::deliver_detached() noexcept {
  auto cb = detached_callback<T>::type::adopt_raw(link_);
  if (held_ == held::exception) [[unlikely]]
    return deliver_exception(std::move(cb));
  T& value = value_;
  if constexpr (std::is_same_v<T, error>) {
    cb(std::move(value));
  } else if constexpr (is_result<T>::value) {
    // A value that came with an error goes with it, as `done(err, v)` gave it.
    cb(std::move(value.err), std::move(value.value));
  } else {
    cb({}, std::move(value));
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
/// outcome to \p cb. The frame is freed when the task ends. An exception
/// that ends the task before it ever suspended leaves start() instead, and
/// \p cb is not called: the callback-style function the task was converted
/// from would have thrown it to its caller (as promise and future style,
/// whose code before the first wait runs in the call, do).
template <class T>
void start(task<T> t, typename detail::detached_callback<T>::type cb) {
  auto h = t.release();
  h.promise().detach(std::move(cb));
  detail::start_record first(h.address());
  detail::start_record* outer = std::exchange(detail::tl_starting, &first);
  h.resume();
  detail::tl_starting = outer;
  if (first.threw) [[unlikely]] {
    std::exception_ptr e = std::move(first.thrown);
    first.thrown.~exception_ptr();
    std::rethrow_exception(std::move(e));
  }
}

namespace detail {
/// A spawned task's failure: nothing can handle it, so it is reported at
/// once (to stderr) and counted with the loop's unhandled rejections.
[[gnu::cold]] inline void report_spawned_failure(const error& e) {
  std::fprintf(stderr, "asyncshift: unhandled failure of a spawned task: %s\n", e.message().c_str());
  loop::current().count_unhandled();
}
} // namespace detail

/// Starts \p t and ignores its value (fire-and-forget). A failure is
/// reported as unhandled (stderr, loop::unhandled_rejections()), as a
/// rejection nobody handles is; use start(t, cb) to handle it.
template <class T>
void spawn(task<T> t) {
  start(std::move(t), [](error e, auto&&...) {
    if (e) [[unlikely]]
      detail::report_spawned_failure(e);
  });
}

// ---- when_all ---------------------------------------------------------------

namespace detail {

/// What a branch task<T> contributes to when_all: its value; nothing for
/// void; in the errors-as-values style, a task<error> contributes nothing and
/// fails with its error, and a task<result<U>> contributes a U (the same
/// mapping as start()'s callback).
template <class T>
struct branch_value {
  using type = T;
};
template <>
struct branch_value<error> {
  using type = void;
};
template <class U>
struct branch_value<result<U>> {
  using type = U;
};
template <class T>
using branch_value_t = typename branch_value<T>::type;

/// What when_all and its awaiter share: the count (n branches + 1 for the
/// setup, so that branches completing while the others are being started
/// cannot complete the join early), the first error, and the awaiting
/// coroutine. References: one per branch still running, one for the awaiter.
class task_join_base {
public:
  explicit task_join_base(std::size_t n, void (*destroy)(task_join_base*) noexcept) noexcept
      : refs_(n + 1), remaining_(n + 1), destroy_(destroy) {}
  task_join_base(const task_join_base&) = delete;
  task_join_base& operator=(const task_join_base&) = delete;

  void release() noexcept {
    if (--refs_ == 0) destroy_(this);
  }

  /// A branch failed: the first failure completes the join.
  void fail(error&& e) {
    if (done_) return;
    done_ = true;
    err_ = std::move(e);
    wake();
  }
  /// A branch (or the setup) finished without error.
  void count_down() {
    if (--remaining_ == 0 && !done_) {
      done_ = true;
      wake();
    }
  }

  /// After every branch was started: whether the awaiter must suspend.
  bool suspend(std::coroutine_handle<> waiter) {
    count_down();
    if (done_) return false;
    waiter_ = waiter;
    suspended_ = true;
    return true;
  }

  bool failed() const noexcept { return static_cast<bool>(err_); }
  error& failure() noexcept { return err_; }

private:
  void wake() {
    if (suspended_) {
      suspended_ = false;
      waiter_.resume();
    }
  }

  std::size_t refs_;
  std::size_t remaining_;
  void (*destroy_)(task_join_base*) noexcept;
  std::coroutine_handle<> waiter_;
  error err_;
  bool done_ = false;
  bool suspended_ = false;
};

/// The sink a branch's (borrowed) callback delivers to: it reports to the
/// join and drops the branch's reference on it. The join knows which branch
/// a sink is from its address.
template <class Join, class V>
struct task_join_sink : handler_for<V> {
  Join* join = nullptr;

  task_join_sink() noexcept : handler_for<V>{ops()} {}
  explicit task_join_sink(Join* j) noexcept : handler_for<V>{ops()}, join(j) {}

  template <class... A>
  static void deliver(handler_for<V>* h, error&& e, A&&... a) {
    auto* me = static_cast<task_join_sink*>(h);
    Join* j = me->join;
    if (e)
      j->fail(std::move(e));
    else
      j->store(j->index_of(me), static_cast<A&&>(a)...);
    j->release();
  }
  static void no_destroy(handler_for<V>*) noexcept {}
  static const handler_ops_for<V>* ops() noexcept {
    if constexpr (std::is_void_v<V>) {
      static constexpr handler_ops<> table{&deliver<>, &no_destroy};
      return &table;
    } else {
      static constexpr handler_ops<V> table{&deliver<V>, &no_destroy};
      return &table;
    }
  }
};

/// The join of when_all over a vector of tasks whose branch value is V.
template <class V>
class vector_join final : public task_join_base {
public:
  using sink = task_join_sink<vector_join, V>;

  explicit vector_join(std::size_t n) : task_join_base(n, &destroy), sinks_(n, this) {
    if constexpr (!std::is_void_v<V>) values_.expect(n);
  }

  sink* sinks() noexcept { return sinks_.get(); }
  std::size_t index_of(const sink* s) const noexcept { return sinks_.index_of(s); }

  template <class... A>
  void store(std::size_t i, A&&... a) {
    if constexpr (!std::is_void_v<V>) values_.set(i, static_cast<A&&>(a)...);
    count_down();
  }

  std::conditional_t<std::is_void_v<V>, void, std::vector<V>> take_values() {
    if constexpr (!std::is_void_v<V>) return values_.take();
  }

private:
  static void destroy(task_join_base* j) noexcept { pool_delete(static_cast<vector_join*>(j)); }

  pooled_array<sink> sinks_;
  std::conditional_t<std::is_void_v<V>, empty_value, join_values<V>> values_;
};

/// Awaiting when_all(std::vector<task<T>>): starts every task when awaited.
template <class T, bool Settled>
class [[nodiscard]] when_all_awaitable {
  using V = branch_value_t<T>;
  using join = vector_join<V>;

public:
  explicit when_all_awaitable(std::vector<task<T>>&& tasks) noexcept : tasks_(std::move(tasks)) {}
  when_all_awaitable(when_all_awaitable&& other) noexcept
      : tasks_(std::move(other.tasks_)), join_(std::exchange(other.join_, nullptr)) {}
  when_all_awaitable& operator=(when_all_awaitable&&) = delete;
  ~when_all_awaitable() {
    if (join_) join_->release();
  }

  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    const std::size_t n = tasks_.size();
    join_ = pool_new<join>(n);
    using cb_type = typename detached_callback<T>::type;
    for (std::size_t i = 0; i < n; ++i) asyncshift::start(std::move(tasks_[i]), cb_type::borrow(&join_->sinks()[i]));
    tasks_.clear();
    return join_->suspend(h);
  }
  auto await_resume() {
    if constexpr (Settled) {
      if constexpr (std::is_void_v<V>)
        return std::move(join_->failure());
      else if (join_->failed())
        return result<std::vector<V>>(std::move(join_->failure()));
      else
        return result<std::vector<V>>(error{}, join_->take_values());
    } else {
      if (join_->failed()) throw_error(std::move(join_->failure()));
      return join_->take_values();
    }
  }

  /// The same when_all, yielding its outcome as a value.
  when_all_awaitable<T, true> settled() && noexcept { return when_all_awaitable<T, true>(std::move(tasks_)); }

private:
  std::vector<task<T>> tasks_;
  join* join_ = nullptr;
};

/// The join of the variadic when_all.
template <class Indices, class... V>
class tuple_join;

template <std::size_t... I, class... V>
class tuple_join<std::index_sequence<I...>, V...> final : public task_join_base {
public:
  using values_type = std::tuple<tuple_element_for<V>...>;

  tuple_join() : task_join_base(sizeof...(V), &destroy) {
    ((std::get<I>(sinks_).join = this), ...);
  }

  template <std::size_t J>
  auto* sink() noexcept {
    return &std::get<J>(sinks_);
  }

  /// Which element \p s is (sinks of the same value type share a type).
  template <class Sink>
  std::size_t index_of(const Sink* s) const noexcept {
    std::size_t i = 0;
    ((static_cast<const void*>(&std::get<I>(sinks_)) == static_cast<const void*>(s) ? void(i = I) : void()), ...);
    return i;
  }

  template <class... A>
  void store(std::size_t i, A&&... a) {
    // One sink type per element type: the index picks the slot.
    ((i == I ? store_at<I>(static_cast<A&&>(a)...) : void()), ...);
    count_down();
  }

  values_type take_values() {
    return std::apply([](auto&... v) { return values_type(std::move(*v)...); }, values_);
  }

private:
  template <std::size_t J, class... A>
  void store_at(A&&... a) {
    using slot = std::tuple_element_t<J, values_type>;
    if constexpr (std::is_constructible_v<slot, A&&...>) std::get<J>(values_).emplace(static_cast<A&&>(a)...);
  }
  static void destroy(task_join_base* j) noexcept { pool_delete(static_cast<tuple_join*>(j)); }

  std::tuple<task_join_sink<tuple_join, V>...> sinks_;
  std::tuple<std::optional<tuple_element_for<V>>...> values_;
};

/// Awaiting the variadic when_all(task<A>, task<B>, ...).
template <bool Settled, class... T>
class [[nodiscard]] when_all_tuple_awaitable {
  using join = tuple_join<std::index_sequence_for<T...>, branch_value_t<T>...>;
  using values_type = typename join::values_type;

public:
  explicit when_all_tuple_awaitable(std::tuple<task<T>...>&& tasks) noexcept : tasks_(std::move(tasks)) {}
  when_all_tuple_awaitable(when_all_tuple_awaitable&& other) noexcept
      : tasks_(std::move(other.tasks_)), join_(std::exchange(other.join_, nullptr)) {}
  when_all_tuple_awaitable& operator=(when_all_tuple_awaitable&&) = delete;
  ~when_all_tuple_awaitable() {
    if (join_) join_->release();
  }

  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    join_ = pool_new<join>();
    [this]<std::size_t... I>(std::index_sequence<I...>) {
      (asyncshift::start(std::move(std::get<I>(tasks_)),
             detached_callback<std::tuple_element_t<I, std::tuple<T...>>>::type::borrow(join_->template sink<I>())),
       ...);
    }(std::index_sequence_for<T...>{});
    return join_->suspend(h);
  }
  auto await_resume() {
    if constexpr (Settled) {
      if (join_->failed()) return result<values_type>(std::move(join_->failure()));
      return result<values_type>(error{}, join_->take_values());
    } else {
      if (join_->failed()) throw_error(std::move(join_->failure()));
      return join_->take_values();
    }
  }

  when_all_tuple_awaitable<true, T...> settled() && noexcept { return when_all_tuple_awaitable<true, T...>(std::move(tasks_)); }

private:
  std::tuple<task<T>...> tasks_;
  join* join_ = nullptr;
};

} // namespace detail

/// Starts every task at once (when awaited) and yields their values in order
/// (nothing for task<void>); the first error completes the await (thrown as
/// error_exception). Nothing is cancelled: the other tasks run to their end,
/// detached; their frames are freed when they finish.
template <class T>
detail::when_all_awaitable<T, false> when_all(std::vector<task<T>> tasks) {
  return detail::when_all_awaitable<T, false>(std::move(tasks));
}

/// As above for tasks of different types: yields a tuple (std::monostate for
/// a void task).
template <class... T>
  requires(sizeof...(T) > 0)
detail::when_all_tuple_awaitable<false, T...> when_all(task<T>... tasks) {
  return detail::when_all_tuple_awaitable<false, T...>(std::tuple<task<T>...>(std::move(tasks)...));
}

/// Awaiting settle(when_all(...)) yields the outcome as a value: an error,
/// or result<std::vector<V>> / result<std::tuple<...>>.
template <class T>
detail::when_all_awaitable<T, true> settle(detail::when_all_awaitable<T, false>&& a) noexcept {
  return std::move(a).settled();
}
template <class... T>
detail::when_all_tuple_awaitable<true, T...> settle(detail::when_all_tuple_awaitable<false, T...>&& a) noexcept {
  return std::move(a).settled();
}

} // namespace asyncshift
