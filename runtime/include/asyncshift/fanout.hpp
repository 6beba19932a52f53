// Fan-out and series over an index, for code generated from
// asyncshift::parallel(n, branch, done) and each_series(n, step, done).
//
//   co_await asyncshift::when_all(n, [=](std::size_t i) -> asyncshift::task<T> { ... });
//   asyncshift::promise<T>::all(n, [=](std::size_t i) -> asyncshift::promise<T> { ... });
//   asyncshift::when_all(n, [=](std::size_t i) -> asyncshift::future<T> { ... });
//   asyncshift::each_series(n, [=](std::size_t i) -> asyncshift::promise<> { ... });
//
// when_all(n, f) keeps f alive until every branch has finished: a lambda
// coroutine's captures live in the lambda object, not in the coroutine
// frame, and after the first error the other branches go on running (nothing
// is cancelled) while the awaiting coroutine may already be gone.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/combinators.hpp"
#include "asyncshift/future.hpp"
#include "asyncshift/promise.hpp"
#include "asyncshift/promisify.hpp"
#include "asyncshift/task.hpp"

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace asyncshift {

namespace detail {

/// What a task started detached delivers: task<T> -> T; in errors-as-values
/// code task<error> -> void and task<result<U>> -> U.
template <class Task>
struct fanout_item;
template <class T>
struct fanout_item<task<T>> {
  using type = T;
};
template <>
struct fanout_item<task<error>> {
  using type = void;
};
template <class U>
struct fanout_item<task<result<U>>> {
  using type = U;
};

template <class T>
using fanout_values_t = std::conditional_t<std::is_void_v<T>, void, std::vector<T>>;

} // namespace detail

/// Starts f(0) ... f(n - 1) (tasks) at once. Awaiting yields their values in
/// index order (std::vector<T>; nothing for void) or throws the first error;
/// settle() of it yields the outcome as a value. Later outcomes are ignored
/// and nothing is cancelled.
template <class F>
  requires requires(F& f) { typename detail::fanout_item<std::invoke_result_t<F&, std::size_t>>::type; }
auto when_all(std::size_t n, F f) {
  using item = typename detail::fanout_item<std::invoke_result_t<F&, std::size_t>>::type;
  using item_callback = typename detail::callback_for<item>::type;
  using values = detail::fanout_values_t<item>;
  auto owner = std::make_shared<F>(std::move(f));
  return promisify<values>([owner, n](auto done) {
    // Each branch task completes its join slot directly (no callback block
    // per branch). f stays alive in the one callback that parallel() holds
    // until its last branch has reported, whatever happened first.
    auto branch = [&owner](std::size_t i, item_callback cb) { start((*owner)(i), std::move(cb)); };
    if constexpr (std::is_void_v<item>) {
      parallel(n, branch, callback<>([owner, done](error e) { done(std::move(e)); }));
    } else {
      parallel<item>(n, branch, callback<values>([owner, done](error e, values v) { done(std::move(e), std::move(v)); }));
    }
  });
}

namespace detail {
template <class R>
struct fanout_op : std::false_type {};
template <class T, class G>
struct fanout_op<callback_op<T, G>> : std::true_type {
  using item = T;
};
} // namespace detail

/// As above, for branches that are one callback-style operation each
/// (f(i) returns asyncshift::promisify(...)): each operation is started with
/// its branch's callback directly, with no coroutine frame per branch.
template <class F>
  requires detail::fanout_op<std::invoke_result_t<F&, std::size_t>>::value
auto when_all(std::size_t n, F f) {
  using item = typename detail::fanout_op<std::invoke_result_t<F&, std::size_t>>::item;
  using item_callback = typename detail::callback_for<item>::type;
  return promisify<detail::fanout_values_t<item>>([f = std::move(f), n](auto done) mutable {
    // parallel() starts every branch before it returns: f outlives the starts,
    // and each operation owns what it needs from then on.
    // The start function is moved out of the callback_op before it runs: the
    // op then dies with its state known, where running it in place let the
    // call see the op's address, and clang re-read the state and ran the
    // destructor's switch after every start (~6 Ir per branch).
    // cb is parallel's borrowed_sink (converts to an item_callback; names its
    // join), passed on as it is, so that a template op completes the join directly.
    auto branch = [&f](std::size_t i, auto cb) {
      static_assert(std::is_convertible_v<decltype(cb), item_callback>);
      auto start = f(i).take_start();
      start(std::move(cb));
    };
    if constexpr (std::is_void_v<item>)
      parallel(n, branch, std::move(done));
    else
      parallel<item>(n, branch, std::move(done));
  });
}

namespace detail {
template <class R>
concept deliverable = requires(R r, callback<> cb) { std::move(r).then_callback(std::move(cb)); };
} // namespace detail

/// Runs f(0), f(1), ... one after another, each returning a promise<> or a
/// future<>; the result (of the same kind) fails with the first error.
template <class F>
  requires detail::deliverable<std::invoke_result_t<F&, std::size_t>>
auto each_series(std::size_t n, F f) {
  using step_result = std::invoke_result_t<F&, std::size_t>;
  auto run = [n, f = std::move(f)](callback<> done) mutable {
    each_series(
        n, [f](std::size_t i, callback<> step_done) mutable { f(i).then_callback(std::move(step_done)); },
        std::move(done));
  };
  if constexpr (std::is_same_v<step_result, promise<>>)
    return make_promise(std::move(run));
  else
    return make_future(std::move(run));
}

} // namespace asyncshift
