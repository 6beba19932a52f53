// A chain of future continuations fused into one state (continuable-style).
//
//   asyncshift::future<> f = asyncshift::make_future_chain<std::int64_t>([&](auto cb) { put(std::move(cb)); })
//                                .then([=](std::int64_t id) { return asyncshift::promisify<row>(...); })
//                                .then([=](row r) { ... });
//
// means what `make_future(start).then(f1).then(f2)` means, for a chain that is
// built in one expression and handed on whole (generated code returns it).
// Built with future::then, each step is a state of its own: allocated,
// linked to its source, reference-counted, fired through the trampoline and
// freed. Here the handlers wait in one state, built when the chain becomes a
// future<U> (the conversion starts the first operation), and each operation
// a handler returns completes that state directly, at the step it belongs to:
// one allocation for the chain, where a chain of n thens made n + 1.
//
// What a handler may return, and what happens then, is as for future::then:
// a value or nothing (the next handler runs at once, with it), a future
// (adopted: the next handler runs when it is ready), or an operation
// (`promisify(start)`, `promisify(start, on_error(g))`: started with a
// callback to the step; `g` runs inline if it fails). A failure (an
// operation's error, or an exception from a handler) skips the handlers
// still waiting, which are destroyed at once, and fails the future. Each
// handler is destroyed as soon as it has run. A handler runs inline, from
// the completion of the operation before it, as a future continuation does.
//
// The lazy builder (future_chain) holds the first operation's start and the
// handlers, and nothing has started until it converts: keep it in one
// expression (`return make_future_chain(...).then(...);`, or convert it with
// `.start()`).
#pragma once

#include "asyncshift/detail/chain_steps.hpp"
#include "asyncshift/future.hpp"
#include "asyncshift/on_error.hpp"
#include "asyncshift/promisify.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace asyncshift {

namespace detail {

/// The value type a future handler's result R hands the next step: U for
/// U, future<U> or an operation of U; void for void.
template <class R>
using chain_value_t = typename future_of_t<R>::value_type;
template <class T, class... Fs>
using chain_types = chain_types_by<chain_value_t, T, Fs...>;

/// The state of a fused future chain: the future<U> of its end, and the
/// handlers and step sinks of chain_core (an operation's callback may still
/// be alive, being destroyed by its op, while the next step's operation
/// starts: each step an operation completes has its own sink).
template <class T0, class G0, class... Fs>
class chain_fstate final
    : public future_state<typename type_at<sizeof...(Fs), typename chain_types<T0, Fs...>::values>::type>,
      public chain_core<chain_fstate<T0, G0, Fs...>, chain_types<T0, Fs...>, G0, Fs...> {
  using core = chain_core<chain_fstate, chain_types<T0, Fs...>, G0, Fs...>;
  friend core;
  template <class, std::size_t, class>
  friend struct chain_sink;
  using core::N;
  template <std::size_t I>
  using value_t = typename core::template value_t<I>;

public:
  using result_type = value_t<N>;
  using base = future_state<result_type>;
  using base::add_ref;
  using base::release;

  template <class... H, class G>
  chain_fstate(std::tuple<H...>&& handlers, G&& cleanup, kept_ref kept)
      : base(&ops_), core(std::move(handlers), static_cast<G&&>(cleanup), std::move(kept)) {}

  /// Each operation's start is inlined always into the step that starts it
  /// (chain_core::start; a clang statement attribute, g++ inlines it anyway):
  /// clang called every start lambda of doxbee's future chain out of line
  /// once steps hand their reference on (1,318 Ir per execution; inlined
  /// 1,229). A promise chain's steps measured 12 Ir dearer with it.
  static constexpr bool inline_starts = true;
  /// What a handler may return to be waited for.
  template <class R>
  static constexpr bool returns_handle = is_future<R>::value;
  template <class V>
  using handle = future<V>;

private:
  void fail_chain(error e) {
    this->at_ = N + 1;
    this->drop_remaining_handlers();
    this->deliver(this->settle_error(std::move(e)));
  }

  /// The value of step I (none for void) has arrived: run handler I with it
  /// (a future's continuation runs inline), or settle at the end.
  template <std::size_t I, bool Lent = false, class... V>
  void arrive(V&&... v) {
    if constexpr (I == N) {
      typename core::template drop_handed_reference<Lent> lent{this};
      this->at_ = N + 1;
      future_continuation* c;
      try {
        c = this->settle_value(static_cast<V&&>(v)...);
      } catch (...) {
        c = this->settle_error(error_from_current_exception());
      }
      this->deliver(c);
    } else {
      this->template run_handler<I, Lent>(static_cast<V&&>(v)...);
    }
  }

  /// A handler returned a future: wait for it, then go on at step I.
  template <std::size_t I, bool Lent = false>
  void adopt(future<value_t<I>> q) {
    future_state<value_t<I>>* qs = q.release();
    if (!qs) return this->template fail_chain_dropping<Lent>(error("future: a handler returned an empty future"));
    if (!qs->pending()) {
      struct holder {
        future_state<value_t<I>>* s;
        ~holder() { s->release(); }
      } h{qs};
      if (qs->status == outcome_status::rejected) return this->template fail_chain_dropping<Lent>(std::move(qs->err));
      if constexpr (std::is_void_v<value_t<I>>)
        return arrive<I, Lent>();
      else
        return arrive<I, Lent>(std::move(qs->value));
    }
    this->at_ = I;
    waiter_.fire = &fire_adopted<I>;
    waiter_.self = this;
    if constexpr (!Lent) this->add_ref(); // q's continuation holds us (else with the one handed over)
    qs->wait_with(&waiter_);
    qs->release(); // q's producers keep it
  }

  /// What waits on a future a handler returned.
  struct waiter : future_continuation {
    chain_fstate* self;
  };

  template <std::size_t I>
  static continuation_step fire_adopted(future_continuation* c, void* source) {
    chain_fstate* self = static_cast<waiter*>(c)->self;
    auto* src = static_cast<future_state<value_t<I>>*>(source);
    if (!src) [[unlikely]] { // the future we waited for died unsettled: so do we
      self->release();
      return {};
    }
    // A failure, or the last step's value, settles the chain: its outcome
    // goes on from here through run_continuations' loop (hand_on, with the
    // reference this continuation held), not through a nested deliver. A
    // recursive loop of chains, each adopting the next (the recursive-lambda
    // idiom), settles a chain per iteration: nested, they overflowed the
    // stack at a few hundred thousand iterations.
    if (src->status == outcome_status::rejected) {
      error e = std::move(src->err);
      src->release();
      self->at_ = N + 1;
      self->drop_remaining_handlers();
      return self->base::hand_on(self->settle_error(std::move(e)));
    }
    if constexpr (I == N) {
      self->at_ = N + 1;
      future_continuation* next;
      try {
        if constexpr (std::is_void_v<value_t<I>>)
          next = self->settle_value();
        else
          next = self->settle_value(std::move(src->value));
      } catch (...) {
        next = self->settle_error(error_from_current_exception());
      }
      src->release();
      return self->base::hand_on(next);
    } else if constexpr (std::is_void_v<value_t<I>>) {
      src->release();
      self->template arrive<I, true>(); // with the continuation's reference
    } else {
      value_t<I> v(std::move(src->value));
      src->release();
      self->template arrive<I, true>(std::move(v));
    }
    return {};
  }

  static void destroy(handler_for<result_type>* h) noexcept { pool_delete(&static_cast<chain_fstate&>(static_cast<base&>(*h))); }
  static constexpr handler_ops_for<result_type> ops_ = future_state_ops<result_type, base>(&destroy);

  waiter waiter_;
};

} // namespace detail

/// The lazy chain make_future_chain builds (see the top of this file).
template <class T0, class Start, class G0, class... Fs>
class [[nodiscard]] future_chain : public detail::chain_builder<future_chain, T0, Start, G0, Fs...> {
  using state = detail::chain_fstate<T0, G0, Fs...>;
  using builder = detail::chain_builder<future_chain, T0, Start, G0, Fs...>;

public:
  using value_type = typename state::result_type;
  using builder::builder;

  /// Builds the chain's state and starts its first operation.
  future<value_type> start() && {
    auto* s = detail::pool_new<state>(std::move(this->handlers_), std::move(this->cleanup_), std::move(this->kept_));
    future<value_type> f(s);
    s->template start<0>(this->start_);
    return f;
  }
  // NOLINTNEXTLINE(google-explicit-constructor): converts where a future is returned
  operator future<value_type>() && { return std::move(*this).start(); }
  /// start(), as the state's one reference (what when_all(n, make) takes of a future).
  detail::future_state<value_type>* release() && { return std::move(*this).start().release(); }
};

/// A fused chain whose first operation is `start(callback<T>)` (see the top of this file).
template <class T = void, class F>
future_chain<T, std::decay_t<F>, void> make_future_chain(F&& start) {
  return {static_cast<F&&>(start), {}, {}};
}
/// As above, with a cleanup that runs inline if the first operation fails.
template <class T = void, class F, class G>
future_chain<T, std::decay_t<F>, G> make_future_chain(F&& start, on_error_cleanup<G> cleanup) {
  return {static_cast<F&&>(start), std::move(cleanup.f), {}};
}

} // namespace asyncshift
