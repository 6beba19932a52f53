// asyncshift::promise<T> — JavaScript promises (Promises/A+) on the loop.
//
// A promise is a copyable handle on a reference-counted state. Any number of
// reactions (then, catch_error, finally, then_callback, co_await, all...) may
// wait on one state; every reaction that runs user code runs from the loop's
// microtask queue, in the order it was registered, in the async context its
// registration ran in (AsyncLocalStorage semantics), never synchronously,
// even when the promise is already settled. (all of void or trivially
// copyable values takes each input as it settles, without a microtask: it
// runs no user code, and its own promise's reactions wait for microtasks
// like any other.) A handler that returns a promise is flattened: the
// derived promise adopts the returned one's outcome.
//
// Costs, because the benchmark compares styles. `p.then(f)` is one pooled
// allocation: the derived promise's state embeds both the reaction waiting on
// `p` and `f`. A state is also a callback handler, so make_promise hands the
// operation a callback pointing at the state itself (no extra block). When a
// handler returns a pending promise q, the derived state does not wait on q
// and copy its outcome when it comes (JavaScript spends two extra microtasks
// there): it hands its reactions to q and becomes an alias of q (bluebird's
// "following" promises), so q's settlement runs them directly. A value is
// moved to a handler when the state has no other reader.
//
// Rejections carry asyncshift::error. A handler that throws rejects the
// derived promise (error_exception → its error, std::exception → what()).
// A rejection that no reaction ever handled is reported on stderr when the
// loop's run() ends and counted in loop::unhandled_rejections().
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/context.hpp"
#include "asyncshift/detail/join_values.hpp"
#include "asyncshift/detail/outcome.hpp"
#include "asyncshift/detail/pool.hpp"
#include "asyncshift/detail/returned_op.hpp"
#include "asyncshift/error.hpp"
#include "asyncshift/loop.hpp"
#include "asyncshift/on_error.hpp"
#include "asyncshift/result.hpp"

#include <cassert>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// clang stops inlining fulfill into an operation's completion once a
// settlement may fire a reaction inline (all()'s slot); g++ inlines
// what it should and does worse when forced (docs/runtime.md, Round 21).
#if defined(__clang__)
#define ASYNCSHIFT_FULFILL_INLINE ASYNCSHIFT_INLINE
#else
#define ASYNCSHIFT_FULFILL_INLINE inline
#endif

namespace asyncshift {

template <class T = void>
class promise;
template <class T0, class Start, class G0, class... Fs>
class promise_chain; // promise_chain.hpp

namespace detail {

/// A promise, or a fused chain that becomes one (promise_chain.hpp): what a
/// handler returns to be adopted.
template <class T>
struct is_promise : std::false_type {};
template <class T>
struct is_promise<promise<T>> : std::true_type {};
template <class T0, class Start, class G0, class... Fs>
struct is_promise<promise_chain<T0, Start, G0, Fs...>> : std::true_type {};

/// The promise a handler result R turns into: U, promise<U> → promise<U>; void → promise<void>.
template <class R>
struct promise_of {
  using type = promise<R>;
};
template <class U>
struct promise_of<promise<U>> {
  using type = promise<U>;
};
template <class T0, class Start, class G0, class... Fs>
struct promise_of<promise_chain<T0, Start, G0, Fs...>> {
  using type = promise<typename promise_chain<T0, Start, G0, Fs...>::value_type>;
};
/// A+ 2.3.3's thenable, in C++: anything that is not a promise but can
/// deliver its outcome to a callback (`x.then_callback(cb)`), a future<T> for
/// one. A handler that returns one is assimilated like a returned promise.
template <class R>
concept thenable = !is_promise<R>::value && requires { typename R::value_type; } &&
                   requires(R x, callback_t<typename R::value_type> cb) { std::move(x).then_callback(std::move(cb)); };
template <class R>
  requires thenable<R>
struct promise_of<R> {
  using type = promise<typename R::value_type>;
};
/// An operation (promisify(start), with or without on_error): the then state
/// starts it with a callback to itself.
template <class R>
  requires op_result<R>::value
struct promise_of<R> {
  using type = promise<typename op_result<R>::value_type>;
};
template <class R>
using promise_of_t = typename promise_of<std::remove_cvref_t<R>>::type;

/// A continuation waiting on a promise state. When the state settles, it
/// sets `source`, takes a reference on itself for the reaction, and queues
/// `fire` as a microtask (in context `ctx`); `fire` must release that
/// reference. If the state dies unsettled, `fire` is called synchronously
/// with source == nullptr. (`next` links the state's pending reactions; a
/// reaction leaves the list before it gets a source, so they share a word.)
///
/// A reaction that runs no user code (all()'s slot over plain values) may
/// instead be fired at once, inside the settlement: it marks itself by the
/// low bit of `ctx` (which it then cannot use as a context; see fires_inline).
struct promise_reaction : microtask_node {
  union {
    promise_reaction* next = nullptr;
    void* source;
  };
};

/// The low bit of a reaction's `ctx` that asks for the reaction to be fired
/// inside the settlement instead of from a microtask.
inline constexpr std::uintptr_t fires_inline_bit = 1;
inline bool fires_inline(const promise_reaction* r) noexcept {
  return (reinterpret_cast<std::uintptr_t>(r->ctx) & fires_inline_bit) != 0;
}

/// Reactions whose source died unsettled, still to be told so (fired with
/// source == nullptr), and whether some frame of this thread is telling them.
struct abandoned_reactions {
  promise_reaction* head = nullptr;
  bool draining = false;
};
constinit inline thread_local abandoned_reactions tl_abandoned{};

/// Fires the reactions of list \p r (linked by `next`) with no source. A
/// `then` state so told dies, and tells its own reactions: a million-long
/// chain of `then`s on a promise that never settles would unwind a million
/// nested destructors. Only the outermost call fires; the calls it causes
/// append their reactions to the thread's list and return.
[[gnu::noinline]] inline void abandon(promise_reaction* r) noexcept {
  if (!r) return;
  promise_reaction* last = r;
  while (last->next) last = last->next;
  last->next = tl_abandoned.head;
  tl_abandoned.head = r;
  if (tl_abandoned.draining) return;
  tl_abandoned.draining = true;
  while (promise_reaction* first = tl_abandoned.head) {
    tl_abandoned.head = first->next;
    first->source = nullptr;
    first->fire(first);
  }
  tl_abandoned.draining = false;
}

/// A state whose status is this follows `target`: it adopted that pending
/// promise and gave it its reactions.
inline constexpr outcome_status aliased = outcome_status::taken;

template <class T>
class promise_state;

/// What a kind of promise state does: its handler ops (first, so that a
/// state's handler ops pointer leads back here), and, for a state that can
/// keep one consumer's callback itself instead of a reaction (a fused promise
/// chain), the entry that takes it (promise::then_callback; null for others).
/// It gets the callback as its raw word (callback::release_raw: a word stays
/// in a register where a callback object would be passed in memory), adopts
/// it and returns true, or leaves it and returns false.
template <class T>
struct promise_state_ops {
  handler_ops_for<T> handler;
  bool (*take_callback)(promise_state<T>* s, std::uintptr_t cb) = nullptr;
};

/// The shared state of promise<T>. It is also the handler of a callback<T>
/// (make_promise), and its reference count is the handler's: promise handles,
/// callbacks, pending reactions' sources and queued reactions each hold one.
template <class T>
class promise_state : public handler_for<T> {
public:
  using value_type = stored_t<T>;

  explicit promise_state(const promise_state_ops<T>* ops) noexcept : handler_for<T>{&ops->handler} {}

  /// The ops of this state's kind (handler ops is their first member).
  const promise_state_ops<T>& kind() const noexcept {
    static_assert(std::is_standard_layout_v<promise_state_ops<T>>);
    return *reinterpret_cast<const promise_state_ops<T>*>(this->ops);
  }
  promise_state(const promise_state&) = delete;
  promise_state& operator=(const promise_state&) = delete;

  ~promise_state() {
    if (status == outcome_status::fulfilled) [[likely]] {
      value.~value_type(); // a settled state has no reactions left
      return;
    }
    destroy_unusual();
  }

  /// The rest of the destructor: a rejected, aliased or never settled state.
  [[gnu::noinline]] void destroy_unusual() noexcept {
    if (status == outcome_status::rejected) {
      err.~error();
      return;
    }
    if (status == aliased) {
      // Release the alias chain in a loop: a million promises that adopted
      // one another must not be freed by a million nested destructors.
      promise_state* t = target;
      while (--t->refs == 0) {
        promise_state* next = t->status == aliased ? t->target : nullptr;
        if (next) { // so that its destructor leaves next to us: pending, with no reactions
          t->status = outcome_status::pending;
          t->reactions = nullptr;
        }
        t->ops->destroy(t);
        if (!next) break;
        t = next;
      }
      return; // an alias gave its reactions to its target
    }
    // Unsettled: the reactions will never run; let them release what they hold.
    abandon(reactions);
  }

  void add_ref() noexcept { ++this->refs; }
  void release() noexcept {
    if (--this->refs == 0) this->ops->destroy(this);
  }
  /// Nobody but the caller can read the outcome: it may be moved.
  bool unique() const noexcept { return this->refs == 1; }
  /// The caller may move the value out: nobody else can read it, or it
  /// cannot be copied (a move-only value goes to its first reader, even while
  /// a handle is still held; a second reader would find it moved from).
  bool may_take_value() const noexcept {
    if constexpr (copyable_v<value_type>)
      return unique();
    else
      return true;
  }
  bool pending() const noexcept { return status == outcome_status::pending; }

  /// The state that settles for this one: itself, or the end of its alias chain.
  promise_state* final_state() noexcept {
    promise_state* s = this;
    while (s->status == aliased) s = s->target;
    return s;
  }

  template <class... V>
  ASYNCSHIFT_FULFILL_INLINE void fulfill(V&&... v) {
    if (status != outcome_status::pending) return; // A+ 2.3.3.3.3: the first resolution wins
    promise_reaction* r = emplace_displacing(value, reactions, static_cast<V&&>(v)...); // the value takes their place
    status = outcome_status::fulfilled;
    flush(r);
  }

  /// fulfill(), for a caller that runs the reaction itself: when the state
  /// has exactly one reaction (not one that fires inline), it is returned,
  /// holding its reference and source (give_outcome_to), instead of being
  /// queued; otherwise fulfill() queues what it has and this returns null.
  /// (A promise chain whose last operation completes from the loop, with no
  /// microtask queued, runs the one reaction at once: chain_pstate.)
  template <class... V>
  promise_reaction* fulfill_keeping_reaction(V&&... v) {
    promise_reaction* r = reactions;
    if (status != outcome_status::pending || !r || r->next || fires_inline(r)) [[unlikely]] {
      fulfill(static_cast<V&&>(v)...);
      return nullptr;
    }
    emplace_displacing(value, reactions, static_cast<V&&>(v)...);
    status = outcome_status::fulfilled;
    give_outcome_to(r);
    return r;
  }

  void reject(error e) noexcept {
    if (status != outcome_status::pending) return;
    promise_reaction* r = emplace_displacing(err, reactions, std::move(e)); // the error takes their place
    status = outcome_status::rejected;
    if (!handled) watch_unhandled();
    flush(r);
  }

  /// Settles with the outcome of \p src (settled), moving it when \p src has
  /// no other reader.
  void settle_from(promise_state& src) {
    if (src.status == outcome_status::fulfilled) {
      if constexpr (copyable_v<value_type>) {
        if (src.unique())
          fulfill(std::move(src.value));
        else
          fulfill(std::as_const(src.value));
      } else {
        fulfill(std::move(src.value)); // may_take_value: to its first reader
      }
    } else {
      reject(src.unique() ? std::move(src.err) : error(src.err));
    }
  }

  /// Registers \p r (its fire and ctx set); runs it later, or queues it now
  /// when already settled.
  void attach(promise_reaction* r) {
    promise_state* s = this;
    if (status == aliased) [[unlikely]]
      s = final_state();
    s->handled = true;
    if (s->status == outcome_status::pending) {
      r->next = s->reactions;
      s->reactions = r;
    } else {
      s->schedule(r);
    }
  }

  /// Makes this (pending) state follow \p q (pending, final): our reactions
  /// run after q's own, when q settles, and later ones attach to q.
  void alias_to(promise_state* q) noexcept {
    if (promise_reaction* r = reactions) {
      while (r->next) r = r->next; // ours are newest first: they go in front of q's
      r->next = q->reactions;
      q->reactions = reactions;
      reactions = nullptr;
    }
    q->handled = q->handled || handled;
    q->add_ref();
    target = q;
    status = aliased;
  }

  /// The callback-handler entry: `cb(err)` rejects, `cb({}, v)` fulfills.
  template <class... V>
  static void on_callback(handler_for<T>* h, error&& e, V&&... v) {
    if (!e) return on_value(h, static_cast<V&&>(v)...);
    static_cast<promise_state*>(h)->reject(std::move(e));
  }
  /// The success entry (sink_callback::deliver_value): no error object.
  template <class... V>
  ASYNCSHIFT_INLINE static void on_value(handler_for<T>* h, V&&... v) {
    static_cast<promise_state*>(h)->fulfill(static_cast<V&&>(v)...);
  }

  outcome_status status = outcome_status::pending;
  /// A reaction was attached at some point: a rejection is not "unhandled".
  bool handled = false;
  /// Free for the derived state's own use (it sits in padding).
  std::uint8_t derived_byte = 0;
  /// What a state holds depends on its status: its reactions while pending
  /// (newest first; flush reverses them), then its value, its error, or the
  /// state it follows. One word for the reactions and the target: every state
  /// of a chain is 8 bytes smaller.
  union {
    promise_reaction* reactions = nullptr; // pending
    value_type value;
    error err;
    promise_state* target; // status == aliased
  };

private:
  /// \p r reads this settled state when it fires: it holds a reference.
  void give_outcome_to(promise_reaction* r) noexcept {
    add_ref();
    r->source = this;
  }
  void schedule(promise_reaction* r) {
    give_outcome_to(r);
    if (fires_inline(r)) [[unlikely]]
      return r->fire(r);
    loop::current().queue_microtask(r);
  }

  /// Runs \p r, the reactions a state had when it settled.
  ASYNCSHIFT_INLINE void flush(promise_reaction* r) {
    if (!r) return;
    if (!r->next) [[likely]] { // one reaction: the common case
      schedule(r);
      return;
    }
    flush_several(r);
  }
  /// The rest of flush(), out of line so that its common case saves no registers.
  [[gnu::noinline]] void flush_several(promise_reaction* r) {
    promise_reaction* ordered = nullptr;
    while (r) {
      promise_reaction* next = r->next;
      r->next = ordered;
      ordered = r;
      r = next;
    }
    while (ordered) {
      promise_reaction* next = ordered->next;
      schedule(ordered);
      ordered = next;
    }
  }

  void watch_unhandled() {
    add_ref();
    loop::current().watch_rejection(this, &check_unhandled);
  }
  static bool check_unhandled(void* p, bool report) {
    auto* s = static_cast<promise_state*>(p);
    const bool unhandled = report && !s->handled;
    if (unhandled) std::fprintf(stderr, "asyncshift: unhandled promise rejection: %s\n", s->err.message().c_str());
    s->release();
    return unhandled;
  }
};

/// The handler-ops table of a concrete state class: callbacks settle it
/// through Base::on_callback, and \p destroy frees it (the concrete class's
/// own static function: it knows its size).
template <class T, class Base>
constexpr promise_state_ops<T> state_ops(void (*destroy)(handler_for<T>*) noexcept,
                                         bool (*take_callback)(promise_state<T>*, std::uintptr_t) = nullptr) noexcept {
  if constexpr (std::is_void_v<T>)
    return {{&Base::template on_callback<>, destroy}, take_callback};
  else
    return {{&Base::template on_callback<T>, destroy}, take_callback};
}

/// A promise settled by a callback (make_promise) or made settled (resolve, reject).
template <class T>
class basic_promise_state final : public promise_state<T> {
public:
  basic_promise_state() noexcept : promise_state<T>(&ops_) {}

private:
  static void destroy(handler_for<T>* h) noexcept { pool_delete(static_cast<basic_promise_state*>(h)); }
  static constexpr promise_state_ops<T> ops_ = state_ops<T, promise_state<T>>(&destroy);
};

/// A promise settled by a callback, with a cleanup that runs, inline, when
/// the callback reports an error, before the promise rejects (on_error).
template <class T, class G>
class cleanup_promise_state final : public promise_state<T> {
public:
  explicit cleanup_promise_state(G g) : promise_state<T>(&ops_), cleanup_(std::move(g)) {}

  template <class... V>
  static void on_callback(handler_for<T>* h, error&& e, V&&... v) {
    if (!e) return on_value(h, static_cast<V&&>(v)...);
    static_cast<cleanup_promise_state*>(h)->fail(std::move(e));
  }
  /// Hides the base's: the cleanup goes first.
  template <class... V>
  ASYNCSHIFT_INLINE static void on_value(handler_for<T>* h, V&&... v) {
    auto* s = static_cast<cleanup_promise_state*>(h);
    s->cleanup_.drop();
    s->fulfill(static_cast<V&&>(v)...);
  }
  /// Fails (unless settled already): the cleanup first.
  void fail(error e) noexcept {
    cleanup_.fail(e);
    this->reject(std::move(e));
  }

private:
  static void destroy(handler_for<T>* h) noexcept { pool_delete(static_cast<cleanup_promise_state*>(h)); }
  static constexpr promise_state_ops<T> ops_ = state_ops<T, cleanup_promise_state>(&destroy);

  cleanup_slot<G> cleanup_;
};

/// tap_error's handler: sees the error, which then passes on unchanged.
template <class F>
struct tap_error_handler {
  F f;
};
/// finally's handler (one that returns nothing): runs on either outcome,
/// which then passes on unchanged.
template <class F>
struct finally_handler {
  F f;
};
template <class H>
struct is_tap : std::false_type {};
template <class F>
struct is_tap<tap_error_handler<F>> : std::true_type {};
template <class H>
struct is_finally : std::false_type {};
template <class F>
struct is_finally<finally_handler<F>> : std::true_type {};

/// The state of `source.then(on_value, on_error)`: a promise<U> that is also
/// the reaction waiting on the source (a promise<T>), with the handlers
/// inline. pass_through in either slot propagates that outcome unchanged.
///
/// When the handler returns an operation (promisify(start), with or without
/// on_error), this state starts it with a callback to itself: the operation
/// settles this state directly, with no promise state of its own to adopt
/// (and an on_error cleanup runs inline on failure, from where the handlers
/// were). The reactions waiting on this state still run from microtasks. The
/// handler is gone by then: the start function must own what it uses.
template <class T, class U, class OnValue, class OnError>
class then_state final : public promise_state<U>, public promise_reaction {
  using cleanup_type = typename value_cleanup<T, OnValue>::type;
  static constexpr bool has_cleanup = !std::is_void_v<cleanup_type>;
  /// What the room holds (derived_byte): the handlers, then perhaps the cleanup.
  enum : std::uint8_t { room_empty, room_handlers, room_cleanup };

public:
  template <class V, class E>
  then_state(V&& v, E&& e) : promise_state<U>(&ops_), room_(static_cast<V&&>(v), static_cast<E&&>(e)) {
    this->derived_byte = room_handlers;
    this->fire = &fire_reaction;
  }
  ~then_state() {
    drop_handlers();
    drop_cleanup();
    if constexpr (std::is_trivially_destructible_v<typename promise_state<U>::value_type>) {
      // How a then state ends whose handler returned a pending promise (not
      // an operation): following it, while it lives on (its operation holds it). Our
      // reference to it goes here, and promise_state's destructor, finding
      // nothing to destroy, does not call out of line for the alias.
      if (this->status == aliased && this->target->refs > 1) {
        --this->target->refs;
        this->status = outcome_status::fulfilled;
      }
    }
  }

  /// The callback-handler entries, while an operation the handler returned
  /// is in flight: as promise_state's, and a cleanup runs on failure first.
  template <class... V>
  static void on_callback(handler_for<U>* h, error&& e, V&&... v) {
    if (!e) return on_value(h, static_cast<V&&>(v)...);
    static_cast<then_state*>(h)->fail(std::move(e));
  }
  template <class... V>
  ASYNCSHIFT_INLINE static void on_value(handler_for<U>* h, V&&... v) {
    auto* s = static_cast<then_state*>(h);
    s->drop_cleanup();
    s->fulfill(static_cast<V&&>(v)...);
  }

private:
  void drop_handlers() noexcept {
    if (this->derived_byte == room_handlers) {
      this->derived_byte = room_empty;
      room_.handlers.destroy();
    }
  }
  void drop_cleanup() noexcept {
    if constexpr (has_cleanup) {
      if (this->derived_byte == room_cleanup) {
        this->derived_byte = room_empty;
        room_.cleanup.~cleanup_slot<cleanup_type>();
      }
    }
  }
  /// The operation failed (or its start threw): the cleanup first. It runs
  /// once (cleanup_slot), and not after a value (on_value dropped it).
  void fail(error e) noexcept {
    if constexpr (has_cleanup) {
      if (this->derived_byte == room_cleanup) room_.cleanup.fail(e);
    }
    this->reject(std::move(e));
  }

  static void fire_reaction(void* p) {
    auto* self = static_cast<then_state*>(static_cast<promise_reaction*>(p));
    auto* src = static_cast<promise_state<T>*>(self->source);
    if (!src) [[unlikely]] { // the source died unsettled: so do we, unless someone holds us
      self->drop_handlers();
      self->release();
      return;
    }
    if (src->status == outcome_status::fulfilled)
      self->on_fulfilled(*src);
    else
      self->on_rejected(*src);
    src->release();
    self->release();
  }

  void on_fulfilled(promise_state<T>& src) {
    if constexpr (is_finally<OnValue>::value) {
      run_finally(src);
    } else if constexpr (std::is_same_v<OnValue, pass_through>) {
      drop_handlers();
      pass_on(src);
    } else {
      run([&]() -> decltype(auto) { return invoke_with_value<T>(room_.handlers.h.on_value, src.value, src.may_take_value()); });
    }
  }

  void on_rejected(promise_state<T>& src) {
    if constexpr (is_finally<OnValue>::value) {
      run_finally(src);
    } else if constexpr (std::is_same_v<OnError, pass_through>) {
      drop_handlers();
      pass_on(src);
    } else if constexpr (is_tap<OnError>::value) {
      try {
        if constexpr (std::is_invocable_v<decltype(room_.handlers.h.on_error.f)&, const error&>)
          (void)room_.handlers.h.on_error.f(std::as_const(src.err));
        else
          (void)room_.handlers.h.on_error.f();
      } catch (...) {
        drop_handlers();
        this->reject(error_from_current_exception());
        return;
      }
      drop_handlers();
      pass_on(src);
    } else {
      run([&]() -> decltype(auto) { return invoke_with_error(room_.handlers.h.on_error, src.err, src.unique()); });
    }
  }

  void run_finally(promise_state<T>& src) {
    try {
      room_.handlers.h.on_value.f();
    } catch (...) {
      drop_handlers();
      this->reject(error_from_current_exception());
      return;
    }
    drop_handlers();
    pass_on(src);
  }

  /// Settles with the source's own outcome: its error, or (when T == U, the
  /// only case in which a value passes through) its value.
  void pass_on(promise_state<T>& src) noexcept {
    if (src.status == outcome_status::rejected) {
      this->reject(src.unique() ? std::move(src.err) : error(src.err));
      return;
    }
    if constexpr (std::is_same_v<T, U>) {
      try {
        this->settle_from(src);
      } catch (...) { // copying the value threw
        this->reject(error_from_current_exception());
      }
    }
  }

  /// Calls a handler and settles with what it returns: a value, nothing, or
  /// a promise to adopt. A handler that throws rejects.
  template <class Call>
  void run(Call&& call) {
    using R = decltype(call());
    try {
      if constexpr (std::is_void_v<R>) {
        static_assert(std::is_void_v<U>, "this handler must return a value or a promise, like the other one");
        call();
        drop_handlers();
        this->fulfill();
      } else if constexpr (is_promise<std::remove_cvref_t<R>>::value) {
        std::remove_cvref_t<R> returned = call();
        drop_handlers();
        adopt(std::move(returned));
      } else if constexpr (thenable<std::remove_cvref_t<R>>) {
        // A+ 2.3.3.3: hand the thenable a callback that settles us (this
        // state is a callback handler); the first outcome wins, and if
        // then_callback throws first, we reject (2.3.3.3.4).
        std::remove_cvref_t<R> x = call();
        drop_handlers();
        this->add_ref();
        auto cb = callback_t<U>::adopt_owning(static_cast<handler_for<U>*>(this));
        std::move(x).then_callback(std::move(cb));
      } else if constexpr (op_result<std::remove_cvref_t<R>>::value) {
        std::remove_cvref_t<R> op = call();
        drop_handlers();
        start(std::move(op));
      } else {
        static_assert(!std::is_void_v<U>, "this handler must return nothing (or a promise<void>), like the other one");
        // By value: a returned reference could point into the captures we drop.
        std::remove_cvref_t<R> r = call();
        drop_handlers();
        this->fulfill(std::move(r));
      }
    } catch (...) {
      drop_handlers();
      this->reject(error_from_current_exception());
    }
  }

  /// A+ 2.3.2: take on the outcome of \p q: now if it is settled, otherwise
  /// by becoming its alias.
  ASYNCSHIFT_INLINE void adopt(promise<U> q);
  /// Starts the operation the handler returned, with a callback to this state.
  template <class Op>
  void start(Op&& op);

  static void destroy(handler_for<U>* h) noexcept { pool_delete(static_cast<then_state*>(h)); }
  static constexpr promise_state_ops<U> ops_ = state_ops<U, std::conditional_t<has_cleanup, then_state, promise_state<U>>>(&destroy);

  [[no_unique_address]] then_room<handlers_slot_t<OnValue, OnError>, cleanup_type> room_;
};

/// Hands the outcome of \p src (settled) to \p cb: moved out when nobody
/// else can read it, copied otherwise. The caller's reference to \p src is
/// released before \p cb runs (which may free src): then_callback's reaction,
/// and a fused chain's kept callback (promise_chain.hpp).
template <class T>
ASYNCSHIFT_INLINE void deliver_settled(promise_state<T>* src, callback_t<T>& cb) {
  if (src->status == outcome_status::fulfilled) {
    if constexpr (std::is_void_v<T>) {
      src->release();
      cb({});
    } else {
      T v = take_or_copy(src->value, src->may_take_value());
      src->release();
      cb({}, std::move(v));
    }
  } else {
    error e = src->unique() ? std::move(src->err) : error(src->err);
    src->release();
    cb(std::move(e));
  }
}

/// then_callback's reaction: delivers the outcome to a callback.
template <class T>
struct callback_reaction final : promise_reaction {
  callback_t<T> cb;

  explicit callback_reaction(callback_t<T> c) noexcept : cb(std::move(c)) { fire = &fire_callback; }

  static void fire_callback(void* p) {
    auto* self = static_cast<callback_reaction*>(static_cast<promise_reaction*>(p));
    auto* src = static_cast<promise_state<T>*>(self->source);
    callback_t<T> cb = std::move(self->cb);
    pool_delete(self);
    if (src) deliver_settled(src, cb);
  }
};

// ---- all, all_settled, race, any ----------------------------------------

enum class join_mode { all, all_settled, race, any };

template <class T, join_mode M>
struct join_result {
  using type = T; // race, any
};
template <class T>
struct join_result<T, join_mode::all> {
  using type = std::conditional_t<std::is_void_v<T>, void, std::vector<T>>;
};
template <class T>
struct join_result<T, join_mode::all_settled> {
  using type = std::vector<settled_t<T>>;
};
template <class T, join_mode M>
using join_result_t = typename join_result<T, M>::type;

/// The message of any()'s rejection when every input rejected (JavaScript's AggregateError).
inline constexpr const char* all_rejected_message = "AggregateError: All promises were rejected";

/// The state of all / all_settled / race / any over n promises: one slot
/// (a reaction) per input, each holding a reference to the join while it waits.
/// all()'s slot over nothing or a trivially copyable value runs no user code
/// (it counts, stores the value, and may settle the join, whose own
/// reactions then wait for microtasks as any promise's), so it fires inside
/// its input's settlement: no microtask per input, which is a fan-out's
/// whole cost of waiting (docs/runtime.md, Round 21; slots_fire_inline).
template <class T, join_mode M>
class join_state final : public promise_state<join_result_t<T, M>> {
  using R = join_result_t<T, M>;

public:
  explicit join_state(std::size_t n)
      : promise_state<R>(&ops_), remaining_(n), ctx_(current_context()), slots_(n, this) {
    if constexpr (M == join_mode::all && !std::is_void_v<T> && !values_in_slots) values_.expect(n);
    if constexpr (M == join_mode::all_settled) settled_.resize(n);
  }

  static promise<R> start(std::vector<promise<T>>&& inputs) {
    return start_n(inputs.size(), [&inputs](std::size_t i) { return std::move(inputs[i]); });
  }
  /// Makes the join of make(0) ... make(n - 1), attaching each input as it is
  /// made (no vector of handles: a fan-out holds only the join's slots).
  template <class Make>
  static promise<R> start_n(std::size_t n, Make&& make);

private:
  /// all() over small trivially copyable values (an int64 fan-out) keeps each
  /// value in its input's slot, which is not needed once it has fired, and
  /// makes the result vector once, at the end: a fan-out's peak then holds no
  /// result vector beside the operations still pending. (A slot is a
  /// promise_reaction and nothing more.)
  static constexpr bool values_in_slots = [] {
    if constexpr (M != join_mode::all || std::is_void_v<T>)
      return false;
    else
      return std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(promise_reaction) &&
             alignof(T) <= alignof(promise_reaction);
  }();

  /// Whether a slot fires inside its input's settlement: only where taking
  /// an input runs no code of the user's (all() of nothing, or of values it
  /// keeps in its slots). A copy constructor could settle another input of
  /// the same join while the join is still making its outcome, and the code
  /// settling an input still holds it (so a move-only value would look
  /// shared to race and any): those joins take their inputs from
  /// microtasks, as before Round 21.
  static constexpr bool slots_fire_inline = M == join_mode::all && (std::is_void_v<T> || values_in_slots);
  static constexpr std::uintptr_t slot_tag = slots_fire_inline ? fires_inline_bit : 0;

  /// One input's reaction: 24 bytes, and a million-op fan-out has a million
  /// of them. Every slot has the same join and the same context, so a slot
  /// keeps its join in the reaction's context word (the join keeps the
  /// context) and finds its index from its place in the array.
  struct slot : promise_reaction {
    explicit slot(join_state* j) noexcept {
      this->fire = &fire_slot;
      this->ctx = reinterpret_cast<context*>(reinterpret_cast<std::uintptr_t>(j) | slot_tag);
    }
    join_state* join() const noexcept {
      return reinterpret_cast<join_state*>(reinterpret_cast<std::uintptr_t>(this->ctx) - slot_tag);
    }
  };
  static_assert(sizeof(slot) == sizeof(promise_reaction) && alignof(slot) == alignof(promise_reaction));

  static void fire_slot(void* p) {
    auto* s = static_cast<slot*>(static_cast<promise_reaction*>(p));
    join_state* join = s->join();
    auto* src = static_cast<promise_state<T>*>(s->source);
    if constexpr (slots_fire_inline) {
      // The common case, a value that is not the last, cannot throw and
      // settles nothing: stored, counted, done (report() is the rest).
      if (src && src->status == outcome_status::fulfilled && join->remaining_ > 1) [[likely]] {
        if constexpr (values_in_slots)
          ::new (static_cast<void*>(s)) T(src->value); // in the slot, which has fired (as report() does)
        --join->remaining_;
        src->release();
        join->release();
        return;
      }
    }
    take_outcome(join, s, src);
  }

  /// The rest of fire_slot, out of line so that its common case saves no registers.
  [[gnu::noinline]] static void take_outcome(join_state* join, slot* s, promise_state<T>* src) {
    if (src) {
      // The join settles in its own context. A slot that fires inside its
      // input's settlement gives the settling code its context back after;
      // one run from a microtask found its ctx word (the join) current.
      context* const back = slots_fire_inline ? detail::tl_context : join->ctx_;
      detail::tl_context = join->ctx_;
      try {
        join->report(join->slots_.index_of(s), *src);
      } catch (...) {
        join->reject(error_from_current_exception());
      }
      detail::tl_context = back;
      src->release();
    }
    join->release();
  }

  void report(std::size_t i, promise_state<T>& src) {
    const bool ok = src.status == outcome_status::fulfilled;
    if constexpr (M == join_mode::all) {
      if (!ok) return this->reject(error(src.err));
      if constexpr (values_in_slots)
        ::new (static_cast<void*>(slots_.get() + i)) T(src.value); // the slot has fired: its bytes are free
      else if constexpr (!std::is_void_v<T>)
        values_.set(i, take_or_copy(src.value, src.may_take_value()));
      if (--remaining_ == 0 && this->pending()) {
        if constexpr (std::is_void_v<T>) {
          this->fulfill();
        } else if constexpr (values_in_slots) {
          this->fulfill(take_values_from_slots<T>(slots_));
        } else {
          this->fulfill(values_.take());
        }
      }
    } else if constexpr (M == join_mode::all_settled) {
      if constexpr (std::is_void_v<T>)
        settled_[i] = ok ? error{} : error(src.err);
      else if (ok)
        settled_[i] = result<T>(error{}, take_or_copy(src.value, src.may_take_value()));
      else
        settled_[i] = result<T>(error(src.err));
      if (--remaining_ == 0) this->fulfill(std::move(settled_));
    } else if constexpr (M == join_mode::race) {
      (void)i;
      if (this->pending()) this->settle_from(src);
    } else { // any
      (void)i;
      if (ok) {
        if (this->pending()) this->settle_from(src);
      } else if (--remaining_ == 0) {
        this->reject(error(all_rejected_message));
      }
    }
  }

  static void destroy(handler_for<R>* h) noexcept { pool_delete(static_cast<join_state*>(h)); }
  static constexpr promise_state_ops<R> ops_ = state_ops<R, promise_state<R>>(&destroy);

  std::size_t remaining_;
  context* ctx_; // the context the join settles in (its slots' ctx words hold the join)
  pooled_array<slot> slots_;
  std::conditional_t<M == join_mode::all && !std::is_void_v<T> && !values_in_slots, join_values<T>, empty_value> values_;
  std::conditional_t<M == join_mode::all_settled, std::vector<settled_t<T>>, empty_value> settled_;
};

/// co_await on a promise: the awaiter is the reaction (it lives in the
/// coroutine frame, so awaiting allocates nothing). Like JavaScript's await,
/// it always suspends and resumes from a microtask.
template <class T, bool Settled>
class promise_awaiter : private promise_reaction {
public:
  explicit promise_awaiter(promise_state<T>* s) noexcept : state_(s) {}
  promise_awaiter(promise_awaiter&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  promise_awaiter& operator=(promise_awaiter&&) = delete;
  ~promise_awaiter() {
    if (state_) state_->release();
  }

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    waiter_ = h;
    fire = &resume;
    ctx = current_context();
    state_->attach(this);
  }
  auto await_resume() {
    // The settled state is the reaction's source (state_ may be an alias of it).
    promise_state<T>& s = *static_cast<promise_state<T>*>(this->source);
    s.release(); // the reference the microtask held
    const bool ok = s.status == outcome_status::fulfilled;
    if constexpr (Settled) {
      if constexpr (std::is_void_v<T>)
        return ok ? error{} : error(s.err);
      else if (ok)
        return result<T>(error{}, take_or_copy(s.value, s.may_take_value()));
      else
        return result<T>(error(s.err));
    } else {
      if (!ok) [[unlikely]]
        throw_error(s.err);
      if constexpr (!std::is_void_v<T>) return take_or_copy(s.value, s.may_take_value());
    }
  }

private:
  static void resume(void* p) {
    auto* self = static_cast<promise_awaiter*>(static_cast<promise_reaction*>(p));
    self->waiter_.resume();
  }

  promise_state<T>* state_;
  std::coroutine_handle<> waiter_;
};

} // namespace detail

/// A JavaScript promise of a T (see the top of this file).
template <class T>
class promise {
public:
  using value_type = T;
  using state_type = detail::promise_state<T>;

  /// An empty handle (valid() is false); assign a promise to it.
  promise() noexcept = default;
  /// Adopts one reference to \p s.
  explicit promise(state_type* s) noexcept : s_(s) {}
  promise(const promise& other) noexcept : s_(other.s_) {
    if (s_) s_->add_ref();
  }
  promise(promise&& other) noexcept : s_(std::exchange(other.s_, nullptr)) {}
  promise& operator=(promise other) noexcept {
    std::swap(s_, other.s_);
    return *this;
  }
  ~promise() {
    if (s_) s_->release();
  }

  /// A fulfilled promise.
  static promise resolve()
    requires std::is_void_v<T>
  {
    auto* s = detail::pool_new<detail::basic_promise_state<T>>();
    s->fulfill();
    return promise(s);
  }
  template <class V = T>
    requires(!std::is_void_v<T> && std::is_constructible_v<detail::stored_t<T>, V &&>)
  static promise resolve(V&& value) {
    auto* s = detail::pool_new<detail::basic_promise_state<T>>();
    promise p(s);
    s->fulfill(static_cast<V&&>(value));
    return p;
  }
  /// Promise.resolve(p) is p.
  static promise resolve(promise p) noexcept { return p; }
  /// A rejected promise.
  static promise reject(error e) {
    auto* s = detail::pool_new<detail::basic_promise_state<T>>();
    s->reject(std::move(e));
    return promise(s);
  }

  /// Runs \p on_value with the value (or with nothing, if it takes nothing)
  /// once fulfilled; the result is a promise of what it returns (a returned
  /// promise is adopted). A rejection passes through.
  template <class F>
  auto then(F on_value) const {
    using U = typename detail::promise_of_t<detail::value_result_t<T, F>>::value_type;
    return chain<U>(std::move(on_value), detail::pass_through{});
  }
  /// As above, and \p on_error(error) handles a rejection, returning the same
  /// kind of thing as \p on_value (it recovers).
  template <class F, class G>
  auto then(F on_value, G on_error) const {
    using U = typename detail::promise_of_t<detail::value_result_t<T, F>>::value_type;
    return chain<U>(std::move(on_value), std::move(on_error));
  }
  /// Handles a rejection: \p on_error(error) returns a T, a promise<T>, or
  /// (for promise<void>) nothing. A fulfillment passes through.
  template <class G>
  promise catch_error(G on_error) const {
    return chain<T>(detail::pass_through{}, std::move(on_error));
  }
  /// Runs \p f(const error&) on rejection (for cleanup; what it returns is
  /// ignored and not waited for); the result stays rejected with the same
  /// error. A fulfillment passes through.
  template <class F>
  promise tap_error(F f) const {
    return chain<T>(detail::pass_through{}, detail::tap_error_handler<F>{std::move(f)});
  }
  /// Runs \p f() on either outcome, then passes the outcome on. If f returns
  /// a promise, waits for it first (and rejects if it rejects); if f throws,
  /// rejects with that.
  template <class F>
  promise finally(F f) const {
    using R = std::invoke_result_t<F&>;
    if constexpr (std::is_void_v<R>) {
      return chain<T>(detail::finally_handler<F>{std::move(f)}, detail::pass_through{});
    } else {
      static_assert(detail::is_promise<std::remove_cvref_t<R>>::value, "finally's callable returns nothing or a promise");
      auto shared = std::make_shared<F>(std::move(f));
      if constexpr (std::is_void_v<T>) {
        return then([shared] { return (*shared)().then([] {}); },
                    [shared](error e) { return (*shared)().then([e]() -> promise { return promise::reject(e); }); });
      } else {
        return then([shared](T v) { return (*shared)().then([v = std::move(v)]() mutable { return std::move(v); }); },
                    [shared](error e) { return (*shared)().then([e]() -> promise { return promise::reject(e); }); });
      }
    }
  }

  /// Delivers the outcome to \p cb (`cb({}, v)` or `cb(err)`), from a microtask.
  ASYNCSHIFT_INLINE void then_callback(detail::callback_t<T> cb) const {
    assert(s_ && "then_callback on an empty promise");
    if (auto* take = s_->kind().take_callback) [[unlikely]] { // a fused chain may keep it
      const std::uintptr_t word = cb.release_raw();
      if (take(s_, word)) return;
      cb = detail::callback_t<T>::adopt_raw(word);
    }
    auto* r = detail::pool_new<detail::callback_reaction<T>>(std::move(cb));
    r->ctx = current_context();
    s_->attach(r);
  }

  /// Fulfills with every value in order (nothing, for promise<void>) when all
  /// fulfill; rejects with the first rejection. The others still run.
  static promise<detail::join_result_t<T, detail::join_mode::all>> all(std::vector<promise> ps) {
    return detail::join_state<T, detail::join_mode::all>::start(std::move(ps));
  }
  /// all() of make(0) ... make(n - 1), each made and joined in turn, as
  /// JavaScript's Promise.all over an iterable: generated fan-outs use it,
  /// so that no vector of n promise handles is built and walked again.
  /// (make may return a fused chain of T: promise_chain.hpp.)
  template <class Make>
    requires detail::is_promise<std::invoke_result_t<Make&, std::size_t>>::value &&
             std::is_same_v<typename std::invoke_result_t<Make&, std::size_t>::value_type, T>
  static promise<detail::join_result_t<T, detail::join_mode::all>> all(std::size_t n, Make make) {
    return detail::join_state<T, detail::join_mode::all>::start_n(n, make);
  }
  /// Fulfills, when every input has settled, with each outcome as a value
  /// (asyncshift::error for promise<void>, result<T> otherwise). Never rejects.
  static promise<std::vector<settled_t<T>>> all_settled(std::vector<promise> ps) {
    return detail::join_state<T, detail::join_mode::all_settled>::start(std::move(ps));
  }
  /// Settles like the first input to settle. With no inputs it stays pending
  /// forever, as in JavaScript.
  static promise race(std::vector<promise> ps) { return detail::join_state<T, detail::join_mode::race>::start(std::move(ps)); }
  /// Fulfills like the first input to fulfill; rejects with
  /// "AggregateError: All promises were rejected" when all reject (at once
  /// when there are none).
  static promise any(std::vector<promise> ps) { return detail::join_state<T, detail::join_mode::any>::start(std::move(ps)); }

  /// Awaiting yields the value or throws error_exception; it always resumes
  /// from a microtask, as JavaScript's await does.
  detail::promise_awaiter<T, false> operator co_await() const& noexcept {
    s_->add_ref();
    return detail::promise_awaiter<T, false>(s_);
  }
  detail::promise_awaiter<T, false> operator co_await() && noexcept {
    return detail::promise_awaiter<T, false>(std::exchange(s_, nullptr));
  }

  bool valid() const noexcept { return s_ != nullptr; }
  bool is_pending() const noexcept { return s_->final_state()->status == detail::outcome_status::pending; }
  bool is_fulfilled() const noexcept { return s_->final_state()->status == detail::outcome_status::fulfilled; }
  bool is_rejected() const noexcept { return s_->final_state()->status == detail::outcome_status::rejected; }
  /// Marks the promise handled: its rejection will not be reported (for a
  /// promise whose failure is deliberately ignored).
  void ignore_rejection() const noexcept { s_->final_state()->handled = true; }

  /// Low level: the state (no reference is taken or given).
  state_type* state() const noexcept { return s_; }
  /// Low level: gives up the reference (the caller releases it).
  state_type* release() noexcept { return std::exchange(s_, nullptr); }

private:
  template <class U, class OnValue, class OnError>
  promise<U> chain(OnValue&& on_value, OnError&& on_error) const {
    assert(s_ && "then on an empty promise");
    using S = detail::then_state<T, U, std::decay_t<OnValue>, std::decay_t<OnError>>;
    S* d = detail::pool_new<S>(static_cast<OnValue&&>(on_value), static_cast<OnError&&>(on_error));
    promise<U> result(d); // one reference for the handle
    d->add_ref();         // and one for the source, until the reaction runs
    d->ctx = current_context();
    s_->attach(d);
    return result;
  }

  state_type* s_ = nullptr;
};

template <class T, class U, class OnValue, class OnError>
ASYNCSHIFT_INLINE void detail::then_state<T, U, OnValue, OnError>::adopt(promise<U> q) {
  if (!q.valid()) {
    this->reject(error("TypeError: a handler returned an empty promise"));
    return;
  }
  promise_state<U>* qs = q.state()->final_state();
  if (qs == this) {
    this->reject(error("TypeError: Chaining cycle detected for promise")); // A+ 2.3.1
    return;
  }
  if (!qs->pending()) {
    qs->handled = true;
    this->settle_from(*qs); // our handle q is its only other reader, if unique
    return;
  }
  this->alias_to(qs);
}

template <class T, class F>
promise<T> make_promise(callback_op<T, F>&& op);
template <class T, class F, class G>
promise<T> make_promise(cleanup_op<T, F, G>&& op);

/// The handler returned an operation: start it with a callback to this
/// state, which settles when the operation completes (its reactions then run
/// from microtasks, as always).
template <class T, class U, class OnValue, class OnError>
template <class Op>
void detail::then_state<T, U, OnValue, OnError>::start(Op&& op) {
  using G = typename op_result<std::remove_cvref_t<Op>>::cleanup;
  if constexpr (!std::is_void_v<G> && !std::is_same_v<G, cleanup_type>) {
    adopt(asyncshift::make_promise(std::move(op))); // a cleanup this state has no room for (the error handler's)
  } else {
    auto start = std::move(op).take_start();
    if constexpr (!std::is_void_v<G>) {
      ::new (static_cast<void*>(std::addressof(room_.cleanup))) cleanup_slot<G>(std::move(op).take_cleanup());
      this->derived_byte = room_cleanup;
    }
    start_operation<U>(this, start, [this](asyncshift::error e) { fail(std::move(e)); });
  }
}

template <class T, detail::join_mode M>
template <class Make>
promise<detail::join_result_t<T, M>> detail::join_state<T, M>::start_n(std::size_t n, Make&& make) {
  auto* j = pool_new<join_state>(n);
  promise<R> result(j);
  if (n == 0) {
    if constexpr (M == join_mode::all) {
      if constexpr (std::is_void_v<T>)
        j->fulfill();
      else
        j->fulfill(std::vector<T>{});
    } else if constexpr (M == join_mode::all_settled) {
      j->fulfill(std::vector<settled_t<T>>{});
    } else if constexpr (M == join_mode::any) {
      j->reject(error(all_rejected_message));
    }
    return result; // race of nothing: pending forever
  }
  for (std::size_t i = 0; i < n; ++i) {
    // If make throws, the exception leaves with our handle: the join then
    // lives until the inputs attached so far have settled, and nobody waits.
    const promise<T> input = make(i);
    assert(input.valid() && "an empty promise in a combinator");
    slot& s = j->slots_[i];
    j->add_ref();
    input.state()->attach(&s);
  }
  return result;
}

/// A promise and the right to settle it (the Promises/A+ test adapter's
/// `deferred`, bluebird's `Promise.defer`): for code that settles a promise
/// from somewhere other than a callback. Copies share the promise; resolve
/// and reject may be called any number of times, and the first call wins.
template <class T = void>
class deferred {
public:
  deferred() : s_(detail::pool_new<detail::basic_promise_state<T>>()) {}
  deferred(const deferred& other) noexcept : s_(other.s_) { s_->add_ref(); }
  deferred& operator=(deferred other) noexcept {
    std::swap(s_, other.s_);
    return *this;
  }
  ~deferred() {
    if (s_) s_->release();
  }

  promise<T> get_promise() const noexcept {
    s_->add_ref();
    return promise<T>(s_);
  }
  void resolve() const
    requires std::is_void_v<T>
  {
    s_->fulfill();
  }
  template <class V = T>
    requires(!std::is_void_v<T> && std::is_constructible_v<detail::stored_t<T>, V &&>)
  void resolve(V&& value) const {
    s_->fulfill(static_cast<V&&>(value));
  }
  /// Resolves with another promise (JavaScript's `resolve(p)`, A+ 2.3.2):
  /// this one settles as \p p does. It counts as the first call even while
  /// \p p is pending, so later calls are ignored; an empty \p p, or this
  /// deferred's own promise, rejects with a TypeError (A+ 2.3.1).
  void resolve(const promise<T>& p) const {
    if (!s_->pending()) return;
    if (!p.valid()) return s_->reject(error("TypeError: resolved with an empty promise"));
    detail::promise_state<T>* ps = p.state()->final_state();
    if (ps == s_) return s_->reject(error("TypeError: Chaining cycle detected for promise"));
    if (!ps->pending()) {
      ps->handled = true;
      s_->settle_from(*ps);
      return;
    }
    s_->alias_to(ps);
  }
  void reject(error e) const noexcept { s_->reject(std::move(e)); }

private:
  detail::basic_promise_state<T>* s_;
};

/// Starts a callback-style operation and returns a promise of its outcome.
/// \p start receives a callback<T> (callback<> for void) and is called at
/// once; whenever the callback is called (even synchronously), the promise
/// settles. If \p start throws, the promise rejects (unless already settled).
template <class T = void, class F>
promise<T> make_promise(F&& start) {
  auto* s = detail::pool_new<detail::basic_promise_state<T>>();
  promise<T> p(s);
  detail::start_operation<T>(s, start, [s](error e) { s->reject(std::move(e)); });
  return p;
}

/// As above, and \p cleanup (made by on_error) runs when the operation
/// fails, inline, before the promise rejects: `make_promise(start).tap_error(f)`
/// without a second state and a microtask.
template <class T = void, class F, class G>
promise<T> make_promise(F&& start, on_error_cleanup<G> cleanup) {
  auto* s = detail::pool_new<detail::cleanup_promise_state<T, G>>(std::move(cleanup.f));
  promise<T> p(s);
  detail::start_operation<T>(s, start, [s](error e) { s->fail(std::move(e)); });
  return p;
}

/// The promise of an operation made by promisify: it starts now, as
/// make_promise(start) does (a then state starts one its handler returns
/// itself; this is for the error handler's, whose cleanup it has no room for).
template <class T, class F>
promise<T> make_promise(callback_op<T, F>&& op) {
  return make_promise<T>(std::move(op).take_start());
}
/// As above, and \p cleanup (made by on_error) runs inline when the
/// operation fails, before the promise rejects: generated promise code's
/// `make_promise(when_all(n, make), on_error(g))` for a fan-out whose branches
/// are one operation each (fanout.hpp): the operations complete the join
/// directly, with no promise per branch and no second state for g.
template <class T, class F, class G>
promise<T> make_promise(callback_op<T, F>&& op, on_error_cleanup<G> cleanup) {
  return make_promise<T>(std::move(op).take_start(), std::move(cleanup));
}
/// As above, with the operation's on_error cleanup.
template <class T, class F, class G>
promise<T> make_promise(cleanup_op<T, F, G>&& op) {
  return make_promise<T>(std::move(op).take_start(), on_error_cleanup<G>{std::move(op).take_cleanup()});
}

/// The outcome of \p p as a value: a promise that always fulfills, with an
/// asyncshift::error (for promise<void>; empty on success) or a result<T>.
/// Chains use it where a continuation reads the error itself
/// (`settle(p).then([](result<T> r) { ... })`); `co_await settle(p)` yields
/// the value.
template <class T>
promise<settled_t<T>> settle(const promise<T>& p) {
  if constexpr (std::is_void_v<T>)
    return p.then([] { return error{}; }, [](error e) { return e; });
  else
    return p.then([](T&& v) { return result<T>(error{}, std::move(v)); }, [](error e) { return result<T>(std::move(e)); });
}

/// As above, for a promise nobody else holds (`co_await settle(make_promise<T>(...))`):
/// its handle goes before the value arrives, so a move-only value moves.
template <class T>
promise<settled_t<T>> settle(promise<T>&& p) {
  const promise<T> last = std::move(p);
  return settle(last);
}

namespace detail {
/// What a variadic all() keeps: the values that have arrived, how many have
/// not, and the promise of the tuple. Shared by the inputs' handlers.
template <class... T>
struct promise_tuple_join {
  using tuple_type = std::tuple<tuple_element_for<T>...>;
  deferred<tuple_type> out;
  std::tuple<std::optional<tuple_element_for<T>>...> values;
  std::size_t remaining = sizeof...(T);

  template <std::size_t I, class V>
  void set(V&& v) {
    std::get<I>(values).emplace(static_cast<V&&>(v));
    if (--remaining != 0) return;
    [this]<std::size_t... J>(std::index_sequence<J...>) {
      out.resolve(tuple_type(std::move(*std::get<J>(values))...));
    }(std::index_sequence_for<T...>{});
  }
};

template <std::size_t I, class Join, class U>
void join_tuple_input(const std::shared_ptr<Join>& j, const promise<U>& p) {
  auto on_error = [j](error e) { j->out.reject(std::move(e)); };
  if constexpr (std::is_void_v<U>)
    static_cast<void>(p.then([j] { j->template set<I>(std::monostate{}); }, std::move(on_error)));
  else
    static_cast<void>(p.then([j](U v) { j->template set<I>(std::move(v)); }, std::move(on_error)));
}
} // namespace detail

/// Promise.all over promises of different types: a promise of the tuple of
/// their values in argument order (std::monostate for a promise<void>), or
/// of the first rejection. `promise<T>::all(std::vector<promise<T>>)` is the
/// form for many promises of one type.
template <class... T>
  requires(sizeof...(T) >= 1)
promise<std::tuple<detail::tuple_element_for<T>...>> all(const promise<T>&... ps) {
  auto j = std::make_shared<detail::promise_tuple_join<T...>>();
  auto result = j->out.get_promise();
  [&]<std::size_t... I>(std::index_sequence<I...>) { (detail::join_tuple_input<I>(j, ps), ...); }(std::index_sequence_for<T...>{});
  return result;
}

/// Promise.allSettled over promises of different types: a promise that
/// fulfills, once every input has settled, with the tuple of their outcomes
/// (settle(): an asyncshift::error for a promise<void>, a result<T> otherwise).
template <class... T>
  requires(sizeof...(T) >= 1)
promise<std::tuple<settled_t<T>...>> all_settled(const promise<T>&... ps) {
  return all(settle(ps)...);
}

/// The unhandled rejections the current loop has reported.
inline std::uint64_t unhandled_rejections() { return loop::current().unhandled_rejections(); }

} // namespace asyncshift
