// asyncshift::callback<T...> — the error-first completion handler.
//
// A callback is one pointer. It either owns a reference-counted block holding
// a user continuation (copying the callback shares the block, so continuations
// can capture it with [=] as JavaScript closures capture `done`), or borrows a
// sink that lives somewhere else (an awaiter in a coroutine frame, a promise
// state) and is never reference-counted: the pointer's low bit says which
// (set when it owns: copying or destroying a borrowing or empty callback, as
// the [=] captures of callback-style code do at every step, is then one test
// of that bit).
// Borrowing is what lets a coroutine or a promise wait on a callback-style
// operation without allocating.
#pragma once

#include "asyncshift/detail/pool.hpp"
#include "asyncshift/error.hpp"

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>

// The few members every continuation goes through: inlined always (g++ gives
// up on them inside the large lambdas of generated code).
#if defined(__GNUC__)
#define ASYNCSHIFT_INLINE [[gnu::always_inline]] inline
#else
#define ASYNCSHIFT_INLINE inline
#endif
// A call that clang inlines always (its statement attribute; g++ has none,
// and inlines these calls by itself): an op's success handed to a plain
// continuation lambda (succeed). clang otherwise calls each continuation of
// callback-style code out of line from the op's completion, and a call that
// passes an `error` by value has to make one in memory and check it for a
// destructor afterwards: doxbee's callback baseline took 34 Ir more.
#if defined(__clang__) && __clang_major__ >= 16
#define ASYNCSHIFT_INLINE_CALL [[clang::always_inline]]
#else
#define ASYNCSHIFT_INLINE_CALL
#endif

namespace asyncshift {

template <class... T>
class callback;

namespace detail {

template <class... T>
struct handler;

template <class... T>
struct handler_ops {
  /// Delivers the outcome. Called at most once per handler.
  void (*invoke)(handler<T...>* self, error&& e, T&&... values);
  /// Destroys an owned handler when its last callback goes away.
  void (*destroy)(handler<T...>* self) noexcept;
};

/// The common header of every handler, owned or borrowed.
template <class... T>
struct handler {
  /// A handler that callbacks only ever borrow (callback::borrow, a
  /// borrowed_sink): its count is never read, so it is not set either (an
  /// awaiter in a coroutine frame makes one per co_await).
  struct borrowed_only {};

  constexpr handler(const handler_ops<T...>* o) noexcept : ops(o) { // NOLINT: implicit, as the aggregate it was
    if (std::is_constant_evaluated()) {
      refs = 1;
      called = false;
    } else {
      // refs = 1 and called = false as one 8-byte store over them and the
      // padding after them (no derived member lives there yet): compilers
      // write the two fields separately, a store more for every handler
      // made (each step of a promise or future chain is one).
      static_assert(std::endian::native == std::endian::little && offsetof(handler, called) == offsetof(handler, refs) + 4 &&
                    sizeof(handler) == offsetof(handler, refs) + 8);
      const std::uint64_t one = 1;
      std::memcpy(reinterpret_cast<unsigned char*>(this) + offsetof(handler, refs), &one, sizeof one);
    }
  }
  /// A borrowed_only handler: its owner sets `ops` before any callback can
  /// reach it (an awaited operation, when it is awaited).
  explicit handler(borrowed_only) noexcept {
#ifndef NDEBUG
    called = false;
#endif
  }

  const handler_ops<T...>* ops;
  /// The callbacks that own a reference to it (unset when borrowed_only).
  std::uint32_t refs;
  /// Set on delivery in debug builds. Always present so that translation
  /// units built with and without NDEBUG agree on the layout (one program may
  /// mix a Release runtime user with Debug code).
  bool called;
};

template <class F, class... T>
concept continuation_for =
    std::invocable<F&, error&&, T&&...> || (sizeof...(T) > 0 && std::invocable<F&, error&&>);

template <class F, class... T>
struct owned_handler final : handler<T...> {
  F fn;

  template <class G>
  explicit owned_handler(G&& g) : handler<T...>{&ops_}, fn(static_cast<G&&>(g)) {}

  static void invoke(handler<T...>* self, error&& e, T&&... values) {
    auto* me = static_cast<owned_handler*>(self);
    if constexpr (std::invocable<F&, error&&, T&&...>)
      me->fn(std::move(e), std::move(values)...);
    else
      me->fn(std::move(e));
  }
  static void destroy(handler<T...>* self) noexcept { pool_delete(static_cast<owned_handler*>(self)); }

  static constexpr handler_ops<T...> ops_{&invoke, &destroy};
};

} // namespace detail

/// The completion handler `cb(error, T...)`. Call it exactly once, either as
/// `cb(err, values...)` or, to fail, as `cb(err)` (the values are then
/// default-constructed). A default-constructed callback ignores its call.
template <class... T>
class callback {
  static_assert(sizeof...(T) <= 1, "a callback carries at most one value");

public:
  using handler_type = detail::handler<T...>;

  callback() noexcept = default;
  callback(std::nullptr_t) noexcept {}

  /// Wraps a continuation `(error, T...)` (or `(error)`, ignoring the value).
  template <class F>
    requires(!std::derived_from<std::remove_cvref_t<F>, callback> &&
             !requires { typename std::remove_cvref_t<F>::borrows_its_sink; } && // it converts itself
             detail::continuation_for<std::decay_t<F>, T...>)
  callback(F&& f) // NOLINT: implicit, as a lambda converts to std::function
      : bits_(reinterpret_cast<std::uintptr_t>(
                  static_cast<handler_type*>(detail::pool_new<detail::owned_handler<std::decay_t<F>, T...>>(static_cast<F&&>(f)))) |
              owned_bit) {}

  /// A callback that delivers to \p sink without owning it. The sink must
  /// outlive the call; copies of a borrowing callback never touch it.
  static callback borrow(handler_type* sink) noexcept {
    callback c;
    c.bits_ = reinterpret_cast<std::uintptr_t>(sink);
    return c;
  }

  ASYNCSHIFT_INLINE callback(const callback& other) noexcept : bits_(other.bits_) {
    if (owned()) ++owned_get()->refs;
  }
  ASYNCSHIFT_INLINE callback(callback&& other) noexcept : bits_(std::exchange(other.bits_, 0)) {}
  ASYNCSHIFT_INLINE callback& operator=(const callback& other) noexcept {
    callback(other).swap(*this);
    return *this;
  }
  ASYNCSHIFT_INLINE callback& operator=(callback&& other) noexcept {
    std::swap(bits_, other.bits_); // our old handler leaves with other
    return *this;
  }
  ASYNCSHIFT_INLINE ~callback() {
    if (owned() && --owned_get()->refs == 0) owned_get()->ops->destroy(owned_get());
  }
  void swap(callback& other) noexcept { std::swap(bits_, other.bits_); }

  explicit operator bool() const noexcept { return bits_ != 0; }

  /// Low-level: gives up the callback as an opaque word, to be stored where a
  /// callback object does not fit (a union in a coroutine promise), and takes
  /// it back. Each released word must be adopted exactly once.
  std::uintptr_t release_raw() noexcept { return std::exchange(bits_, 0); }
  static callback adopt_raw(std::uintptr_t bits) noexcept {
    callback c;
    c.bits_ = bits;
    return c;
  }
  /// A callback owning one reference to \p h, which the caller has taken
  /// (a state that delivers to itself: add_ref, then adopt_owning(this)).
  static callback adopt_owning(handler_type* h) noexcept {
    return adopt_raw(reinterpret_cast<std::uintptr_t>(h) | owned_bit);
  }

  /// Delivers the outcome.
  ASYNCSHIFT_INLINE void operator()(error e, T... values) const {
    if (!bits_) return;
    handler_type* h = get();
#ifndef NDEBUG
    assert(!h->called && "asyncshift::callback called twice");
    h->called = true;
#endif
    h->ops->invoke(h, std::move(e), std::move(values)...);
  }

  /// Fails (or, with a success value, completes with default values).
  void operator()(error e) const
    requires(sizeof...(T) > 0)
  {
    (*this)(std::move(e), T{}...);
  }

protected:
  /// The handler this callback delivers to (null when empty).
  handler_type* target() const noexcept { return get(); }
  /// Whether it holds a reference to its handler.
  bool owned() const noexcept { return (bits_ & owned_bit) != 0; }

private:
  static constexpr std::uintptr_t owned_bit = 1;
  handler_type* get() const noexcept { return reinterpret_cast<handler_type*>(bits_ & ~owned_bit); }
  handler_type* owned_get() const noexcept { return reinterpret_cast<handler_type*>(bits_ - owned_bit); }

  std::uintptr_t bits_ = 0;
};

namespace detail {

/// A callback<T...> that also knows the type of the handler it delivers to:
/// `Sink::on_callback(handler<T...>*, error&&, T&&...)`, a static member. An op
/// that takes its handler as a template parameter (doxbee.hpp, fake.hpp, the
/// worker pool) then completes the sink with a direct call that the compiler
/// can inline into the op's completion, where a plain callback goes through
/// the handler's function pointer. Anything that takes a callback<T...> gets
/// the callback it is (a base, so deduction of callback<T...> works too).
/// A Sink may also have `Sink::on_value(handler<T...>*, T&&...)`: succeed()
/// then delivers a success there, and no error object is made, passed and
/// destroyed per completion (4 instructions a completion with clang). A Sink
/// that defines its own on_callback over a base that has on_value must define
/// on_value too (the cleanup states do), or successes would skip its own.
/// Sink must befriend sink_callback if its on_callback is private.
template <class Sink, class... T>
class sink_callback : public callback<T...> {
  using base = callback<T...>;

public:
  ASYNCSHIFT_INLINE sink_callback(sink_callback&&) noexcept = default;
  ASYNCSHIFT_INLINE sink_callback(const sink_callback&) noexcept = default;
  sink_callback& operator=(sink_callback&&) noexcept = default;
  sink_callback& operator=(const sink_callback&) noexcept = default;
  /// Inlined always, as callback's: g++ otherwise calls it out of line from
  /// some ops' completions (12 Ir per doxbee execution for each of three
  /// promise states).
  ASYNCSHIFT_INLINE ~sink_callback() = default;

  /// Borrows \p sink (a Sink), as callback::borrow.
  static sink_callback borrow(handler<T...>* sink) noexcept { return sink_callback(base::borrow(sink)); }
  /// Adopts a word from callback::release_raw (or made the same way).
  static sink_callback adopt_raw(std::uintptr_t bits) noexcept { return sink_callback(base::adopt_raw(bits)); }
  /// Owns one reference to \p sink, which the caller has taken, as callback::adopt_owning.
  static sink_callback adopt_owning(handler<T...>* sink) noexcept { return sink_callback(base::adopt_owning(sink)); }

  ASYNCSHIFT_INLINE void operator()(error e, T... values) const {
    if (handler<T...>* h = target_for_call())
      Sink::on_callback(h, std::move(e), std::move(values)...);
  }
  void operator()(error e) const
    requires(sizeof...(T) > 0)
  {
    (*this)(std::move(e), T{}...);
  }
  /// Delivers a success (succeed() uses it): through Sink::on_value when the
  /// sink has one, with no error object made, passed and destroyed.
  ASYNCSHIFT_INLINE void deliver_value(T... values) const {
    if (handler<T...>* h = target_for_call()) succeed_sink(h, std::move(values)...);
  }

  /// deliver_value, as the last use of this callback before its destructor.
  /// When it borrows its sink (an awaiter, a join's slot) it is emptied
  /// before the call, so the call is the caller's last act (a tail call, with
  /// no registers saved to destroy the callback after it); one that owns a
  /// reference keeps it through the call, for its destructor to drop. A Sink
  /// with `on_value_handed(h, owned, values...)` (a promise chain's step)
  /// takes the reference with the call instead: the callback is always
  /// emptied first.
  ASYNCSHIFT_INLINE void deliver_value_last(T... values) {
    if constexpr (requires(handler<T...>* h) { Sink::on_value_handed(h, true, std::move(values)...); }) {
      handler<T...>* h = target_for_call();
      if (!h) return;
      return Sink::on_value_handed(h, hand_over(), std::move(values)...);
    }
    if (this->owned()) return deliver_value(std::move(values)...);
    handler<T...>* h = target_for_call();
    if (!h) return;
    this->release_raw();
    succeed_sink(h, std::move(values)...);
  }

  /// deliver_value_last, called by a runnable that the loop dispatched (an
  /// op's completion in its timer node) as its last act: the stack below
  /// holds only the loop's code, and the loop drains its microtask queue as
  /// soon as the runnable returns. A sink with `on_value_from_loop` may then
  /// do at once what it would queue as a microtask when the queue is empty
  /// (a promise chain runs its next handler: Promises/A+ 2.2.4 asks only that
  /// the stack hold nothing but platform code, and no other microtask could
  /// run first). `on_value_handed_from_loop` takes the reference with the
  /// call, as on_value_handed does.
  ASYNCSHIFT_INLINE void deliver_value_from_loop(T... values) {
    if constexpr (requires(handler<T...>* h) { Sink::on_value_from_loop(h, std::move(values)...); }) {
      handler<T...>* h = target_for_call();
      if (!h) return;
      if constexpr (requires { Sink::on_value_handed_from_loop(h, true, std::move(values)...); })
        return Sink::on_value_handed_from_loop(h, hand_over(), std::move(values)...);
      if (!this->owned()) this->release_raw(); // borrowed: a tail call; owned: the reference lives through the call
      Sink::on_value_from_loop(h, std::move(values)...);
    } else {
      deliver_value_last(std::move(values)...);
    }
  }

private:
  /// Empties this callback for a sink that takes its reference with the
  /// call (on_value_handed[_from_loop]): true if there was one to take.
  ASYNCSHIFT_INLINE bool hand_over() noexcept {
    const bool owned = this->owned();
    this->release_raw();
    return owned;
  }

  template <class, class...>
  friend class borrowed_sink;

  explicit sink_callback(base&& b) noexcept : base(std::move(b)) {}

  /// Hands a success to the sink \p h: its on_value when it has one.
  ASYNCSHIFT_INLINE static void succeed_sink(handler<T...>* h, T... values) {
    if constexpr (requires { Sink::on_value(h, std::move(values)...); })
      Sink::on_value(h, std::move(values)...);
    else
      Sink::on_callback(h, error{}, std::move(values)...);
  }
  /// Hands an outcome to the sink \p h.
  ASYNCSHIFT_INLINE static void call_sink(handler<T...>* h, error&& e, T... values) {
    Sink::on_callback(h, std::move(e), std::move(values)...);
  }

  /// The sink a call delivers to (null when empty), marked called in debug builds.
  ASYNCSHIFT_INLINE handler<T...>* target_for_call() const {
    handler<T...>* h = this->target();
#ifndef NDEBUG
    if (h) {
      assert(!h->called && "asyncshift::callback called twice");
      h->called = true;
    }
#endif
    return h;
  }
};

/// A callback that always borrows its sink: the sink's address and nothing
/// else, copied and destroyed trivially. What parallel() hands each branch
/// and an awaited operation its start function, where the sink outlives
/// every use. An op that takes its handler as a template parameter gets it
/// in a register and completes the sink with a direct call, as a
/// sink_callback's; but a sink_callback may own its sink, so every hop that
/// passes one on by value moves it and destroys the empty one left behind
/// (about 8 instructions per madeup_parallel branch with clang). Anything
/// that takes a callback<T...> gets a borrowing one (a conversion).
template <class Sink, class... T>
class borrowed_sink {
  using direct = sink_callback<Sink, T...>;

public:
  /// Tells callback's constructor from continuations to leave it to the conversion below.
  using borrows_its_sink = void;

  static borrowed_sink borrow(handler<T...>* sink) noexcept { return borrowed_sink(sink); }

  /// The same borrowing, as a callback<T...>.
  operator callback<T...>() const noexcept { return callback<T...>::borrow(sink_); }

  ASYNCSHIFT_INLINE void operator()(error e, T... values) const {
    direct::call_sink(target_for_call(), std::move(e), std::move(values)...);
  }
  void operator()(error e) const
    requires(sizeof...(T) > 0)
  {
    (*this)(std::move(e), T{}...);
  }
  /// Delivers a success (succeed() uses it), through Sink::on_value when the
  /// sink has one. There is nothing to destroy afterwards: the call is the
  /// caller's last act when it is its last statement.
  ASYNCSHIFT_INLINE void deliver_value(T... values) const {
    direct::succeed_sink(target_for_call(), std::move(values)...);
  }

private:
  explicit borrowed_sink(handler<T...>* sink) noexcept : sink_(sink) {}

  /// The sink, marked called in debug builds (as a sink_callback's).
  ASYNCSHIFT_INLINE handler<T...>* target_for_call() const {
#ifndef NDEBUG
    assert(!sink_->called && "asyncshift::callback called twice");
    sink_->called = true;
#endif
    return sink_;
  }

  handler<T...>* sink_;
};

/// sink_callback<Sink, T...> for a callback<T...>.
template <class Sink, class Cb>
struct rebind_sink;
template <class Sink, class... T>
struct rebind_sink<Sink, callback<T...>> {
  using type = sink_callback<Sink, T...>;
  using borrowed = borrowed_sink<Sink, T...>;
};
template <class Sink, class Cb>
using rebind_sink_t = typename rebind_sink<Sink, Cb>::type;
/// borrowed_sink<Sink, T...> for a callback<T...>.
template <class Sink, class Cb>
using rebind_borrowed_t = typename rebind_sink<Sink, Cb>::borrowed;

template <class Cb>
struct is_callback : std::false_type {};
template <class... T>
struct is_callback<callback<T...>> : std::true_type {};

/// Whether \p H is one of the runtime's own handler types (a callback<T...>,
/// a sink_callback or borrowed_sink, an operation's mapping handler), rather
/// than a continuation the caller wrote (the callback style's lambdas).
template <class H>
struct is_runtime_handler : is_callback<H> {};
template <class Sink, class... T>
struct is_runtime_handler<sink_callback<Sink, T...>> : std::true_type {};
template <class Sink, class... T>
struct is_runtime_handler<borrowed_sink<Sink, T...>> : std::true_type {};

/// Whether \p H (a callback<T...>, or a continuation taking (error, T...) or
/// (error)) can complete an operation whose value is T... (none for void).
/// Runtime ops take any such handler, as Asio's initiating functions take a
/// completion token, and keep it where they keep their state.
template <class H, class... T>
concept handler_of = continuation_for<std::remove_cvref_t<H>, T...>;

/// Completes the handler \p h of an operation whose value is T...: with
/// \p values, or (fail) with \p e and the value types' defaults, as
/// `callback<T>(err)` does.
template <class... T, class H>
ASYNCSHIFT_INLINE void succeed(H& h, T&&... values) {
  if constexpr (requires { h.deliver_value(static_cast<T&&>(values)...); })
    h.deliver_value(static_cast<T&&>(values)...);
  else if constexpr (std::is_invocable_v<H&, error&&, T&&...>)
    ASYNCSHIFT_INLINE_CALL h(error{}, static_cast<T&&>(values)...);
  else
    ASYNCSHIFT_INLINE_CALL h(error{});
}
/// succeed(), where nothing uses \p h afterwards but its destructor (an op's
/// completion): a borrowed sink's call can then be a tail call.
template <class... T, class H>
ASYNCSHIFT_INLINE void succeed_last(H& h, T&&... values) {
  if constexpr (requires { h.deliver_value_last(static_cast<T&&>(values)...); })
    h.deliver_value_last(static_cast<T&&>(values)...);
  else
    succeed<T...>(h, static_cast<T&&>(values)...);
}
/// succeed_last(), from a runnable the loop dispatched, as its last act
/// (sink_callback::deliver_value_from_loop): only an op's completion in its
/// timer node calls it.
template <class... T, class H>
ASYNCSHIFT_INLINE void succeed_from_loop(H& h, T&&... values) {
  if constexpr (requires { h.deliver_value_from_loop(static_cast<T&&>(values)...); })
    h.deliver_value_from_loop(static_cast<T&&>(values)...);
  else
    succeed_last<T...>(h, static_cast<T&&>(values)...);
}
template <class... T, class H>
void fail(H& h, error&& e) {
  if constexpr (std::is_invocable_v<H&, error&&, T&&...>)
    h(std::move(e), T{}...);
  else
    h(std::move(e));
}

/// The callback an operation of value type T completes: callback<T>, or
/// callback<> when T is void.
template <class T>
struct callback_for {
  using type = callback<T>;
};
template <>
struct callback_for<void> {
  using type = callback<>;
};
template <class T>
using callback_t = typename callback_for<T>::type;
template <class T>
using handler_for = typename callback_t<T>::handler_type;
template <class T>
using handler_ops_for = std::conditional_t<std::is_void_v<T>, handler_ops<>, handler_ops<T>>;
/// handler_of for an operation whose value type is T (void: none).
template <class H, class T>
concept handler_of_result = (std::is_void_v<T> && handler_of<H>) || (!std::is_void_v<T> && handler_of<H, T>);

/// Starts an operation that delivers into the state \p s (a handler that
/// counts its references): \p start gets a callback owning one new reference
/// to \p s. If \p start throws, \p fail(error) is called (after the callback
/// may have delivered already: \p fail must then do nothing).
template <class T, class State, class F, class Fail>
void start_operation(State* s, F& start, Fail&& fail) {
  using callback_type = rebind_sink_t<State, callback_t<T>>;
  s->add_ref(); // the callback's reference
  callback_type cb = callback_type::adopt_owning(static_cast<handler_for<T>*>(s));
  auto go = [&] {
    if constexpr (std::is_invocable_v<F&, callback_type&&>)
      start(std::move(cb));
    else
      start(cb);
  };
  if constexpr (std::is_nothrow_invocable_v<F&, callback_type&&>) {
    go();
  } else {
    try {
      go();
    } catch (...) {
      fail(error_from_current_exception());
    }
  }
}

} // namespace detail

} // namespace asyncshift
