// A chain of promise reactions fused into one state.
//
//   asyncshift::promise<> p = asyncshift::make_promise_chain<std::int64_t>([&](auto cb) { put(std::move(cb)); })
//                                 .then([=](std::int64_t id) { return asyncshift::promisify<row>(...); })
//                                 .then([=](row r) { ... });
//
// means what `make_promise(start).then(f1).then(f2)` means, for a chain that
// is built in one expression and handed on whole (generated code returns
// it). Built with promise::then, each step is a state of its own: allocated,
// attached to its source, reference-counted and freed. Here the handlers wait
// in one state, built when the chain becomes a promise<U> (the conversion
// starts the first operation), and each operation a handler returns
// completes that state directly, at the step it belongs to: one allocation
// for the chain, where a chain of n thens made n + 1.
//
// Timing is a then chain's: each handler runs from its own microtask, queued
// when the value it takes arrives (an operation's callback, a plain value a
// handler returned, a returned promise that was settled already), or it runs
// from the microtask of a returned promise's settlement; every handler runs
// in the context the chain was converted in, as every `then` of one
// expression would. An operation that completes from the loop as its timer's
// last act, with no microtask queued (a runtime op that takes its handler as
// a template parameter), runs that microtask's work at once instead: the
// next handler, or at the end the chain's promise's one reaction. Nothing
// could run between the two (the loop drains its microtasks right after the
// timer), and the stack holds only the loop's code, which is what
// Promises/A+ 2.2.4 asks; a completion from user code still takes the hop.
// A value a handler returns (or a settled promise it returns) is handed on
// the same way: a handler only ever runs from the loop, so once it has
// returned, and if it queued no microtask, the next handler (or the
// promise's one reaction) runs at once.
// What a handler may return is what a `then` handler may, but a thenable: a
// value or nothing, a promise (adopted, A+ 2.3.2; a chain converts), or an
// operation (`promisify(start[, on_error(g)])`: started with a callback to
// the step; `g` runs inline if it fails).
//
// A failure (an operation's error, a handler's exception, a returned promise
// that rejects) rejects the chain's promise at once: the handlers still
// waiting are destroyed, where a then chain would pass the rejection down its
// states one microtask each (the same outcome, reached sooner). An unhandled
// rejection is reported as any promise's. Each handler is destroyed as soon
// as it has run.
//
// The lazy builder (promise_chain) holds the first operation's start and the
// handlers, and nothing has started until it converts: keep it in one
// expression (`return make_promise_chain(...).then(...);`, or `.start()`).
#pragma once

#include "asyncshift/context.hpp"
#include "asyncshift/detail/chain_steps.hpp"
#include "asyncshift/loop.hpp"
#include "asyncshift/on_error.hpp"
#include "asyncshift/promise.hpp"
#include "asyncshift/promisify.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

namespace asyncshift {

namespace detail {

/// The value type a promise handler's result R hands the next step.
template <class R>
using promise_chain_value_t = typename promise_of_t<R>::value_type;
template <class T, class... Fs>
using promise_chain_types = chain_types_by<promise_chain_value_t, T, Fs...>;

/// Room for one value of any of the types \p L (void: none).
template <class L>
struct value_room;
template <class... T>
struct value_room<type_list<T...>> {
  alignas(stored_t<T>...) std::byte bytes[std::max({sizeof(stored_t<T>)...})];
};

/// The state of a fused promise chain: the promise_state<U> of its end (what
/// the chain's promise handle holds), the handlers and step sinks of
/// chain_core, one reaction (the microtask that runs the next handler, or
/// what waits on a promise a handler returned) and room for the value the
/// next handler takes while that microtask waits.
template <class T0, class G0, class... Fs>
class chain_pstate final
    : public promise_state<typename type_at<sizeof...(Fs), typename promise_chain_types<T0, Fs...>::values>::type>,
      public chain_core<chain_pstate<T0, G0, Fs...>, promise_chain_types<T0, Fs...>, G0, Fs...>,
      private promise_reaction {
  using types = promise_chain_types<T0, Fs...>;
  using core = chain_core<chain_pstate, types, G0, Fs...>;
  friend core;
  template <class, std::size_t, class>
  friend struct chain_sink;
  using core::N;
  template <std::size_t I>
  using value_t = typename core::template value_t<I>;
  static constexpr std::uint8_t no_value = 0xff;

public:
  using result_type = value_t<N>;
  using base = promise_state<result_type>;
  using base::add_ref;
  using base::release;

  /// \p ctx: where every handler runs.
  template <class... H, class G>
  chain_pstate(std::tuple<H...>&& handlers, G&& cleanup, context* ctx, kept_ref kept)
      : base(&ops_), core(std::move(handlers), static_cast<G&&>(cleanup), std::move(kept)) {
    promise_reaction::ctx = ctx;
    held() = no_value;
  }
  ~chain_pstate() {
    if (held() != no_value) [[unlikely]] // a microtask that never ran (its loop went first)
      for_each_index(std::make_index_sequence<N>{}, [&](auto i) {
        if (i == held()) std::launder(reinterpret_cast<stored_t<value_t<i>>*>(room_.bytes))->~stored_t<value_t<i>>();
      });
  }

  /// Starts are left to the compiler (future_chain.hpp says why it differs).
  static constexpr bool inline_starts = false;
  /// What a handler may return to be adopted.
  template <class R>
  static constexpr bool returns_handle = is_promise<R>::value;
  template <class V>
  using handle = promise<V>;

private:
  void fail_chain(error e) {
    this->at_ = N + 1;
    this->drop_remaining_handlers();
    settle_and_tell([&] { this->reject(std::move(e)); });
  }

  /// Whether the chain may keep its consumer's callback itself (take_callback):
  /// a value it hands on by copy costs nothing more than a move.
  static constexpr bool keeps_end_callback = std::is_void_v<result_type> || std::is_trivially_copyable_v<result_type>;

  /// promise::then_callback on this chain: while nothing else waits on it,
  /// and in the chain's own context, the chain keeps \p cb, without a
  /// reaction block. When the chain ends from the loop with nothing else
  /// waiting and no microtask queued, it calls cb at once (as it would run its
  /// one reaction: arrive_from_loop); when it ends otherwise with nothing else
  /// waiting, from a microtask on the chain's own reaction; and when other
  /// reactions wait, cb becomes the oldest of them.
  static bool take_callback(promise_state<result_type>* s, std::uintptr_t cb) {
    if constexpr (keeps_end_callback) {
      auto* self = static_cast<chain_pstate*>(s);
      // Never handled: no reaction was ever attached, no callback kept.
      if (!s->pending() || s->handled || self->promise_reaction::ctx != current_context()) return false;
      self->end_cb_ = callback_t<result_type>::adopt_raw(cb);
      s->handled = true; // as attach would
      return true;
    } else {
      return false; // not in the ops table: a null take_callback offers nothing
    }
  }
  /// Settles the chain's promise with \p settle (fulfill or reject), and
  /// tells the kept callback (if any) from a microtask, as its reaction
  /// would be: through the chain's own reaction (free once the chain has
  /// settled) when nothing else waits, otherwise as the oldest reaction.
  /// \p Lent: the caller hands over a reference (the microtask's, or dropped).
  template <bool Lent = false, class Settle>
  void settle_and_tell(Settle&& settle) {
    if constexpr (keeps_end_callback) {
      if (end_cb_ && !this->reactions) {
        settle();
        promise_reaction::fire = &run_end_callback;
        if constexpr (!Lent) add_ref(); // the microtask's (else the one handed over)
        loop::current().queue_microtask(static_cast<promise_reaction*>(this));
        return;
      }
      reaction_for_end_callback();
    }
    settle();
    if constexpr (Lent) release();
  }
  /// The microtask of settle_and_tell: the kept callback gets the outcome.
  static void run_end_callback(void* p) {
    auto* self = static_cast<chain_pstate*>(static_cast<promise_reaction*>(p));
    callback_t<result_type> cb = std::move(self->end_cb_);
    deliver_settled<result_type>(self, cb); // releases the microtask's reference
  }
  /// Makes the kept consumer's callback (if any) a reaction, the oldest:
  /// before the chain settles with other reactions waiting, or aliases.
  /// (Used only where keeps_end_callback.)
  void reaction_for_end_callback() {
    if (!end_cb_) [[likely]]
      return;
    auto* r = pool_new<callback_reaction<result_type>>(std::move(end_cb_));
    r->ctx = promise_reaction::ctx;
    promise_reaction** tail = &this->reactions; // newest first: the oldest goes last
    while (*tail) tail = &(*tail)->next;
    *tail = r;
  }
  /// The chain's value, to the kept consumer's callback alone, at once.
  template <class... V>
  void end_now(V&&... v) {
    callback_t<result_type> cb = std::move(end_cb_);
    // Fulfilled (no reactions to run): the value stays for later readers.
    ::new (static_cast<void*>(std::addressof(this->value))) typename base::value_type(static_cast<V&&>(v)...);
    this->status = outcome_status::fulfilled;
    asyncshift::detail::tl_context = promise_reaction::ctx;
    if constexpr (std::is_void_v<result_type>)
      cb({});
    else
      cb({}, take_or_copy(this->value, this->may_take_value()));
  }

  /// The value of step I (none for void) has arrived: handler I runs with it
  /// from a microtask; at the end, the chain's promise settles. \p Lent: the
  /// caller hands over a reference on the chain (chain_core::run_handler),
  /// which the microtask takes.
  template <std::size_t I, bool Lent = false, class... V>
  void arrive(V&&... v) {
    this->at_ = N + 1;
    if constexpr (I == N) {
      settle_and_tell<Lent>([&] {
        try {
          this->fulfill(static_cast<V&&>(v)...);
        } catch (...) { // copying the value threw
          this->reject(error_from_current_exception());
        }
      });
    } else {
      if constexpr (!std::is_void_v<value_t<I>>) {
        ::new (static_cast<void*>(room_.bytes)) value_t<I>(static_cast<V&&>(v)...);
        held() = I;
      }
      promise_reaction::fire = &run_held<I>;
      if constexpr (!Lent) add_ref(); // the microtask's (else the one handed over)
      loop::current().queue_microtask(static_cast<promise_reaction*>(this));
    }
  }

  /// arrive<I>, from the loop (chain_sink::on_value_from_loop, or a handler
  /// that returned: chain_core::hand_on, take_outcome): with no microtask
  /// queued, the one arrive would queue is the next thing the loop runs, so
  /// it runs now instead, in its context, as that microtask would have run:
  /// handler I (no value room, no queueing, no reference), or, at the end,
  /// the chain's promise's reaction when it has exactly one (the consumer's
  /// `then`, or the chain that adopted this one). \p Lent: as arrive's.
  template <std::size_t I, bool Lent = false, class... V>
  void arrive_from_loop(V&&... v) {
    if (!loop::running().microtasks_idle()) [[unlikely]]
      return arrive<I, Lent>(static_cast<V&&>(v)...);
    this->at_ = N + 1;
    if constexpr (I < N) {
      asyncshift::detail::tl_context = promise_reaction::ctx;
      this->template run_handler<I, Lent>(static_cast<V&&>(v)...);
    } else {
      typename core::template drop_handed_reference<Lent> lent{this};
      if constexpr (keeps_end_callback) {
        if (end_cb_) {
          if (!this->reactions) [[likely]]
            return end_now(static_cast<V&&>(v)...);
          reaction_for_end_callback();
        }
      }
      promise_reaction* r;
      try {
        r = this->fulfill_keeping_reaction(static_cast<V&&>(v)...);
      } catch (...) { // copying the value threw
        return this->reject(error_from_current_exception());
      }
      if (r) {
        asyncshift::detail::tl_context = r->ctx;
        r->fire(r);
      }
    }
  }

  /// The microtask that runs handler I with the value held for it.
  template <std::size_t I>
  static void run_held(void* p) {
    auto* self = static_cast<chain_pstate*>(static_cast<promise_reaction*>(p));
    using T = value_t<I>;
    if constexpr (std::is_void_v<T>) {
      self->template run_handler<I, true>(); // with the microtask's reference
    } else {
      T* slot = std::launder(reinterpret_cast<T*>(self->room_.bytes));
      T v(std::move(*slot)); // out of the room: the handler's operation may complete into it at once
      slot->~T();
      self->held() = no_value;
      self->template run_handler<I, true>(std::move(v));
    }
  }

  /// A handler returned a promise of step I's value: A+ 2.3.2. \p Lent:
  /// as arrive's (q's reaction takes it).
  template <std::size_t I, bool Lent = false>
  void adopt(promise<value_t<I>> q) {
    using T = value_t<I>;
    if (!q.valid()) return this->template fail_chain_dropping<Lent>(error("TypeError: a handler returned an empty promise"));
    promise_state<T>* qs = q.state()->final_state();
    if constexpr (I == N) {
      if (qs == static_cast<base*>(this))
        return this->template fail_chain_dropping<Lent>(error("TypeError: Chaining cycle detected for promise")); // A+ 2.3.1
    }
    if (!qs->pending()) {
      qs->handled = true;
      take_outcome<I, Lent>(*qs); // q is its only other reader, if unique
      return;
    }
    if constexpr (I == N) {
      // A chain that keeps a state waits for q itself: q may be a chain
      // nested in the last step, whose lambdas read that state, which must
      // outlive them (keep()'s promise; a user trial's ASan found it freed
      // when the chain handed its reactions to q and let go).
      if (!this->keeps_state()) [[likely]] {
        if constexpr (keeps_end_callback) reaction_for_end_callback();
        this->alias_to(qs); // our reactions wait on q's outcome, as a then state's do
        if constexpr (Lent) release();
        return;
      }
    }
    promise_reaction::fire = &run_adopted<I>;
    if constexpr (!Lent) add_ref(); // q's reaction holds us (else with the one handed over)
    qs->attach(static_cast<promise_reaction*>(this));
  }

  /// Goes on at step I with \p src's outcome (settled), which a handler
  /// returned: from the loop, as hand_on. \p Lent: as arrive's.
  template <std::size_t I, bool Lent>
  void take_outcome(promise_state<value_t<I>>& src) {
    using T = value_t<I>;
    if (src.status == outcome_status::rejected)
      return this->template fail_chain_dropping<Lent>(src.unique() ? std::move(src.err) : error(src.err));
    if constexpr (std::is_void_v<T>) {
      arrive_from_loop<I, Lent>();
    } else if constexpr (copyable_v<T>) {
      if (src.unique())
        arrive_from_loop<I, Lent>(std::move(src.value));
      else
        arrive_from_loop<I, Lent>(std::as_const(src.value));
    } else {
      arrive_from_loop<I, Lent>(std::move(src.value)); // may_take_value: to its first reader
    }
  }

  /// The microtask of a returned promise's settlement: handler I runs in it,
  /// with the reaction's reference.
  template <std::size_t I>
  static void run_adopted(void* p) {
    using T = value_t<I>;
    auto* self = static_cast<chain_pstate*>(static_cast<promise_reaction*>(p));
    auto* src = static_cast<promise_state<T>*>(self->source);
    if (!src) [[unlikely]] { // the promise we waited for died unsettled: so do we, unless someone holds us
      self->drop_remaining_handlers();
      self->release();
      return;
    }
    if constexpr (I == N) { // the chain's own outcome (a chain that keeps a state: adopt)
      self->template take_outcome<N, true>(*src);
      src->release();
    } else if (src->status == outcome_status::rejected) {
      error e = src->unique() ? std::move(src->err) : error(src->err);
      src->release();
      self->template fail_chain_dropping<true>(std::move(e));
    } else if constexpr (std::is_void_v<T>) {
      src->release();
      self->template run_handler<I, true>();
    } else {
      T v = take_or_copy(src->value, src->may_take_value());
      src->release();
      self->template run_handler<I, true>(std::move(v));
    }
  }

  static void destroy(handler_for<result_type>* h) noexcept { pool_delete(&static_cast<chain_pstate&>(static_cast<base&>(*h))); }
  static constexpr promise_state_ops<result_type> ops_ =
      state_ops<result_type, base>(&destroy, keeps_end_callback ? &take_callback : nullptr);

  /// The step whose value room_ holds, or no_value: promise_state's spare
  /// byte, which sits in its padding (a member here would cost 8 bytes).
  std::uint8_t& held() noexcept { return this->derived_byte; }
  value_room<typename types::values> room_;
  /// What end_cb_ is in a chain that never keeps a callback: no room.
  struct no_end_callback {};
  /// The consumer's callback, kept by take_callback (or empty); nothing at
  /// all in a chain whose value it would not keep.
  [[no_unique_address]] std::conditional_t<keeps_end_callback, callback_t<result_type>, no_end_callback> end_cb_;
};

} // namespace detail

/// The lazy chain make_promise_chain builds (see the top of this file).
template <class T0, class Start, class G0, class... Fs>
class [[nodiscard]] promise_chain : public detail::chain_builder<promise_chain, T0, Start, G0, Fs...> {
  using state = detail::chain_pstate<T0, G0, Fs...>;
  using builder = detail::chain_builder<promise_chain, T0, Start, G0, Fs...>;

public:
  using value_type = typename state::result_type;
  using builder::builder;

  /// One more step: \p on_value, as promise::then's (but not returning a thenable).
  template <class F>
  auto then(F&& on_value) && {
    using T = typename detail::type_at<sizeof...(Fs), typename detail::promise_chain_types<T0, Fs...>::values>::type;
    static_assert(!detail::thenable<std::remove_cvref_t<detail::value_result_t<T, F>>>,
                  "make_promise_chain: a handler returning a thenable; use promise::then");
    return static_cast<builder&&>(*this).then(static_cast<F&&>(on_value));
  }

  /// Builds the chain's state and starts its first operation.
  promise<value_type> start() && {
    auto* s = detail::pool_new<state>(std::move(this->handlers_), std::move(this->cleanup_), current_context(),
                                      std::move(this->kept_));
    promise<value_type> p(s);
    s->template start<0>(this->start_);
    return p;
  }
  // NOLINTNEXTLINE(google-explicit-constructor): converts where a promise is returned
  operator promise<value_type>() && { return std::move(*this).start(); }
};

/// A fused chain whose first operation is `start(callback<T>)` (see the top of this file).
template <class T = void, class F>
promise_chain<T, std::decay_t<F>, void> make_promise_chain(F&& start) {
  return {static_cast<F&&>(start), {}, {}};
}
/// As above, with a cleanup that runs inline if the first operation fails.
template <class T = void, class F, class G>
promise_chain<T, std::decay_t<F>, G> make_promise_chain(F&& start, on_error_cleanup<G> cleanup) {
  return {static_cast<F&&>(start), std::move(cleanup.f), {}};
}

} // namespace asyncshift
