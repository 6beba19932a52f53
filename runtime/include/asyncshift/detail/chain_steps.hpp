// What the fused chains (future_chain.hpp, promise_chain.hpp) share: the
// types of a chain's steps, the slot a handler and then the cleanup of the
// operation it returned take turns in, and the callback handler through
// which an operation completes a step.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/detail/returned_op.hpp"
#include "asyncshift/on_error.hpp"
#include "asyncshift/shared_state.hpp"

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

namespace asyncshift::detail {

template <class... T>
struct type_list {};

template <std::size_t I, class L>
struct type_at;
template <class T, class... Ts>
struct type_at<0, type_list<T, Ts...>> {
  using type = T;
};
template <std::size_t I, class T, class... Ts>
struct type_at<I, type_list<T, Ts...>> : type_at<I - 1, type_list<Ts...>> {};

/// The value types T_0 ... T_n of a chain whose first operation yields T_0
/// and whose handlers are Fs: handler i takes T_i and leads to T_{i+1}
/// (ValueOf<R>: the value a handler's result R hands on); the cleanup
/// types G_1 ... G_n of the operations the handlers return; and whether an
/// operation completes each step (std::bool_constant: the first operation's
/// step 0, and step i + 1 when handler i returns an operation), which are
/// the steps that need a callback handler (chain_sinks).
template <template <class> class ValueOf, class T, class... Fs>
struct chain_types_by {
  using values = type_list<T>;
  using cleanups = type_list<>;
  using by_operation = type_list<std::true_type>;
};
template <template <class> class ValueOf, class T, class F, class... Fs>
struct chain_types_by<ValueOf, T, F, Fs...> {
  using result = value_result_t<T, F>;
  using rest = chain_types_by<ValueOf, ValueOf<result>, Fs...>;
  template <class L>
  struct prepend_value;
  template <class... L>
  struct prepend_value<type_list<L...>> {
    using type = type_list<T, L...>;
  };
  template <class L>
  struct prepend_cleanup;
  template <class... L>
  struct prepend_cleanup<type_list<L...>> {
    using type = type_list<typename value_cleanup<T, F>::type, L...>;
  };
  /// rest's list starts with rest's own first step, true as every chain's
  /// first is: that is our step 1, which an operation completes when F
  /// returns one; our step 0 (the first operation's) goes in front.
  template <class L>
  struct flag_step_after_handler;
  template <class... L>
  struct flag_step_after_handler<type_list<std::true_type, L...>> {
    using type = type_list<std::true_type, std::bool_constant<op_result<std::remove_cvref_t<result>>::value>, L...>;
  };
  using values = typename prepend_value<typename rest::values>::type;
  using cleanups = typename prepend_cleanup<typename rest::cleanups>::type;
  using by_operation = typename flag_step_after_handler<typename rest::by_operation>::type;
};

/// Handler I of a chain, and then, once it has run, the cleanup of the
/// operation it returned (which is started after the handler is gone).
template <class F, class Room>
union step_slot {
  step_slot() noexcept {}
  ~step_slot() {}
  F f;
  Room room;
};

/// No cleanup: an operation returned without on_error.
struct no_cleanup {
  void put(no_cleanup) noexcept {}
  void fail(error&) noexcept {}
  void drop() noexcept {}
};
/// The cleanup of an operation in flight: a cleanup_slot (on_error.hpp), empty until it is put.
template <class G>
using chain_cleanup_room = std::conditional_t<std::is_void_v<G>, no_cleanup, cleanup_slot<G>>;

template <std::size_t... I, class F>
void for_each_index(std::index_sequence<I...>, F&& f) {
  (f(std::integral_constant<std::size_t, I>{}), ...);
}

/// The callback handler of the operation that completes step I of chain
/// \p Chain (value T): a base of the chain's state, so that the state is a
/// fixed offset away. The chain has `at_` (the step an operation may
/// complete), `fail<I>(error)`, `cleanups_at<I>()`, `arrive<I>(v...)` and
/// `release()`, `add_ref()`, and `arrive<I, true>` (and a promise chain's
/// `arrive_from_loop<I, true>`), which take a reference on the chain with
/// the call.
template <class Chain, std::size_t I, class T>
struct chain_sink : handler_for<T> {
  chain_sink() noexcept : handler_for<T>{&ops} {}

  /// (References, not pointers: a pointer cast would test for null first.)
  static Chain* chain(handler_for<T>* h) noexcept { return &static_cast<Chain&>(static_cast<chain_sink&>(*h)); }

  template <class... V>
  static void on_callback(handler_for<T>* h, error&& e, V&&... v) {
    Chain* s = chain(h);
    if (s->at_ != I) return; // a second call (a bug; asserted in callback)
    if (e) [[unlikely]]
      return s->template fail<I>(std::move(e));
    s->template cleanups_at<I>().drop();
    s->template arrive<I>(static_cast<V&&>(v)...);
  }
  template <class... V>
  static void on_value(handler_for<T>* h, V&&... v) {
    Chain* s = chain(h);
    if (s->at_ != I) return;
    s->template cleanups_at<I>().drop();
    s->template arrive<I>(static_cast<V&&>(v)...);
  }
  /// on_value, from the loop (sink_callback::deliver_value_from_loop), for
  /// a chain that queues its handlers (it has arrive_from_loop: it may run
  /// the next one at once). A future chain runs them inline anyway, and its
  /// ops complete through on_value.
  template <class... V>
    requires requires(Chain* s, V&&... v) { s->template arrive_from_loop<I>(static_cast<V&&>(v)...); }
  static void on_value_from_loop(handler_for<T>* h, V&&... v) {
    Chain* s = chain(h);
    if (s->at_ != I) return;
    s->template cleanups_at<I>().drop();
    s->template arrive_from_loop<I>(static_cast<V&&>(v)...);
  }
  /// on_value (and on_value_from_loop) for a chain that hands its
  /// references on (promise and future chains), called by a callback that
  /// emptied itself first (sink_callback's deliver_value_last and
  /// deliver_value_from_loop), with the reference on this sink it gave up if
  /// it \p owned one. When that was the sink's only reference, the chain's
  /// reference it stood for (taken when step I's operation started) goes
  /// with the arrival (`Lent`: see chain_core::run_handler) to the next
  /// operation the step's handler starts, or to the microtask or reaction
  /// the step waits in, and is dropped where the step ends without one: per
  /// step, no count goes up and down again, no flag is kept, and no callback
  /// is left to destroy after the call. Otherwise the chain takes a new
  /// reference of its own to hand on.
  template <class... V>
  ASYNCSHIFT_INLINE static void on_value_handed(handler_for<T>* h, bool owned, V&&... v) {
    owned_delivery<false>(h, owned, static_cast<V&&>(v)...);
  }
  template <class... V>
    requires requires(Chain* s, V&&... v) { s->template arrive_from_loop<I>(static_cast<V&&>(v)...); }
  ASYNCSHIFT_INLINE static void on_value_handed_from_loop(handler_for<T>* h, bool owned, V&&... v) {
    owned_delivery<true>(h, owned, static_cast<V&&>(v)...);
  }
  static void destroy(handler_for<T>* h) noexcept { chain(h)->release(); }

private:
  template <bool FromLoop, class... V>
  ASYNCSHIFT_INLINE static void arrive_at(Chain* s, V&&... v) {
    if constexpr (FromLoop)
      s->template arrive_from_loop<I, true>(static_cast<V&&>(v)...);
    else
      s->template arrive<I, true>(static_cast<V&&>(v)...);
  }
  template <bool FromLoop, class... V>
  ASYNCSHIFT_INLINE static void owned_delivery(handler_for<T>* h, bool owned, V&&... v) {
    Chain* s = chain(h);
    if (s->at_ != I) [[unlikely]] { // a second call (a bug; asserted in callback): our reference goes
      if (owned && --h->refs == 0) destroy(h);
      return;
    }
    s->template cleanups_at<I>().drop();
    if (!owned || h->refs != 1) [[unlikely]] { // borrowed, or other callbacks share the sink and keep its reference on the chain
      if (owned) --h->refs;
      s->add_ref(); // the one handed on below
    }
    arrive_at<FromLoop>(s, static_cast<V&&>(v)...);
  }

public:
  static constexpr handler_ops_for<T> ops = [] {
    if constexpr (std::is_void_v<T>)
      return handler_ops_for<T>{&on_callback<>, &destroy};
    else
      return handler_ops_for<T>{&on_callback<T>, &destroy};
  }();
};

/// In place of the sink of step I, which no operation completes (its value
/// comes from a handler: returned, or a promise or future it returned): no
/// room. (One type per step: empty bases of one type could not share an address.)
template <std::size_t I>
struct no_chain_sink {};

/// The sinks of the steps an operation completes, 16 bytes each; nothing
/// for the others.
template <class Chain, class Indices, class Values, class ByOperation>
struct chain_sinks;
template <class Chain, std::size_t... I, class... T, class... Op>
struct chain_sinks<Chain, std::index_sequence<I...>, type_list<T...>, type_list<Op...>>
    : std::conditional_t<Op::value, chain_sink<Chain, I, T>, no_chain_sink<I>>... {};

/// What a fused chain's state holds whatever its kind (CRTP: \p Derived is
/// the state): the handlers still to run, the cleanup room of the operation
/// in flight, one callback handler per step that an operation completes
/// (chain_sinks), the step an
/// operation may complete (`at_`), and the running of a handler. Derived has
/// `arrive<I>(v...)` (step I's value is here), `adopt<I>(handle)` (a handler
/// returned a future or promise of step I's value), `fail_chain(error)`,
/// `add_ref()`/`release()`, says which results are its handles
/// (`returns_handle<R>`, `handle<V>`), and whether `start` inlines each
/// operation's start always (`inline_starts`). A completing step hands its
/// reference on the chain to what comes next: Derived's `arrive` and
/// `adopt` (and a promise chain's `arrive_from_loop`), like `run_handler`
/// and `start` here, take one when `Lent` is true.
template <class Derived, class Types, class G0, class... Fs>
class chain_core
    : public chain_sinks<Derived, std::make_index_sequence<sizeof...(Fs) + 1>, typename Types::values, typename Types::by_operation> {
public:
  static constexpr std::size_t N = sizeof...(Fs);
  static_assert(N < 250, "a chain of at most 249 steps (at_ counts them in a byte)");
  template <std::size_t I>
  using value_t = typename type_at<I, typename Types::values>::type;

private:
  template <class L>
  struct with_first_cleanup;
  template <class... G>
  struct with_first_cleanup<type_list<G...>> {
    using type = type_list<G0, G...>;
  };
  /// G_I: the cleanup of the operation that completes step I (void: none).
  template <std::size_t I>
  using cleanup_t = typename type_at<I, typename with_first_cleanup<typename Types::cleanups>::type>::type;
  template <std::size_t I>
  using handler_t = typename type_at<I, type_list<Fs...>>::type;
  template <std::size_t I>
  using room_t = chain_cleanup_room<cleanup_t<I>>;
  template <std::size_t I>
  using sink = chain_sink<Derived, I, value_t<I>>;
  template <std::size_t... I>
  static auto slots_of(std::index_sequence<I...>) -> std::tuple<step_slot<handler_t<I>, room_t<I + 1>>...>;

  Derived& self() noexcept { return static_cast<Derived&>(*this); }

protected:
  /// \p cleanup: the first operation's (empty_value when it has none);
  /// \p kept: the per-call state the chain keeps alive (chain_builder::keep).
  template <class... H, class G>
  chain_core(std::tuple<H...>&& handlers, G&& cleanup, kept_ref kept) : kept_(std::move(kept)) {
    std::apply([&](auto&&... h) { construct_handlers(std::index_sequence_for<Fs...>{}, static_cast<decltype(h)&&>(h)...); },
               std::move(handlers));
    if constexpr (!std::is_void_v<G0>) cleanups_at<0>().put(static_cast<G&&>(cleanup));
  }
  ~chain_core() {
    if (handlers_from_ == N) [[likely]] { // every handler has run (or been dropped): rooms only
      for_each_index(std::index_sequence_for<Fs...>{}, [&](auto i) { std::get<i>(handlers_).room.~room_t<i + 1>(); });
      return;
    }
    for_each_index(std::index_sequence_for<Fs...>{}, [&](auto i) {
      if (i >= handlers_from_)
        std::get<i>(handlers_).f.~handler_t<i>();
      else
        std::get<i>(handlers_).room.~room_t<i + 1>();
    });
  }

public:
  /// Starts the operation of step I with a callback to sink I, which takes
  /// the reference on the chain the caller hands over (\p Lent) or a new one.
  template <std::size_t I, bool Lent = false, class Start>
  void start(Start& start) {
    static_assert(type_at<I, typename Types::by_operation>::type::value, "step I has a sink: an operation completes it");
    using T = value_t<I>;
    sink<I>& k = self(); // made with one reference (handler's refs = 1): the callback's
    assert(k.refs == 1 && "each step's operation starts once");
    if constexpr (!Lent) self().add_ref(); // the callback's (else the one handed over)
    at_ = I;
    using callback_type = rebind_sink_t<sink<I>, callback_t<T>>;
    callback_type cb = callback_type::adopt_owning(static_cast<handler_for<T>*>(&k));
    try {
      if constexpr (!std::is_invocable_v<Start&, callback_type&&>)
        start(cb);
      else if constexpr (Derived::inline_starts)
        ASYNCSHIFT_INLINE_CALL start(std::move(cb));
      else
        start(std::move(cb));
    } catch (...) {
      if (at_ == I) fail<I>(error_from_current_exception());
    }
  }

  /// The cleanup room of the operation that completes step I: the first
  /// operation's own, then each in the slot of the handler that returned it.
  template <std::size_t I>
  auto& cleanups_at() noexcept {
    if constexpr (I == 0)
      return head_cleanup_;
    else
      return std::get<I - 1>(handlers_).room;
  }

  /// The operation of step I failed: its cleanup first, then the chain fails.
  template <std::size_t I>
  void fail(error e) {
    cleanups_at<I>().fail(e);
    if (at_ != I) [[unlikely]] // the cleanup completed the operation after all
      return;
    self().fail_chain(std::move(e));
  }

  /// The step whose operation (or adopted handle) may complete the chain;
  /// N + 1 between steps and once settled.
  std::uint8_t at_ = 0;

protected:
  /// The chain failed with a reference handed over (\p Lent), dropped last.
  template <bool Lent>
  void fail_chain_dropping(error e) {
    self().fail_chain(std::move(e));
    if constexpr (Lent) self().release();
  }
  /// Drops a reference handed over (\p Lent) when it goes: last, even if
  /// what runs before it (a consumer's callback) throws.
  template <bool Lent>
  struct drop_handed_reference {
    Derived* s;
    ~drop_handed_reference() {
      if constexpr (Lent) s->release();
    }
  };

  /// Destroys the handlers that have not run (they never will).
  void drop_remaining_handlers() noexcept {
    for_each_index(std::index_sequence_for<Fs...>{}, [&](auto i) {
      if (i >= handlers_from_) to_room<i>();
    });
    handlers_from_ = N;
  }

  /// Runs handler I (I < N) with step I's value (none for void), and goes on
  /// with what it returns: a value or nothing arrives at step I + 1, a
  /// handle is adopted, an operation is started for step I + 1. Only the
  /// handler's own exceptions fail the chain here: what the steps after it
  /// throw (a consumer's callback) goes on to our caller.
  ///
  /// \p Lent (a chain that hands references on): the caller hands over one
  /// reference on the chain (the completed operation's, or that of the
  /// microtask or reaction that runs this), which goes on with the step: to
  /// the operation started next, the microtask or reaction the next step
  /// waits in, or, where the step ends with none (the chain settled or
  /// failed), it is dropped, last.
  template <std::size_t I, bool Lent = false, class... V>
  void run_handler(V&&... v) {
    using T = value_t<I>;
    using F = handler_t<I>;
    using R = value_result_t<T, F>;
    using Rd = std::remove_cvref_t<R>;
    Derived& d = self();
    at_ = N + 1; // between steps: no operation may complete us
    F& f = std::get<I>(handlers_).f;
    auto call = [&]() -> R {
      if constexpr (takes_value<T, F>())
        return f(static_cast<V&&>(v)...);
      else
        return f();
    };
    auto failed = [this] { fail_chain_dropping<Lent>(error_from_current_exception()); };
    if constexpr (std::is_void_v<R>) {
      try {
        call();
      } catch (...) {
        return failed();
      }
      drop_handler<I>();
      hand_on<I + 1, Lent>();
    } else if constexpr (Derived::template returns_handle<Rd>) {
      typename Derived::template handle<value_t<I + 1>> q;
      try {
        q = call(); // a chain starts here, converting
      } catch (...) {
        return failed();
      }
      drop_handler<I>();
      d.template adopt<I + 1, Lent>(std::move(q));
    } else {
      // The result is made in place: a returned prvalue (an operation, whose
      // start function a move would copy) initialises it directly, where
      // optional::emplace would move it in from a temporary.
      alignas(Rd) std::byte room[sizeof(Rd)];
      Rd* r;
      try {
        r = ::new (static_cast<void*>(room)) Rd(call());
      } catch (...) {
        return failed();
      }
      struct destroy_result {
        Rd* r;
        ~destroy_result() { r->~Rd(); }
      } guard{r};
      drop_handler<I>();
      if constexpr (op_result<Rd>::value) {
        using G = cleanup_t<I + 1>;
        if constexpr (!std::is_void_v<G>) cleanups_at<I + 1>().put(std::move(*r).take_cleanup());
        auto s = std::move(*r).take_start();
        start<I + 1, Lent>(s);
      } else {
        hand_on<I + 1, Lent>(std::move(*r));
      }
    }
  }

  /// Whether the chain keeps a per-call state (keep()).
  bool keeps_state() const noexcept { return static_cast<bool>(kept_); }

private:
  /// Step I's value (none for void), which the handler before it returned.
  /// A chain that queues its handlers (a promise chain: it has
  /// arrive_from_loop) only ever runs one from the loop, from a microtask or
  /// from the timer that completed its operation, so when the handler has
  /// returned only the loop's code is on the stack again, as
  /// arrive_from_loop asks. \p Lent: a reference goes with it (run_handler).
  template <std::size_t I, bool Lent, class... V>
  void hand_on(V&&... v) {
    if constexpr (requires(Derived& d) { d.template arrive_from_loop<I>(static_cast<V&&>(v)...); }) {
      self().template arrive_from_loop<I, Lent>(static_cast<V&&>(v)...);
    } else {
      self().template arrive<I, Lent>(static_cast<V&&>(v)...);
    }
  }

  template <std::size_t... I, class... H>
  void construct_handlers(std::index_sequence<I...>, H&&... h) {
    (::new (static_cast<void*>(std::addressof(std::get<I>(handlers_).f))) handler_t<I>(static_cast<H&&>(h)), ...);
  }
  /// Handler I goes; an empty cleanup room takes its place.
  template <std::size_t I>
  void to_room() noexcept {
    auto& slot = std::get<I>(handlers_);
    slot.f.~handler_t<I>();
    ::new (static_cast<void*>(std::addressof(slot.room))) room_t<I + 1>();
  }
  template <std::size_t I>
  void drop_handler() noexcept {
    assert(handlers_from_ == I && "handler I has just run, and nothing else may drop it");
    to_room<I>();
    handlers_from_ = I + 1;
  }

  /// Handlers from this index on are alive.
  std::uint8_t handlers_from_ = 0;
  /// (No room when empty: with it, at_ and handlers_from_ fit in the last sink's padding.)
  [[no_unique_address]] room_t<0> head_cleanup_;
  decltype(slots_of(std::index_sequence_for<Fs...>{})) handlers_;
  /// The per-call state (chain_builder::keep), freed with the chain: a
  /// handler or cleanup that has not run by then never will.
  kept_ref kept_;
};

/// The lazy builder both chains are (CRTP through a template: \p Chain is
/// future_chain or promise_chain): the first operation's start, its cleanup
/// (empty_value when it has none) and the handlers, until it converts.
template <template <class, class, class, class...> class Chain, class T0, class Start, class G0, class... Fs>
class chain_builder {
public:
  using cleanup_type = std::conditional_t<std::is_void_v<G0>, empty_value, G0>;

  chain_builder(Start start, cleanup_type cleanup, std::tuple<Fs...> handlers, kept_ref kept = {})
      : start_(std::move(start)), cleanup_(std::move(cleanup)), handlers_(std::move(handlers)), kept_(std::move(kept)) {}

  /// One more step: \p on_value, as a `then` handler.
  template <class F>
  Chain<T0, Start, G0, Fs..., std::decay_t<F>> then(F&& on_value) && {
    return {std::move(start_), std::move(cleanup_),
            std::tuple_cat(std::move(handlers_), std::tuple<std::decay_t<F>>(static_cast<F&&>(on_value))), std::move(kept_)};
  }

  /// The chain keeps \p state (make_shared_state's) alive until the chain
  /// is destroyed, when none of its handlers and cleanups can run: its handlers, the
  /// operations they start and their cleanups may then capture a plain
  /// `S*` (state.get()), which costs nothing to copy or destroy, where each
  /// copy of a shared_state counts. Nothing that captures that pointer may
  /// outlive the chain (a callback the chain does not wait for). One state
  /// per chain.
  template <class S>
  Chain<T0, Start, G0, Fs...> keep(shared_state<S> state) && {
    assert(!kept_ && "a chain keeps one state: a second keep() would free the first");
    return {std::move(start_), std::move(cleanup_), std::move(handlers_), std::move(state).to_kept()};
  }

protected:
  Start start_;
  [[no_unique_address]] cleanup_type cleanup_;
  std::tuple<Fs...> handlers_;
  kept_ref kept_;
};

} // namespace asyncshift::detail
