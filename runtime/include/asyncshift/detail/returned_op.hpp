// What a `then` state (promise and future alike) needs to know about an
// operation its handler returns: `return asyncshift::promisify<T>(start)`,
// with or without on_error(g). The state starts such an operation with a
// callback to itself, so the operation settles it directly, with no promise
// or future of its own in between; an on_error cleanup then lives in the
// bytes the handlers leave (then_room).
#pragma once

#include "asyncshift/detail/outcome.hpp"
#include "asyncshift/on_error.hpp"

#include <type_traits>

namespace asyncshift {

template <class T, class F>
class callback_op;
template <class T, class F, class G>
class cleanup_op;

namespace detail {

/// An operation a `then` handler may return (promisify(start), with or
/// without on_error): the handler's state starts it in place of a promise or
/// future.
template <class R>
struct op_result : std::false_type {
  using cleanup = void;
};
template <class T, class F>
struct op_result<callback_op<T, F>> : std::true_type {
  using value_type = T;
  using cleanup = void;
};
template <class T, class F, class G>
struct op_result<cleanup_op<T, F, G>> : std::true_type {
  using value_type = T;
  using cleanup = G;
};

/// The cleanup (on_error's function) of the operation a handler \p OnValue
/// returns, when it returns promisify(start, on_error(g)); void otherwise,
/// and for what is not a callable value handler (pass_through, finally's).
template <class T, class OnValue>
struct value_cleanup {
  using type = void;
};
template <class T, class OnValue>
  requires(takes_value<T, OnValue>() || std::is_invocable_v<OnValue&>)
struct value_cleanup<T, OnValue> {
  using type = typename op_result<std::remove_cvref_t<value_result_t<T, OnValue>>>::cleanup;
};

/// Where a then state keeps its handlers, and then, when the handler returned
/// an operation with a cleanup, that cleanup: the handlers are gone by then,
/// so the two share their bytes.
template <class Handlers, class G>
struct then_room {
  template <class V, class E>
  then_room(V&& v, E&& e) : handlers(static_cast<V&&>(v), static_cast<E&&>(e)) {}
  ~then_room() {}
  union {
    Handlers handlers;
    cleanup_slot<G> cleanup;
  };
};
template <class Handlers>
struct then_room<Handlers, void> {
  template <class V, class E>
  then_room(V&& v, E&& e) : handlers(static_cast<V&&>(v), static_cast<E&&>(e)) {}
  [[no_unique_address]] Handlers handlers;
};

} // namespace detail
} // namespace asyncshift
