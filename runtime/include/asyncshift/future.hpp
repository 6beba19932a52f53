// asyncshift::future<T> — a move-only future with one continuation, run inline.
//
// Unlike promise<T> (JavaScript semantics: shared, any number of reactions,
// always from a microtask), a future has exactly one consumer, and its
// continuation runs in the call that delivers the value: no queue, no copy.
// This is the folly/seastar/Boost.Thread kind of future, single-threaded.
//
// Costs. `f.then(g)` on a pending future is one pooled allocation: the
// derived state embeds the continuation waiting on `f` and `g`. On a ready
// future it allocates nothing new when g returns a future (that future is the
// result) or a value of the same type (the state is re-used). A state is also
// a callback handler, so make_future hands the operation a callback pointing
// at the state. When a handler returns a pending future q and the derived
// future's own consumer is already attached (a chain built in advance), that
// consumer moves to q and the derived state goes away: q's value reaches it
// in one step. Otherwise the derived state re-uses its continuation to wait
// on q. A chain of continuations that
// complete one another runs in a loop (each continuation returns the next one
// to run), so a pre-built chain of a million `then`s completes in constant
// stack.
//
// Errors are asyncshift::error; a handler that throws fails the derived
// future (error_exception → its error, std::exception → what()).
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/detail/join_values.hpp"
#include "asyncshift/detail/outcome.hpp"
#include "asyncshift/detail/pool.hpp"
#include "asyncshift/detail/returned_op.hpp"
#include "asyncshift/error.hpp"
#include "asyncshift/on_error.hpp"
#include "asyncshift/result.hpp"

#include <cassert>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace asyncshift {

template <class T = void>
class future;
template <class T0, class Start, class G0, class... Fs>
class future_chain;

namespace detail {

/// A future, or a fused chain that becomes one where it is used
/// (future_chain.hpp): a handler may return either.
template <class T>
struct is_future : std::false_type {};
template <class T>
struct is_future<future<T>> : std::true_type {};
template <class T0, class Start, class G0, class... Fs>
struct is_future<future_chain<T0, Start, G0, Fs...>> : std::true_type {};

template <class R>
struct future_of {
  using type = future<R>;
};
template <class U>
struct future_of<future<U>> {
  using type = future<U>;
};
template <class T0, class Start, class G0, class... Fs>
struct future_of<future_chain<T0, Start, G0, Fs...>> {
  using type = future<typename future_chain<T0, Start, G0, Fs...>::value_type>;
};
template <class R>
  requires op_result<R>::value
struct future_of<R> {
  using type = future<typename op_result<R>::value_type>;
};
/// The future a handler result R turns into: U, future<U> → future<U>; void → future<void>.
template <class R>
using future_of_t = typename future_of<std::remove_cvref_t<R>>::type;

struct future_continuation;

/// What a continuation hands on when it has run: the next continuation to
/// fire (or nullptr) and its source, the state that has settled for it.
struct continuation_step {
  future_continuation* next;
  void* source;
};

/// The one consumer of a future state. When the source (the state whose
/// `cont` it is) settles, fire is called with that source and one reference
/// to it passed in (fire releases it); it returns the next step (with one
/// reference to the next source passed on). If the source dies unsettled,
/// fire is called with source == nullptr (and must not throw). The source is
/// passed, not stored: a continuation is one pointer smaller, and a million
/// when_all inputs are 8 MB smaller.
struct future_continuation {
  continuation_step (*fire)(future_continuation* self, void* source) = nullptr;
};

/// Continuations whose source died unsettled while another was being told
/// so on this thread, still to be told (a small stack: each source has one
/// continuation, so a chain needs one place at a time).
struct abandoned_continuations {
  static constexpr unsigned capacity = 16;
  future_continuation* pending[capacity] = {};
  unsigned count = 0;
  bool draining = false;
};
constinit inline thread_local abandoned_continuations tl_abandoned_continuations{};

/// Tells \p c its source died unsettled. A `then` state so told dies and
/// tells its own continuation: a million-long chain of `then`s on a future
/// that never settles would unwind a million nested destructors. Only the
/// outermost call fires; the calls it causes leave their continuation to it.
[[gnu::noinline]] inline void abandon(future_continuation* c) noexcept {
  abandoned_continuations& a = tl_abandoned_continuations;
  if (a.draining) {
    if (a.count < abandoned_continuations::capacity) {
      a.pending[a.count++] = c;
      return;
    }
    c->fire(c, nullptr); // more than a chain at once: this one nests
    return;
  }
  a.draining = true;
  c->fire(c, nullptr);
  while (a.count != 0) {
    future_continuation* next = a.pending[--a.count];
    next->fire(next, nullptr);
  }
  a.draining = false;
}

/// Runs a chain of continuations in a loop, not by recursion.
inline void run_continuations(future_continuation* c, void* source) {
  while (c) {
    const continuation_step next = c->fire(c, source);
    c = next.next;
    source = next.source;
  }
}

/// The shared state of future<T>: the producer side (callbacks, or the
/// continuation that computes it) and the consumer side (the future handle,
/// or the continuation attached to it) each hold references.
template <class T>
class future_state : public handler_for<T> {
public:
  using value_type = stored_t<T>;

  explicit future_state(const handler_ops_for<T>* ops) noexcept : handler_for<T>{ops} {}
  future_state(const future_state&) = delete;
  future_state& operator=(const future_state&) = delete;
  ~future_state() {
    if (status == outcome_status::fulfilled) {
      value.~value_type();
    } else if (status == outcome_status::rejected || (status == outcome_status::pending && cont_)) [[unlikely]] {
      tear_down_unusual(); // out of line: the common end stays a few instructions
    }
  }

  void add_ref() noexcept { ++this->refs; }
  void release() noexcept {
    if (--this->refs == 0) this->ops->destroy(this);
  }
  bool unique() const noexcept { return this->refs == 1; }
  bool pending() const noexcept { return status == outcome_status::pending; }

  /// The one continuation waiting on this pending state, or null. It shares
  /// its slot with the outcome: settling displaces it (settle_value and
  /// settle_error return it, for deliver or hand_on).
  future_continuation* waiting() const noexcept {
    assert(pending());
    return cont_;
  }
  /// Makes \p c the continuation of this pending state (null: none).
  void wait_with(future_continuation* c) noexcept {
    assert(pending());
    cont_ = c;
  }

  /// Stores a value in this pending state and returns the continuation it
  /// displaced, which has not run (see deliver and hand_on). If making the
  /// value throws, the state is as it was.
  template <class... V>
  [[nodiscard]] future_continuation* settle_value(V&&... v) {
    assert(pending() || status == outcome_status::taken);
    future_continuation* c = emplace_displacing(value, cont_, static_cast<V&&>(v)...);
    status = outcome_status::fulfilled;
    return c;
  }
  /// Stores an error; as settle_value.
  [[nodiscard]] future_continuation* settle_error(error e) noexcept {
    assert(pending() || status == outcome_status::taken);
    future_continuation* c = emplace_displacing(err, cont_, std::move(e));
    status = outcome_status::rejected;
    return c;
  }
  /// Settles a state that nothing can be waiting on yet (new, or unique).
  template <class... V>
  void ready_value(V&&... v) {
    [[maybe_unused]] future_continuation* c = settle_value(static_cast<V&&>(v)...);
    assert(!c && "a continuation was waiting on a state settled as ready");
  }
  void ready_error(error e) noexcept {
    [[maybe_unused]] future_continuation* c = settle_error(std::move(e));
    assert(!c && "a continuation was waiting on a state settled as ready");
  }
  /// Clears a settled outcome (before re-using the state for another one).
  void clear() noexcept {
    if (status == outcome_status::fulfilled)
      value.~value_type();
    else if (status == outcome_status::rejected)
      err.~error();
    cont_ = nullptr;
    status = outcome_status::taken;
  }

  /// Runs \p c, the continuation settling displaced (if any), now.
  void deliver(future_continuation* c) {
    if (c) {
      add_ref(); // passed to c->fire
      run_continuations(c, this);
    }
  }

  /// For a continuation that settled this state while firing: the step that
  /// hands the outcome to \p next (the continuation settling displaced),
  /// with the reference the firing one held, or, with nobody waiting yet,
  /// drops that reference.
  continuation_step hand_on(future_continuation* next) noexcept {
    if (next) return {next, this};
    release();
    return {};
  }

  /// The callback-handler entry (make_future): `cb(err)` fails, `cb({}, v)` fulfills.
  template <class... V>
  static void on_callback(handler_for<T>* h, error&& e, V&&... v) {
    if (!e) return on_value(h, static_cast<V&&>(v)...);
    auto* s = static_cast<future_state*>(h);
    if (s->status != outcome_status::pending) return; // a second call (a bug; asserted in callback)
    s->deliver(s->settle_error(std::move(e)));
  }
  /// The success entry (sink_callback::deliver_value): no error object.
  template <class... V>
  static void on_value(handler_for<T>* h, V&&... v) {
    auto* s = static_cast<future_state*>(h);
    if (s->status != outcome_status::pending) return;
    s->deliver(s->settle_value(static_cast<V&&>(v)...));
  }

private:
  [[gnu::noinline]] void tear_down_unusual() noexcept {
    if (status == outcome_status::rejected)
      err.~error();
    else
      abandon(cont_); // pending with a continuation: the producer went away without delivering
  }

public:
  outcome_status status = outcome_status::pending;
  /// Free for the derived state's own use (they sit in padding): then_fstate
  /// marks its handlers alive with the first, its operation's cleanup with
  /// the second.
  bool derived_flag = false;
  bool derived_flag2 = false;

  // One slot: the waiting continuation while pending (use waiting and
  // wait_with), then the outcome (a continuation never waits on a settled
  // state: it runs when the state settles).
  union {
    future_continuation* cont_ = nullptr;
    value_type value;
    error err;
  };
};

template <class T, class Base>
constexpr handler_ops_for<T> future_state_ops(void (*destroy)(handler_for<T>*) noexcept) noexcept {
  if constexpr (std::is_void_v<T>)
    return {&Base::template on_callback<>, destroy};
  else
    return {&Base::template on_callback<T>, destroy};
}

/// A future settled by a callback (make_future) or made ready.
template <class T>
class basic_future_state final : public future_state<T> {
public:
  basic_future_state() noexcept : future_state<T>(&ops_) {}

private:
  static void destroy(handler_for<T>* h) noexcept { pool_delete(static_cast<basic_future_state*>(h)); }
  static constexpr handler_ops_for<T> ops_ = future_state_ops<T, future_state<T>>(&destroy);
};

/// A future settled by a callback, with a cleanup that runs, inline, when
/// the callback reports an error, before the future fails (on_error).
template <class T, class G>
class cleanup_future_state final : public future_state<T> {
public:
  explicit cleanup_future_state(G g) : future_state<T>(&ops_), cleanup_(std::move(g)) {}

  template <class... V>
  static void on_callback(handler_for<T>* h, error&& e, V&&... v) {
    if (!e) return on_value(h, static_cast<V&&>(v)...);
    static_cast<cleanup_future_state*>(h)->fail(std::move(e));
  }
  /// Hides the base's: settles, drops the cleanup, then delivers (a cleanup
  /// whose destructor completed the operation again would find it settled).
  template <class... V>
  static void on_value(handler_for<T>* h, V&&... v) {
    auto* s = static_cast<cleanup_future_state*>(h);
    if (!s->pending()) return;
    future_continuation* c = s->settle_value(static_cast<V&&>(v)...);
    s->cleanup_.drop();
    s->deliver(c);
  }
  /// Fails (unless ready already): the cleanup first. The cleanup may cancel
  /// the operation, which may complete at once, from inside it: then that
  /// outcome has settled the state, and this failure is dropped.
  void fail(error e) {
    if (!this->pending()) return;
    cleanup_.fail(e);
    if (!this->pending()) [[unlikely]]
      return;
    this->deliver(this->settle_error(std::move(e)));
  }

private:
  static void destroy(handler_for<T>* h) noexcept { pool_delete(static_cast<cleanup_future_state*>(h)); }
  static constexpr handler_ops_for<T> ops_ = future_state_ops<T, cleanup_future_state>(&destroy);

  cleanup_slot<G> cleanup_;
};

template <class F>
struct future_tap_error {
  F f;
};
template <class H>
struct is_future_tap : std::false_type {};
template <class F>
struct is_future_tap<future_tap_error<F>> : std::true_type {};

/// Calls a handler on the outcome of \p src (a settled future_state<T>) and
/// reports what it returned through \p sink: sink.value(args...),
/// sink.error(e) or sink.adopt(future<U>). Shared by then on a pending
/// future (the sink is the derived state) and on a ready one.
template <class T, class OnValue, class OnError, class Sink>
void run_handler(future_state<T>& src, OnValue& on_value, OnError& on_error, Sink& sink) {
  auto settle_with = [&](auto&& call) {
    using R = decltype(call());
    try {
      if constexpr (std::is_void_v<R>) {
        call();
        sink.value();
      } else if constexpr (is_future<std::remove_cvref_t<R>>::value) {
        sink.adopt(call());
      } else if constexpr (op_result<std::remove_cvref_t<R>>::value) {
        sink.start(call());
      } else {
        std::remove_cvref_t<R> r = call();
        sink.value(std::move(r));
      }
    } catch (...) {
      sink.error(error_from_current_exception());
    }
  };
  if (src.status == outcome_status::fulfilled) {
    if constexpr (std::is_same_v<OnValue, pass_through>)
      sink.pass(src);
    else
      settle_with([&]() -> decltype(auto) { return invoke_with_value<T>(on_value, src.value, true); });
  } else if constexpr (std::is_same_v<OnError, pass_through>) {
    sink.pass(src);
  } else if constexpr (is_future_tap<OnError>::value) {
    try {
      if constexpr (std::is_invocable_v<decltype(on_error.f)&, const error&>)
        (void)on_error.f(std::as_const(src.err));
      else
        (void)on_error.f();
    } catch (...) {
      sink.error(error_from_current_exception());
      return;
    }
    sink.pass(src);
  } else {
    settle_with([&]() -> decltype(auto) { return invoke_with_error(on_error, src.err, true); });
  }
}

/// The state of `f.then(on_value, on_error)` on a pending future: a
/// future<U> that is also the continuation of f's state.
///
/// When the handler returns an operation (promisify(start), with or without
/// on_error), this state starts it with a callback to itself: the operation
/// settles this state directly, with no future state of its own in between
/// (and an on_error cleanup runs inline on failure, from where the handlers
/// were). The handler is gone by then: the start function must own what it
/// uses (capture by value).
template <class T, class U, class OnValue, class OnError>
class then_fstate final : public future_state<U>, public future_continuation {
  using cleanup_type = typename value_cleanup<T, OnValue>::type;
  static constexpr bool has_cleanup = !std::is_void_v<cleanup_type>;

public:
  template <class V, class E>
  then_fstate(V&& v, E&& e) : future_state<U>(&ops_), room_(static_cast<V&&>(v), static_cast<E&&>(e)) {
    this->derived_flag = true; // the handlers are alive
    this->fire = &fire_then;
  }
  ~then_fstate() {
    if (this->derived_flag) room_.handlers.destroy();
    if constexpr (has_cleanup) drop_cleanup();
  }

  /// The callback-handler entries, while an operation the handler returned
  /// is in flight: as future_state's, and a cleanup runs on failure first.
  template <class... V>
  static void on_callback(handler_for<U>* h, error&& e, V&&... v) {
    if constexpr (!has_cleanup) {
      future_state<U>::on_callback(h, std::move(e), static_cast<V&&>(v)...);
    } else {
      if (!e) return on_value(h, static_cast<V&&>(v)...);
      static_cast<then_fstate*>(h)->fail(std::move(e));
    }
  }
  template <class... V>
  static void on_value(handler_for<U>* h, V&&... v) {
    if constexpr (!has_cleanup) {
      future_state<U>::on_value(h, static_cast<V&&>(v)...);
    } else {
      auto* s = static_cast<then_fstate*>(h);
      if (!s->pending()) return;
      future_continuation* c = s->settle_value(static_cast<V&&>(v)...);
      s->drop_cleanup();
      s->deliver(c);
    }
  }

private:
  void drop_handlers() noexcept {
    if (this->derived_flag) {
      this->derived_flag = false;
      room_.handlers.destroy();
    }
  }
  void drop_cleanup() noexcept {
    if constexpr (has_cleanup) {
      if (this->derived_flag2) {
        this->derived_flag2 = false;
        room_.cleanup.~cleanup_slot<cleanup_type>();
      }
    }
  }
  /// The operation failed (or its start threw): the cleanup first, unless
  /// the operation settled us already; the cleanup may cancel the operation,
  /// which may then complete at once, from inside it.
  void fail(error e) {
    if (!this->pending()) return;
    if constexpr (has_cleanup) {
      if (this->derived_flag2) room_.cleanup.fail(e);
      if (!this->pending()) [[unlikely]]
        return;
    }
    this->deliver(this->settle_error(std::move(e)));
  }

  /// Receives what the handler produced.
  struct sink {
    then_fstate* self;
    bool forwarded = false;
    future_continuation* next = nullptr; // what settling self displaced, for hand_on
    template <class... V>
    void value(V&&... v) {
      static_assert(sizeof...(V) != 0 || std::is_void_v<U>, "this handler must return a value or a future, like the other one");
      self->drop_handlers();
      next = self->settle_value(static_cast<V&&>(v)...);
    }
    void error(asyncshift::error e) noexcept {
      self->drop_handlers();
      if (self->pending()) next = self->settle_error(std::move(e));
    }
    void pass(future_state<T>& src) {
      self->drop_handlers();
      if (src.status == outcome_status::rejected)
        next = self->settle_error(std::move(src.err));
      else if constexpr (std::is_same_v<T, U>)
        next = self->settle_value(std::move(src.value));
    }
    void adopt(future<U> q);
    template <class Op>
    void start(Op&& op);
  };

  static continuation_step fire_then(future_continuation* c, void* source) {
    auto* self = static_cast<then_fstate*>(c);
    auto* src = static_cast<future_state<T>*>(source);
    if (!src) [[unlikely]] { // the source died unsettled: so do we, unless someone holds us
      self->drop_handlers();
      self->release();
      return {};
    }
    sink out{self};
    run_handler<T>(*src, self->room_.handlers.h.on_value, self->room_.handlers.h.on_error, out);
    src->release();
    if (out.forwarded) return {}; // self now belongs to the adopted future: do not touch it
    return self->hand_on(out.next);
  }

  static continuation_step fire_forward(future_continuation* c, void* source) {
    auto* self = static_cast<then_fstate*>(c);
    auto* src = static_cast<future_state<U>*>(source);
    if (!src) [[unlikely]] {
      self->release();
      return {};
    }
    future_continuation* next;
    if (src->status == outcome_status::fulfilled) {
      try {
        next = self->settle_value(std::move(src->value));
      } catch (...) { // self is still pending
        next = self->settle_error(error_from_current_exception());
      }
    } else {
      next = self->settle_error(std::move(src->err));
    }
    src->release();
    return self->hand_on(next);
  }

  static void destroy(handler_for<U>* h) noexcept { pool_delete(static_cast<then_fstate*>(h)); }
  static constexpr handler_ops_for<U> ops_ = future_state_ops<U, then_fstate>(&destroy);

  [[no_unique_address]] then_room<handlers_slot_t<OnValue, OnError>, cleanup_type> room_;

  template <class>
  friend class asyncshift::future;
};

/// then_callback's continuation on a pending future.
template <class T>
struct callback_continuation final : future_continuation {
  callback_t<T> cb;

  explicit callback_continuation(callback_t<T> c) noexcept : cb(std::move(c)) { fire = &fire_it; }

  static continuation_step fire_it(future_continuation* c, void* source) {
    auto* self = static_cast<callback_continuation*>(c);
    auto* src = static_cast<future_state<T>*>(source);
    callback_t<T> cb = std::move(self->cb);
    pool_delete(self);
    if (!src) return {}; // abandoned: the callback is never called, as in callback style
    if (src->status == outcome_status::fulfilled) {
      if constexpr (std::is_void_v<T>) {
        src->release();
        cb({});
      } else {
        T v(std::move(src->value));
        src->release();
        cb({}, std::move(v));
      }
    } else {
      error e = std::move(src->err);
      src->release();
      cb(std::move(e));
    }
    return {};
  }
};

/// co_await on a future: the awaiter is the continuation (in the coroutine
/// frame: no allocation). A ready future does not suspend; otherwise the
/// coroutine resumes inline when the value arrives.
template <class T, bool Settled>
class future_awaiter : private future_continuation {
public:
  explicit future_awaiter(future_state<T>* s) noexcept : state_(s) {}
  future_awaiter(future_awaiter&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  future_awaiter& operator=(future_awaiter&&) = delete;
  ~future_awaiter() {
    if (state_) state_->release();
  }

  bool await_ready() const noexcept { return !state_->pending(); }
  void await_suspend(std::coroutine_handle<> h) noexcept {
    waiter_ = h;
    fire = &resume; // never abandoned: we hold the state
    state_->wait_with(this);
  }
  auto await_resume() {
    future_state<T>& s = *state_;
    const bool ok = s.status == outcome_status::fulfilled;
    if constexpr (Settled) {
      if constexpr (std::is_void_v<T>)
        return ok ? error{} : std::move(s.err);
      else if (ok)
        return result<T>(error{}, std::move(s.value));
      else
        return result<T>(std::move(s.err));
    } else {
      if (!ok) [[unlikely]]
        throw_error(std::move(s.err));
      if constexpr (!std::is_void_v<T>) return T(std::move(s.value));
    }
  }

private:
  static continuation_step resume(future_continuation* c, void*) {
    auto* self = static_cast<future_awaiter*>(c);
    self->state_->release(); // the reference passed in (to state_); ours keeps the state
    self->waiter_.resume();
    return {};
  }

  future_state<T>* state_;
  std::coroutine_handle<> waiter_;
};

} // namespace detail

/// A move-only future of a T with one inline continuation (see the top of this file).
template <class T>
class future {
public:
  using value_type = T;
  using state_type = detail::future_state<T>;

  /// An empty future (valid() is false).
  future() noexcept = default;
  /// Adopts one reference to \p s.
  explicit future(state_type* s) noexcept : s_(s) {}
  future(future&& other) noexcept : s_(std::exchange(other.s_, nullptr)) {}
  future& operator=(future&& other) noexcept {
    if (this != &other) {
      if (s_) s_->release();
      s_ = std::exchange(other.s_, nullptr);
    }
    return *this;
  }
  future(const future&) = delete;
  future& operator=(const future&) = delete;
  ~future() {
    if (s_) s_->release();
  }

  /// Runs \p on_value with the value (or nothing, if it takes nothing) when
  /// it arrives, inline; the result is a future of what it returns (a
  /// returned future is adopted). An error passes through. Consumes *this.
  template <class F>
  auto then(F on_value) && {
    using U = typename detail::future_of_t<detail::value_result_t<T, F>>::value_type;
    return take().template chain<U>(std::move(on_value), detail::pass_through{});
  }
  template <class F>
  auto then(F on_value) & {
    return std::move(*this).then(std::move(on_value));
  }
  /// As above, and \p on_error(error) handles an error, returning the same
  /// kind of thing as \p on_value.
  template <class F, class G>
  auto then(F on_value, G on_error) && {
    using U = typename detail::future_of_t<detail::value_result_t<T, F>>::value_type;
    return take().template chain<U>(std::move(on_value), std::move(on_error));
  }
  template <class F, class G>
  auto then(F on_value, G on_error) & {
    return std::move(*this).then(std::move(on_value), std::move(on_error));
  }
  /// Handles an error: \p on_error(error) returns a T, a future<T>, or (for
  /// future<void>) nothing. A value passes through.
  template <class G>
  future catch_error(G on_error) && {
    return take().template chain<T>(detail::pass_through{}, std::move(on_error));
  }
  template <class G>
  future catch_error(G on_error) & {
    return std::move(*this).catch_error(std::move(on_error));
  }
  /// Runs \p f(const error&) on error (its result is ignored); the error
  /// passes on unchanged. A value passes through.
  template <class F>
  future tap_error(F f) && {
    return take().template chain<T>(detail::pass_through{}, detail::future_tap_error<F>{std::move(f)});
  }
  template <class F>
  future tap_error(F f) & {
    return std::move(*this).tap_error(std::move(f));
  }

  /// Delivers the outcome to \p cb (`cb({}, v)` or `cb(err)`): now if ready,
  /// otherwise inline when it arrives. Consumes *this.
  ASYNCSHIFT_INLINE void then_callback(detail::callback_t<T> cb) && {
    state_type* s = std::exchange(s_, nullptr);
    assert(s && "then_callback on an empty future");
    if (!s->pending()) {
      if (s->status == detail::outcome_status::fulfilled) {
        if constexpr (std::is_void_v<T>) {
          s->release();
          cb({});
        } else {
          T v(std::move(s->value));
          s->release();
          cb({}, std::move(v));
        }
      } else {
        error e = std::move(s->err);
        s->release();
        cb(std::move(e));
      }
      return;
    }
    auto* c = detail::pool_new<detail::callback_continuation<T>>(std::move(cb));
    s->wait_with(c);
    s->release(); // our handle's reference: the producers keep s alive
  }
  void then_callback(detail::callback_t<T> cb) & { std::move(*this).then_callback(std::move(cb)); }

  /// Awaiting yields the value or throws error_exception; a ready future does
  /// not suspend.
  detail::future_awaiter<T, false> operator co_await() && noexcept { return detail::future_awaiter<T, false>(std::exchange(s_, nullptr)); }
  /// `co_await f` on a named future takes it, as `f.then(...)` does (a
  /// future has one reader): f is empty afterwards.
  detail::future_awaiter<T, false> operator co_await() & noexcept { return std::move(*this).operator co_await(); }

  bool valid() const noexcept { return s_ != nullptr; }
  bool is_ready() const noexcept { return !s_->pending(); }
  bool has_value() const noexcept { return s_->status == detail::outcome_status::fulfilled; }
  bool has_error() const noexcept { return s_->status == detail::outcome_status::rejected; }
  /// The value of a ready future (throws error_exception if it failed). Consumes *this.
  T get() && {
    assert(s_ && is_ready() && "get() on a future that is not ready");
    future f = std::move(*this);
    if (f.has_error()) throw_error(f.s_->err);
    if constexpr (!std::is_void_v<T>) return T(std::move(f.s_->value));
  }
  /// The error of a ready future (empty if it has a value).
  const error& get_error() const noexcept {
    static const error none;
    return has_error() ? s_->err : none;
  }

  /// Low level: the state (no reference is taken or given).
  state_type* state() const noexcept { return s_; }
  /// Low level: gives up the reference (the caller releases it).
  state_type* release() noexcept { return std::exchange(s_, nullptr); }

private:
  future take() noexcept { return future(std::exchange(s_, nullptr)); }

  template <class U, class OnValue, class OnError>
  future<U> chain(OnValue&& on_value, OnError&& on_error) &&;

  template <class>
  friend class future;

  state_type* s_ = nullptr;
};

/// A future with a value.
template <class T, class V>
  requires(!std::is_void_v<T>)
future<T> make_ready_future_of(V&& v) {
  auto* s = detail::pool_new<detail::basic_future_state<T>>();
  future<T> f(s);
  s->ready_value(static_cast<V&&>(v));
  return f;
}
template <class V>
future<std::decay_t<V>> make_ready_future(V&& v) {
  return make_ready_future_of<std::decay_t<V>>(static_cast<V&&>(v));
}
/// A ready future<void>.
inline future<void> make_ready_future() {
  auto* s = detail::pool_new<detail::basic_future_state<void>>();
  s->ready_value();
  return future<void>(s);
}
/// A failed future.
template <class T = void>
future<T> make_failed_future(error e) {
  auto* s = detail::pool_new<detail::basic_future_state<T>>();
  s->ready_error(std::move(e));
  return future<T>(s);
}

template <class T, class F>
future<T> make_future(callback_op<T, F>&& op);
template <class T, class F, class G>
future<T> make_future(cleanup_op<T, F, G>&& op);

/// The handler returned an operation: start it with a callback to self, which
/// then settles when the operation completes (or now, if it completes
/// synchronously: our consumer waits aside meanwhile, so that it runs from
/// the trampoline and not from inside the start).
template <class T, class U, class OnValue, class OnError>
template <class Op>
void detail::then_fstate<T, U, OnValue, OnError>::sink::start(Op&& op) {
  using R = op_result<std::remove_cvref_t<Op>>;
  using G = typename R::cleanup;
  if constexpr (!std::is_void_v<G> && !std::is_same_v<G, cleanup_type>) {
    adopt(asyncshift::make_future(std::move(op))); // a cleanup this state has no room for (the error handler's)
  } else {
    auto start = std::move(op).take_start();
    then_fstate* s = self;
    s->drop_handlers();
    if constexpr (!std::is_void_v<G>) {
      ::new (static_cast<void*>(std::addressof(s->room_.cleanup))) cleanup_slot<G>(std::move(op).take_cleanup());
      s->derived_flag2 = true;
    }
    future_continuation* waiting = s->waiting();
    s->wait_with(nullptr);
    start_operation<U>(s, start, [s](asyncshift::error e) { s->fail(std::move(e)); });
    if (s->pending()) {
      s->wait_with(waiting);
      forwarded = true; // the operation's callback holds s now
      s->release();     // the reference our producer held
    } else {
      next = waiting; // settling ran or dropped the cleanup; its slot goes with s
    }
  }
}

template <class T, class U, class OnValue, class OnError>
void detail::then_fstate<T, U, OnValue, OnError>::sink::adopt(future<U> q) {
  self->drop_handlers();
  future_state<U>* qs = q.release();
  if (!qs) {
    next = self->settle_error(asyncshift::error("future: a handler returned an empty future"));
    return;
  }
  if (!qs->pending()) {
    if (qs->status == outcome_status::fulfilled)
      next = self->settle_value(std::move(qs->value));
    else
      next = self->settle_error(std::move(qs->err));
    qs->release();
    return;
  }
  forwarded = true;
  if (future_continuation* waiting = self->waiting()) {
    // Our consumer is already waiting (a chain built in advance): give it to
    // q, which will fire it directly. Nobody needs us any more: drop the
    // reference our producer held (it is the last one: the consumer took our
    // handle's). q's handle reference goes too; its producers keep it.
    self->wait_with(nullptr);
    qs->wait_with(waiting);
    qs->release();
    self->release();
    return;
  }
  // Nobody waits on us yet: wait on q with our own continuation; q now holds
  // the reference our producer held, and q's handle reference goes.
  self->fire = &fire_forward;
  qs->wait_with(self);
  qs->release();
}

namespace detail {

/// then on a ready future: runs the handler now. The result re-uses the
/// source state when the types match and nobody else holds it.
template <class T, class U, class OnValue, class OnError>
struct ready_sink {
  future_state<T>* src; // we hold one reference, given up to the result or released
  future<U> out;

  template <class... V>
  void value(V&&... v) {
    static_assert(sizeof...(V) != 0 || std::is_void_v<U>, "this handler must return a value or a future, like the other one");
    if constexpr (std::is_same_v<T, U>) {
      if (src->unique()) {
        src->clear();
        src->ready_value(static_cast<V&&>(v)...);
        out = future<U>(std::exchange(src, nullptr));
        return;
      }
    }
    auto* s = pool_new<basic_future_state<U>>();
    s->ready_value(static_cast<V&&>(v)...);
    out = future<U>(s);
  }
  void error(asyncshift::error e) noexcept {
    if constexpr (std::is_same_v<T, U>) {
      if (src->unique()) {
        src->clear();
        src->ready_error(std::move(e));
        out = future<U>(std::exchange(src, nullptr));
        return;
      }
    }
    out = make_failed_future<U>(std::move(e));
  }
  void pass(future_state<T>& s) {
    if constexpr (std::is_same_v<T, U>) {
      (void)s;
      out = future<U>(std::exchange(src, nullptr));
    } else { // only an error passes between different types
      out = make_failed_future<U>(std::move(s.err));
    }
  }
  void adopt(future<U> q) { out = std::move(q); }
  template <class Op>
  void start(Op&& op) {
    out = asyncshift::make_future(std::move(op));
  }
};

} // namespace detail

template <class T>
template <class U, class OnValue, class OnError>
future<U> future<T>::chain(OnValue&& on_value, OnError&& on_error) && {
  state_type* s = std::exchange(s_, nullptr);
  assert(s && "then on an empty future");
  if (!s->pending()) {
    detail::ready_sink<T, U, std::decay_t<OnValue>, std::decay_t<OnError>> sink{s, {}};
    detail::run_handler<T>(*s, on_value, on_error, sink);
    if (sink.src) sink.src->release();
    return std::move(sink.out);
  }
  using D = detail::then_fstate<T, U, std::decay_t<OnValue>, std::decay_t<OnError>>;
  D* d = detail::pool_new<D>(static_cast<OnValue&&>(on_value), static_cast<OnError&&>(on_error));
  future<U> result(d); // the handle's reference
  d->add_ref();        // and the one s holds until it fires
  s->wait_with(d);
  s->release(); // our handle's reference: the producers keep s alive
  return result;
}

/// Starts a callback-style operation and returns a future of its outcome.
/// \p start receives a callback<T> (callback<> for void) and is called at
/// once; when the callback is called (even synchronously) the future becomes
/// ready and its continuation, if any, runs inline. If \p start throws, the
/// future fails (unless already ready).
template <class T = void, class F>
future<T> make_future(F&& start) {
  auto* s = detail::pool_new<detail::basic_future_state<T>>();
  future<T> f(s);
  detail::start_operation<T>(s, start, [s](error e) {
    if (s->pending()) s->deliver(s->settle_error(std::move(e)));
  });
  return f;
}

/// As above, and \p cleanup (made by on_error) runs when the operation
/// fails, inline, before the future fails: `make_future(start).tap_error(f)`
/// without a second state.
template <class T = void, class F, class G>
future<T> make_future(F&& start, on_error_cleanup<G> cleanup) {
  auto* s = detail::pool_new<detail::cleanup_future_state<T, G>>(std::move(cleanup.f));
  future<T> f(s);
  detail::start_operation<T>(s, start, [s](error e) { s->fail(std::move(e)); });
  return f;
}

/// The future of an operation made by promisify (or by when_all over
/// operations, fanout.hpp): it starts now, as make_future(start) does. Generated
/// future code joins a fan-out whose branches are one operation each with
/// `make_future(when_all(n, [=](std::size_t i) { return promisify(...); }))`:
/// the operations complete parallel()'s join directly, with no future per
/// branch, as in the coroutine style.
template <class T, class F>
future<T> make_future(callback_op<T, F>&& op) {
  return make_future<T>(std::move(op).take_start());
}

/// As above, and \p cleanup (made by on_error) runs inline when the
/// operation fails, before the future does: generated code's
/// `make_future(when_all(...), on_error(g))`, where `.tap_error(g)` would add
/// a second state and a step.
template <class T, class F, class G>
future<T> make_future(callback_op<T, F>&& op, on_error_cleanup<G> cleanup) {
  return make_future<T>(std::move(op).take_start(), std::move(cleanup));
}

/// The future of an operation made by promisify(start, on_error(g)): as
/// make_future(start, on_error(g)).
template <class T, class F, class G>
future<T> make_future(cleanup_op<T, F, G>&& op) {
  return make_future<T>(std::move(op).take_start(), on_error_cleanup<G>{std::move(op).take_cleanup()});
}

/// The outcome of \p f as a value: a future that always succeeds, with an
/// asyncshift::error (for future<void>; empty on success) or a result<T>.
/// `co_await settle(f)` yields the value.
template <class T>
future<settled_t<T>> settle(future<T>&& f) {
  if constexpr (std::is_void_v<T>)
    return std::move(f).then([] { return error{}; }, [](error e) { return e; });
  else
    return std::move(f).then([](T&& v) { return result<T>(error{}, std::move(v)); },
                             [](error e) { return result<T>(std::move(e)); });
}
template <class T>
future<settled_t<T>> settle(future<T>& f) {
  return settle(std::move(f));
}

// ---- when_all -------------------------------------------------------------

namespace detail {

/// What when_all over futures (or tasks) of T yields: std::vector<T>, or nothing for void.
template <class T>
using all_values_t = std::conditional_t<std::is_void_v<T>, void, std::vector<T>>;


/// The state of when_all(std::vector<future<T>>): one continuation slot per
/// input. The slots hold one reference to the join between them, dropped by
/// the last input to settle (a reference per slot cost an increment and a
/// decrement per input). The first error settles the join; the other inputs
/// run to their end and are ignored. An input that dies unsettled leaves the
/// join pending, to be abandoned when its last reference goes. The count
/// starts at n + 1 so the setup finishes before the join can complete.
template <class T>
class future_join final : public future_state<all_values_t<T>> {
  using R = all_values_t<T>;

public:
  explicit future_join(std::size_t n) : future_state<R>(&ops_), remaining_(n + 1), slots_(n, this) {
    if constexpr (!std::is_void_v<T>) values_.expect(n);
  }

  static future<R> start(std::vector<future<T>>&& inputs) {
    return start_n(inputs.size(), [&inputs](std::size_t i) { return std::move(inputs[i]); });
  }

  /// Joins make(0) ... make(n - 1), linking each input as it is made (no
  /// vector of handles). If make throws, the exception leaves with our
  /// handle, and the join lives until the inputs linked so far have settled.
  template <class Make>
  static future<R> start_n(std::size_t n, Make&& make) {
    auto* j = pool_new<future_join>(n);
    future<R> result(j);
    j->add_ref(); // the slots' reference
    for (std::size_t i = 0; i < n; ++i) {
      future_state<T>* s = make_input(j, make, i, n);
      assert(s && "an empty future in when_all");
      if (s->pending()) [[likely]] {
        s->wait_with(&j->slots_[i]);
      } else {
        j->report(i, *s);
        --j->remaining_; // never the last: the setup's own count is still there
      }
      s->release();
    }
    // The setup's own count. Nothing waits on j yet: no step comes back.
    if (--j->remaining_ == 0) (void)j->last_done();
    return result;
  }

private:
  /// make(i), for start_n. If it throws, the join will never settle, and the
  /// inputs linked so far still hold the slots' reference until they have
  /// settled; the exception leaves with start_n's handle.
  template <class Make>
  static future_state<T>* make_input(future_join* j, Make& make, std::size_t i, std::size_t n) {
    try {
      return make(i).release();
    } catch (...) {
      j->derived_flag = true;
      j->remaining_ -= n - i + 1; // the inputs never made, and the setup
      if (j->remaining_ == 0) (void)j->last_done();
      throw;
    }
  }

  struct slot : future_continuation {
    explicit slot(future_join* j) noexcept : future_continuation{&fire_slot}, join(j) {}
    future_join* join;
  };

  /// Takes the outcome of input i, settled when it was made.
  void report(std::size_t i, future_state<T>& s) {
    if (s.status == outcome_status::rejected) {
      if (this->pending()) this->ready_error(std::move(s.err));
    } else if constexpr (!std::is_void_v<T>) {
      values_.set(i, std::move(s.value));
    }
  }

  /// After the last input (or the setup): settles the join with the values
  /// unless an input failed or died unsettled, and hands the slots'
  /// reference on to the join's consumer (or drops it).
  continuation_step last_done() {
    if (this->pending() && !this->derived_flag) {
      future_continuation* next;
      if constexpr (std::is_void_v<T>)
        next = this->settle_value();
      else
        next = this->settle_value(values_.take());
      return this->hand_on(next);
    }
    this->release();
    return {};
  }

  /// A value arrived: the common case, kept short.
  static continuation_step fire_slot(future_continuation* c, void* source) {
    auto* sl = static_cast<slot*>(c);
    future_join* j = sl->join;
    auto* src = static_cast<future_state<T>*>(source);
    if (!src || src->status != outcome_status::fulfilled) [[unlikely]]
      return j->input_failed(src);
    if constexpr (!std::is_void_v<T>) j->values_.set(j->slots_.index_of(sl), std::move(src->value));
    src->release();
    return --j->remaining_ == 0 ? j->last_done() : continuation_step{};
  }

  /// An input failed (src rejected) or died unsettled (src null). The first
  /// error settles the join at once, while other inputs may still run: they
  /// keep the slots' reference, and the consumer gets one of its own.
  continuation_step input_failed(future_state<T>* src) {
    bool settled_now = false;
    future_continuation* next = nullptr;
    if (!src) {
      this->derived_flag = true; // the join never settles
    } else {
      if (this->pending()) {
        next = this->settle_error(std::move(src->err));
        settled_now = true;
      }
      src->release();
    }
    const bool last = --remaining_ == 0;
    if (!settled_now) return last ? last_done() : continuation_step{};
    if (!last) this->add_ref();
    return this->hand_on(next);
  }

  static void destroy(handler_for<R>* h) noexcept { pool_delete(static_cast<future_join*>(h)); }
  static constexpr handler_ops_for<R> ops_ = future_state_ops<R, future_state<R>>(&destroy);

  std::size_t remaining_;
  pooled_array<slot> slots_;
  std::conditional_t<std::is_void_v<T>, empty_value, join_values<T>> values_;
};

/// The state of the variadic when_all(future<A>, future<B>, ...).
template <class... T>
class future_tuple_join final : public future_state<std::tuple<tuple_element_for<T>...>> {
  using R = std::tuple<tuple_element_for<T>...>;
  static constexpr std::size_t n = sizeof...(T);

public:
  future_tuple_join() : future_state<R>(&ops_) {}

  static future<R> start(future<T>&&... inputs) {
    auto* j = pool_new<future_tuple_join>();
    future<R> result(j);
    [&]<std::size_t... I>(std::index_sequence<I...>) { (j->template attach<I>(std::move(inputs)), ...); }(std::index_sequence_for<T...>{});
    [[maybe_unused]] future_continuation* c = j->count_down_then(nullptr); // the setup's count
    assert(!c && "nothing waits on the join while its inputs are attached");
    return result;
  }

private:
  template <std::size_t I>
  using input_t = std::tuple_element_t<I, std::tuple<T...>>;

  struct slot : future_continuation {
    future_tuple_join* join = nullptr;
  };

  template <std::size_t I>
  void attach(future<input_t<I>>&& f) {
    future_state<input_t<I>>* s = f.release();
    assert(s && "an empty future in when_all");
    if (!s->pending()) {
      [[maybe_unused]] future_continuation* c = report<I>(*s);
      assert(!c && "nothing waits on the join while its inputs are attached");
      s->release();
      return;
    }
    slot& sl = slots_[I];
    sl.join = this;
    sl.fire = &fire_slot<I>;
    this->add_ref();
    s->wait_with(&sl);
    s->release();
  }

  /// Takes input I's outcome; returns the continuation that settling the
  /// join displaced (null if it did not settle, or nothing waited).
  template <std::size_t I>
  [[nodiscard]] future_continuation* report(future_state<input_t<I>>& s) {
    if (s.status == outcome_status::rejected) {
      future_continuation* next = nullptr;
      if (this->pending()) next = this->settle_error(std::move(s.err));
      return count_down_then(next);
    } else if constexpr (!std::is_void_v<input_t<I>>) {
      std::get<I>(values_).emplace(std::move(s.value));
    } else {
      std::get<I>(values_).emplace();
    }
    return count_down_then(nullptr);
  }
  /// Counts an input (or the setup) down; the last one settles the join
  /// unless an input failed. Returns \p next, or what settling displaced.
  [[nodiscard]] future_continuation* count_down_then(future_continuation* next) {
    if (--remaining_ == 0 && this->pending())
      next = this->settle_value(std::apply([](auto&... v) { return R(std::move(*v)...); }, values_));
    return next;
  }

  template <std::size_t I>
  static continuation_step fire_slot(future_continuation* c, void* source) {
    auto* sl = static_cast<slot*>(c);
    future_tuple_join* j = sl->join;
    auto* src = static_cast<future_state<input_t<I>>*>(source);
    if (!src) [[unlikely]] {
      j->release();
      return {};
    }
    const bool was_pending = j->pending();
    future_continuation* next = j->template report<I>(*src);
    src->release();
    if (was_pending && !j->pending()) return j->hand_on(next);
    j->release();
    return {};
  }

  static void destroy(handler_for<R>* h) noexcept { pool_delete(static_cast<future_tuple_join*>(h)); }
  static constexpr handler_ops_for<R> ops_ = future_state_ops<R, future_state<R>>(&destroy);

  std::size_t remaining_ = n + 1;
  slot slots_[n];
  std::tuple<std::optional<tuple_element_for<T>>...> values_;
};

} // namespace detail

/// Waits for every future: the values in order (nothing, for void), or the
/// first error. Nothing is cancelled: the others run to their end.
template <class T>
future<detail::all_values_t<T>> when_all(std::vector<future<T>> fs) {
  return detail::future_join<T>::start(std::move(fs));
}

/// when_all of make(0) ... make(n - 1), each made and joined in turn:
/// generated fan-outs use it, so that no vector of n futures is built and
/// walked again.
template <class Make>
  requires detail::is_future<std::invoke_result_t<Make&, std::size_t>>::value
auto when_all(std::size_t n, Make make) {
  using T = typename std::invoke_result_t<Make&, std::size_t>::value_type;
  return detail::future_join<T>::start_n(n, make);
}

/// Waits for futures of different types: a tuple of their values
/// (std::monostate for a void one), or the first error.
template <class... T>
  requires(sizeof...(T) > 0)
future<std::tuple<detail::tuple_element_for<T>...>> when_all(future<T>... fs) {
  return detail::future_tuple_join<T...>::start(std::move(fs)...);
}

} // namespace asyncshift
