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

/// The value type a handler's result R hands the next step: U for U,
/// future<U> or an operation of U; void for void.
template <class R>
using chain_value_t = typename future_of_t<R>::value_type;

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
/// and whose handlers are Fs: handler i takes T_i and leads to T_{i+1}; and
/// the cleanup types G_1 ... G_n of the operations the handlers return.
template <class T, class... Fs>
struct chain_types {
  using values = type_list<T>;
  using cleanups = type_list<>;
};
template <class T, class F, class... Fs>
struct chain_types<T, F, Fs...> {
  using result = value_result_t<T, F>;
  using rest = chain_types<chain_value_t<result>, Fs...>;
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
  using values = typename prepend_value<typename rest::values>::type;
  using cleanups = typename prepend_cleanup<typename rest::cleanups>::type;
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
/// fixed offset away.
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
  static void destroy(handler_for<T>* h) noexcept { chain(h)->release(); }
  static constexpr handler_ops_for<T> ops = future_state_ops<T, chain_sink>(&destroy);
};

template <class Chain, class Indices, class Values>
struct chain_sinks;
template <class Chain, std::size_t... I, class... T>
struct chain_sinks<Chain, std::index_sequence<I...>, type_list<T...>> : chain_sink<Chain, I, T>... {};

/// The state of a fused chain: the future<U> of its end, the handlers still
/// to run, and one callback handler per operation (the one that completes
/// step I delivers to sink I: an operation's callback may still be alive,
/// being destroyed by its op, while the next step's operation starts).
template <class T0, class G0, class... Fs>
class chain_fstate final
    : public future_state<typename type_at<sizeof...(Fs), typename chain_types<T0, Fs...>::values>::type>,
      private chain_sinks<chain_fstate<T0, G0, Fs...>, std::make_index_sequence<sizeof...(Fs) + 1>,
                          typename chain_types<T0, Fs...>::values> {
  static constexpr std::size_t N = sizeof...(Fs);
  static_assert(N < 250, "a chain of at most 249 steps (at_ counts them in a byte)");
  using types = chain_types<T0, Fs...>;
  template <std::size_t I>
  using value_t = typename type_at<I, typename types::values>::type;
  template <class L>
  struct with_first_cleanup;
  template <class... G>
  struct with_first_cleanup<type_list<G...>> {
    using type = type_list<G0, G...>;
  };
  /// G_I: the cleanup of the operation that completes step I (void: none).
  template <std::size_t I>
  using cleanup_t = typename type_at<I, typename with_first_cleanup<typename types::cleanups>::type>::type;
  template <std::size_t I>
  using handler_t = typename type_at<I, type_list<Fs...>>::type;

  template <std::size_t I>
  using sink = chain_sink<chain_fstate, I, value_t<I>>;
  template <class, std::size_t, class>
  friend struct chain_sink;

public:
  using result_type = value_t<N>;
  using base = future_state<result_type>;

  /// \p cleanup: the first operation's (empty_value when it has none).
  template <class... H, class G>
  chain_fstate(std::tuple<H...>&& handlers, G&& cleanup) : base(&ops_) {
    std::apply([&](auto&&... h) { construct_handlers(std::index_sequence_for<Fs...>{}, static_cast<decltype(h)&&>(h)...); },
               std::move(handlers));
    if constexpr (!std::is_void_v<G0>) cleanups_at<0>().put(static_cast<G&&>(cleanup));
  }
  ~chain_fstate() {
    for_each_index(std::index_sequence_for<Fs...>{}, [&](auto i) {
      if (i >= handlers_from_)
        std::get<i>(handlers_).f.~handler_t<i>();
      else
        std::get<i>(handlers_).room.~room_t<i + 1>();
    });
  }

  /// Starts the operation of step I with a callback to sink I.
  template <std::size_t I, class Start>
  void start(Start& start) {
    using T = value_t<I>;
    sink<I>& k = *this;
    k.refs = 1;
    this->add_ref(); // the callback's
    at_ = I;
    using callback_type = rebind_sink_t<sink<I>, callback_t<T>>;
    callback_type cb = callback_type::adopt_owning(static_cast<handler_for<T>*>(&k));
    try {
      if constexpr (std::is_invocable_v<Start&, callback_type&&>)
        start(std::move(cb));
      else
        start(cb);
    } catch (...) {
      if (at_ == I) fail<I>(error_from_current_exception());
    }
  }

private:
  template <std::size_t... I, class... H>
  void construct_handlers(std::index_sequence<I...>, H&&... h) {
    (::new (static_cast<void*>(std::addressof(std::get<I>(handlers_).f))) handler_t<I>(static_cast<H&&>(h)), ...);
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

  /// Destroys the handlers that have not run (they never will).
  void drop_remaining_handlers() noexcept {
    for_each_index(std::index_sequence_for<Fs...>{}, [&](auto i) {
      if (i >= handlers_from_) to_room<i>();
    });
    handlers_from_ = N;
  }
  /// Handler I goes; an empty cleanup room takes its place.
  template <std::size_t I>
  void to_room() noexcept {
    auto& slot = std::get<I>(handlers_);
    slot.f.~handler_t<I>();
    ::new (static_cast<void*>(std::addressof(slot.room))) room_t<I + 1>();
  }

  /// The operation of step I failed: its cleanup first, then the chain fails.
  template <std::size_t I>
  void fail(error e) {
    cleanups_at<I>().fail(e);
    if (at_ != I) [[unlikely]] // the cleanup completed the operation after all
      return;
    fail_chain(std::move(e));
  }
  void fail_chain(error e) {
    at_ = N + 1;
    drop_remaining_handlers();
    this->deliver(this->settle_error(std::move(e)));
  }

  /// The value of step I (none for void) has arrived: run handler I with it.
  template <std::size_t I, class... V>
  void arrive(V&&... v) {
    if constexpr (I == N) {
      at_ = N + 1;
      future_continuation* c;
      try {
        c = this->settle_value(static_cast<V&&>(v)...);
      } catch (...) {
        c = this->settle_error(error_from_current_exception());
      }
      this->deliver(c);
    } else {
      using T = value_t<I>;
      using F = handler_t<I>;
      using R = value_result_t<T, F>;
      at_ = N + 1; // between steps: no operation may complete us
      F& f = std::get<I>(handlers_).f;
      auto call = [&]() -> R {
        if constexpr (takes_value<T, F>())
          return f(static_cast<V&&>(v)...);
        else
          return f();
      };
      // Only the handler's own exceptions fail the chain here: what the
      // steps after it throw (a consumer's callback) goes on to our caller.
      auto failed = [this] { fail_chain(error_from_current_exception()); };
      if constexpr (std::is_void_v<R>) {
        try {
          call();
        } catch (...) {
          return failed();
        }
        drop_handler<I>();
        arrive<I + 1>();
      } else if constexpr (is_future<std::remove_cvref_t<R>>::value) {
        future<value_t<I + 1>> q;
        try {
          q = call(); // a chain starts here, converting
        } catch (...) {
          return failed();
        }
        drop_handler<I>();
        adopt<I + 1>(std::move(q));
      } else {
        std::optional<std::remove_cvref_t<R>> r;
        try {
          r.emplace(call());
        } catch (...) {
          return failed();
        }
        drop_handler<I>();
        if constexpr (op_result<std::remove_cvref_t<R>>::value) {
          using G = cleanup_t<I + 1>;
          if constexpr (!std::is_void_v<G>) cleanups_at<I + 1>().put(std::move(*r).take_cleanup());
          auto s = std::move(*r).take_start();
          start<I + 1>(s);
        } else {
          arrive<I + 1>(std::move(*r));
        }
      }
    }
  }

  template <std::size_t I>
  void drop_handler() noexcept {
    if (handlers_from_ == I) {
      to_room<I>();
      handlers_from_ = I + 1;
    }
  }

  /// A handler returned a future: wait for it, then go on at step I.
  template <std::size_t I>
  void adopt(future<value_t<I>> q) {
    future_state<value_t<I>>* qs = q.release();
    if (!qs) return fail_chain(error("future: a handler returned an empty future"));
    if (!qs->pending()) {
      struct holder {
        future_state<value_t<I>>* s;
        ~holder() { s->release(); }
      } h{qs};
      if (qs->status == outcome_status::rejected) return fail_chain(std::move(qs->err));
      if constexpr (std::is_void_v<value_t<I>>)
        return arrive<I>();
      else
        return arrive<I>(std::move(qs->value));
    }
    at_ = I;
    waiter_.fire = &fire_adopted<I>;
    waiter_.self = this;
    this->add_ref(); // q's continuation holds us
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
    if (src->status == outcome_status::rejected) {
      error e = std::move(src->err);
      src->release();
      self->fail_chain(std::move(e));
    } else if constexpr (std::is_void_v<value_t<I>>) {
      src->release();
      self->template arrive<I>();
    } else {
      value_t<I> v(std::move(src->value));
      src->release();
      self->template arrive<I>(std::move(v));
    }
    self->release();
    return {};
  }

  static void destroy(handler_for<result_type>* h) noexcept { pool_delete(&static_cast<chain_fstate&>(static_cast<base&>(*h))); }
  static constexpr handler_ops_for<result_type> ops_ = future_state_ops<result_type, base>(&destroy);

  template <std::size_t I>
  using room_t = chain_cleanup_room<cleanup_t<I>>;
  template <std::size_t... I>
  static auto slots_of(std::index_sequence<I...>) -> std::tuple<step_slot<handler_t<I>, room_t<I + 1>>...>;

  /// The step whose operation (or adopted future) may complete us; N + 1
  /// between steps and once settled.
  std::uint8_t at_ = 0;
  /// Handlers from this index on are alive.
  std::uint8_t handlers_from_ = 0;
  room_t<0> head_cleanup_;
  decltype(slots_of(std::index_sequence_for<Fs...>{})) handlers_;
  waiter waiter_;
};

} // namespace detail

/// The lazy chain make_future_chain builds (see the top of this file).
template <class T0, class Start, class G0, class... Fs>
class [[nodiscard]] future_chain {
  using state = detail::chain_fstate<T0, G0, Fs...>;

public:
  using value_type = typename state::result_type;

  /// The first operation's cleanup, or nothing (empty_value).
  using cleanup_type = std::conditional_t<std::is_void_v<G0>, detail::empty_value, G0>;

  future_chain(Start start, cleanup_type cleanup, std::tuple<Fs...> handlers)
      : start_(std::move(start)), cleanup_(std::move(cleanup)), handlers_(std::move(handlers)) {}

  /// One more step: \p on_value, as future::then's.
  template <class F>
  future_chain<T0, Start, G0, Fs..., std::decay_t<F>> then(F&& on_value) && {
    return {std::move(start_), std::move(cleanup_),
            std::tuple_cat(std::move(handlers_), std::tuple<std::decay_t<F>>(static_cast<F&&>(on_value)))};
  }

  /// Builds the chain's state and starts its first operation.
  future<value_type> start() && {
    auto* s = detail::pool_new<state>(std::move(handlers_), std::move(cleanup_));
    future<value_type> f(s);
    s->template start<0>(start_);
    return f;
  }
  // NOLINTNEXTLINE(google-explicit-constructor): converts where a future is returned
  operator future<value_type>() && { return std::move(*this).start(); }
  /// start(), as the state's one reference (what when_all(n, make) takes of a future).
  detail::future_state<value_type>* release() && { return std::move(*this).start().release(); }

private:
  template <class, class, class, class...>
  friend class future_chain;

  Start start_;
  [[no_unique_address]] cleanup_type cleanup_;
  std::tuple<Fs...> handlers_;
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
