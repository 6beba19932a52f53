// Callback-style combinators: parallel and each_series (SPEC §3), and series
// and waterfall in the manner of the caolan/async library.
//
// Each allocates one shared state per call (parallel's from the runtime's
// pool) and hands each branch or step a borrowed callback pointing into it,
// so a fan-out of a million branches is a few allocations, not a million. The
// sequential ones run synchronously completing steps in a loop (a
// trampoline), so a long series does not grow the stack.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/detail/join_values.hpp"
#include "asyncshift/detail/outcome.hpp"
#include "asyncshift/detail/pool.hpp"
#include "asyncshift/error.hpp"
#include "asyncshift/shared_state.hpp"

#include <cassert>
#include <cstddef>
#include <memory>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace asyncshift {

namespace detail {

template <class T>
struct branch_sink;

/// The handler ops that a parallel() call's branch sinks point to: the
/// join's own copy, its first member, so that a sink finds its join from its
/// ops pointer and needs no pointer of its own (16 bytes per branch, not 24:
/// a million-branch fan-out keeps 8 MB less).
template <class T>
struct join_ops_holder {
  handler_ops<T> slot_ops;
};

/// Shared state of one parallel() call; freed when the last branch reports.
template <class T>
struct parallel_join : join_ops_holder<T> {
  explicit parallel_join(std::size_t count);

  /// The join that \p ops, one of its sinks' ops pointer, belongs to.
  static parallel_join* of(const handler_ops<T>* ops) noexcept {
    // slot_ops is the first member of a standard-layout base: the two are
    // pointer-interconvertible, and the base is ours.
    static_assert(std::is_standard_layout_v<join_ops_holder<T>>);
    return static_cast<parallel_join*>(reinterpret_cast<join_ops_holder<T>*>(const_cast<handler_ops<T>*>(ops)));
  }

  /// Whether a value waits in its branch's sink: one that fits in the sink's
  /// first word (the ops pointer, free once the sink has been called; a
  /// debug build's called mark, beyond it, stays) and is copied as bytes.
  /// The result vector is then made once, at the end, while the sinks' pages
  /// go back (as promise all's slots): a fan-out in flight holds no result
  /// vector beside its sinks (a million int64 branches: 8 MB less at the peak).
  static constexpr bool values_in_sinks =
      std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(void*) && alignof(T) <= alignof(void*);

  std::size_t n;
  std::size_t reported = 0;
  bool finished = false;
  std::conditional_t<values_in_sinks, empty_value, join_values<T>> values;
  callback<std::vector<T>> done;
  pooled_array<branch_sink<T>> sinks;

  /// Branch i's outcome.
  void report(std::size_t i, error&& e, T&& v) {
    if (!e) [[likely]]
      return report_value(i, std::move(v));
    ++reported;
    conclude(std::move(e));
  }
  /// Branch i's value. The common case, a value while other branches still
  /// run, stores it and returns; conclude() does the rest.
  void report_value(std::size_t i, T&& v) {
    ++reported;
    if constexpr (values_in_sinks)
      ::new (static_cast<void*>(sinks.get() + i)) T(std::move(v)); // the sink has been called: its first word is free
    else if (!finished)
      values.set(i, std::move(v));
    if (reported != n) [[likely]]
      return;
    conclude_success();
  }

private:
  /// The last value: out of line and with no error object for the caller
  /// to destroy (as parallel_join<void>'s).
  [[gnu::noinline]] void conclude_success() { conclude(error{}); }

  /// After an error or the last outcome: completes done with the first
  /// error or with the values (unless it has been), and frees the join after the last.
  [[gnu::noinline]] void conclude(error&& e) {
    if (!finished) {
      finished = true;
      if (e)
        done(std::move(e));
      else
        done({}, take_values());
    }
    if (reported == n) pool_delete(this);
  }

  /// The values, in index order, once every branch has reported one.
  std::vector<T> take_values() {
    if constexpr (values_in_sinks)
      return take_values_from_slots<T>(sinks);
    else
      return values.take();
  }
};

/// The join of branches without a value. No branch needs an index, so the
/// join is every branch's sink (their callbacks borrow it) and counts them:
/// no element per branch (madeup_parallel: a block and 25 stores fewer per
/// execution). The price is in debug builds: the called-twice check cannot
/// tell one branch from another, so a branch that calls its callback twice is
/// caught only as one report too many (assert), not at its second call.
template <>
struct parallel_join<void> : handler<> {
  explicit parallel_join(std::size_t count) : handler<>{&ops_}, n(count) {}

  std::size_t n;
  std::size_t reported = 0;
  bool finished = false;
  callback<> done;

  static void on_callback(handler<>* self, error&& e) { static_cast<parallel_join*>(self)->report(std::move(e)); }
  /// The success entry (a borrowed_sink's deliver_value): no error object.
  static void on_value(handler<>* self) { static_cast<parallel_join*>(self)->report_success(); }
  static void no_destroy(handler<>*) noexcept {}
  static constexpr handler_ops<> ops_{&on_callback, &no_destroy};

  /// A branch's outcome.
  void report(error&& e) {
    if (!e) [[likely]]
      return report_success();
    rearm();
    ++reported;
    conclude(std::move(e));
  }
  /// A branch's success. The common case, a success while other branches
  /// still run, is a count; conclude() does the rest.
  void report_success() {
    rearm();
    if (++reported != n) [[likely]]
      return;
    conclude_success();
  }

private:
  /// Every branch calls this one sink: the called-twice check's mark is for
  /// one call, so it is cleared after each (debug builds only).
  void rearm() noexcept {
#ifndef NDEBUG
    assert(reported < n && "a branch of asyncshift::parallel called its callback twice");
    this->called = false;
#endif
  }

  /// The last success: out of line and with no error object for the caller
  /// to destroy, so an op's completion calls it as its last act (a tail
  /// call, and no registers saved for it on the common path).
  [[gnu::noinline]] void conclude_success() { conclude(error{}); }

  /// After an error or the last outcome: completes done (unless it has
  /// been), and frees the join after the last.
  [[gnu::noinline]] void conclude(error&& e) {
    if (!finished) {
      finished = true;
      done(std::move(e));
    }
    if (reported == n) pool_delete(this);
  }
};

/// Branch i's sink: element i of its join's array, so it knows its index
/// without storing it, and a bare handler header whose ops are its join's
/// (parallel_join::of), so it knows its join without storing that either.
template <class T>
struct branch_sink : handler<T> {
  static void on_callback(handler<T>* self, error&& e, T&& v) {
    auto* me = static_cast<branch_sink*>(self);
    parallel_join<T>* j = parallel_join<T>::of(me->ops);
    j->report(j->sinks.index_of(me), std::move(e), std::move(v));
  }
  /// The success entry (a borrowed_sink's deliver_value): no error object.
  static void on_value(handler<T>* self, T&& v) {
    auto* me = static_cast<branch_sink*>(self);
    parallel_join<T>* j = parallel_join<T>::of(me->ops);
    j->report_value(j->sinks.index_of(me), std::move(v));
  }
  static void no_destroy(handler<T>*) noexcept {}
  explicit branch_sink(const handler_ops<T>* join_ops) : handler<T>{join_ops} {}
};
static_assert(sizeof(branch_sink<int>) == sizeof(handler<int>), "a branch sink is a handler header and nothing more");

template <class T>
parallel_join<T>::parallel_join(std::size_t count)
    : join_ops_holder<T>{{&branch_sink<T>::on_callback, &branch_sink<T>::no_destroy}}, n(count), sinks(count, &this->slot_ops) {}

template <class T, class F, class Done>
void run_parallel(std::size_t n, F& branch, Done done) {
  if (n == 0) {
    if constexpr (std::is_void_v<T>)
      done({});
    else
      done({}, std::vector<T>{});
    return;
  }
  auto* join = pool_new<parallel_join<T>>(n);
  join->done = std::move(done);
  if constexpr (std::is_void_v<T>) {
    // Every branch's callback borrows the join. The join lives until its
    // n-th report, which can come no sooner than the last branch's start.
    using cb_type = rebind_borrowed_t<parallel_join<void>, callback<>>;
    for (std::size_t i = 0; i < n; ++i) branch(i, cb_type::borrow(join));
  } else {
    if constexpr (!parallel_join<T>::values_in_sinks) join->values.expect(n);
    // Keep our own pointers: a branch that completes synchronously may be the
    // last one and free the join before the loop ends.
    branch_sink<T>* sinks = join->sinks.get();
    for (std::size_t i = 0; i < n; ++i) {
      // A callback<T> that template ops complete directly.
      using cb_type = rebind_borrowed_t<branch_sink<T>, callback_t<T>>;
      branch(i, cb_type::borrow(&sinks[i]));
    }
  }
}

} // namespace detail

/// Runs branch(i, cb) for i in [0, n) at once. \p done gets the values in
/// index order, or the first error (later outcomes are ignored; nothing is
/// cancelled).
template <class T, class F>
void parallel(std::size_t n, F branch, callback<std::vector<T>> done) {
  detail::run_parallel<T>(n, branch, std::move(done));
}

/// As above, for branches without a value.
template <class F>
void parallel(std::size_t n, F branch, callback<> done) {
  detail::run_parallel<void>(n, branch, std::move(done));
}

namespace detail {

template <class F>
struct series_state : handler<> {
  F step;
  std::size_t n;
  std::size_t i = 0;
  callback<> done;
  bool in_loop = false;
  bool pending = false; // a step completed while the loop was running it
  error last;

  series_state(F f, std::size_t count, callback<> d) : handler<>{&ops_}, step(std::move(f)), n(count), done(std::move(d)) {}

  static void on_callback(handler<>* self, error&& e) {
    auto* me = static_cast<series_state*>(self);
    me->last = std::move(e);
    if (me->in_loop) {
      me->pending = true; // the loop below picks it up: no recursion
      return;
    }
    me->advance();
  }
  static void no_destroy(handler<>*) noexcept {}
  static constexpr handler_ops<> ops_{&on_callback, &no_destroy};

  /// Called when step i - 1 has completed (or at the start, with i == 0).
  void advance() {
    for (;;) {
      if (last || i == n) {
        callback<> d = std::move(done);
        error e = std::move(last);
        delete this;
        d(std::move(e));
        return;
      }
      const std::size_t index = i++;
      in_loop = true;
      pending = false;
      this->called = false; // the sink is reused, once per step
      step(index, sink_callback<series_state>::borrow(this));
      in_loop = false;
      if (!pending) return; // the step is asynchronous: on_callback() continues
    }
  }
};

} // namespace detail

/// Runs step(i, cb) for i in [0, n), one after another; stops at the first error.
template <class F>
void each_series(std::size_t n, F step, callback<> done) {
  (new detail::series_state<F>(std::move(step), n, std::move(done)))->advance();
}

namespace detail {

/// series(): each_series that keeps each step's value.
template <class T, class F>
struct series_values_state : handler<T> {
  F step;
  std::size_t n;
  std::size_t i = 0;
  callback<std::vector<T>> done;
  std::vector<T> values;
  bool in_loop = false;
  bool pending = false;
  error last;

  series_values_state(F f, std::size_t count, callback<std::vector<T>> d)
      : handler<T>{&ops_}, step(std::move(f)), n(count), done(std::move(d)) {
    values.reserve(count);
  }

  static void on_callback(handler<T>* self, error&& e, T&& v) {
    auto* me = static_cast<series_values_state*>(self);
    me->last = std::move(e);
    if (!me->last) me->values.push_back(std::move(v));
    if (me->in_loop) {
      me->pending = true;
      return;
    }
    me->advance();
  }
  static void no_destroy(handler<T>*) noexcept {}
  static constexpr handler_ops<T> ops_{&on_callback, &no_destroy};

  void advance() {
    for (;;) {
      if (last || i == n) {
        callback<std::vector<T>> d = std::move(done);
        error e = std::move(last);
        std::vector<T> out = std::move(values);
        delete this;
        if (e)
          d(std::move(e));
        else
          d({}, std::move(out));
        return;
      }
      const std::size_t index = i++;
      in_loop = true;
      pending = false;
      this->called = false; // the sink is reused, once per step
      step(index, sink_callback<series_values_state, T>::borrow(this));
      in_loop = false;
      if (!pending) return;
    }
  }
};

/// The parameter list of a callable with one, non-generic operator().
template <class F>
struct callable_args : callable_args<decltype(&F::operator())> {};
template <class R, class... A>
struct callable_args<R (*)(A...)> {
  using type = std::tuple<A...>;
};
template <class R, class... A>
struct callable_args<R (&)(A...)> : callable_args<R (*)(A...)> {};
template <class R, class... A>
struct callable_args<R(A...)> : callable_args<R (*)(A...)> {};
template <class C, class R, class... A>
struct callable_args<R (C::*)(A...)> : callable_args<R (*)(A...)> {};
template <class C, class R, class... A>
struct callable_args<R (C::*)(A...) const> : callable_args<R (*)(A...)> {};
template <class C, class R, class... A>
struct callable_args<R (C::*)(A...) noexcept> : callable_args<R (*)(A...)> {};
template <class C, class R, class... A>
struct callable_args<R (C::*)(A...) const noexcept> : callable_args<R (*)(A...)> {};

/// The callback a waterfall task completes: the type of its last parameter.
template <class F>
using task_callback_t = std::remove_cvref_t<
    std::tuple_element_t<std::tuple_size_v<typename callable_args<std::decay_t<F>>::type> - 1, typename callable_args<std::decay_t<F>>::type>>;

/// The callback type a waterfall's done becomes: that of the last task.
template <class... F>
struct waterfall_result {
  using type = task_callback_t<std::tuple_element_t<sizeof...(F) - 1, std::tuple<F...>>>;
};
template <>
struct waterfall_result<> {
  using type = callback<>;
};

template <std::size_t I, class Tasks, class Done, class... In>
void waterfall_step(const shared_state<Tasks>& tasks, const Done& done, In&&... in) {
  if constexpr (I == std::tuple_size_v<Tasks>) {
    done({}, static_cast<In&&>(in)...);
  } else {
    using task_type = std::tuple_element_t<I, Tasks>;
    using cb_type = task_callback_t<task_type>;
    static_assert(is_callback<cb_type>::value, "a waterfall task's last parameter is an asyncshift::callback<...>");
    auto next = [tasks, done](error e, auto&&... out) {
      if (e) return done(std::move(e));
      waterfall_step<I + 1>(tasks, done, static_cast<decltype(out)&&>(out)...);
    };
    std::get<I>(*tasks)(static_cast<In&&>(in)..., cb_type(std::move(next)));
  }
}

} // namespace detail

/// Runs step(i, cb) for i in [0, n), one after another, and gives \p done
/// their values in order; stops at the first error (async.series).
template <class T, class F>
void series(std::size_t n, F step, callback<std::vector<T>> done) {
  (new detail::series_values_state<T, F>(std::move(step), n, std::move(done)))->advance();
}

/// As above, for steps without a value (each_series under caolan's name).
template <class F>
void series(std::size_t n, F step, callback<> done) {
  each_series(n, std::move(step), std::move(done));
}

/// Runs tasks one after another, each passing its value to the next
/// (async.waterfall): `waterfall(f0, f1, ..., fn, done)` calls
/// `f0(callback<A>)`, then `f1(a, callback<B>)`, and so on; \p done (the
/// last argument) gets the last task's value, or the first error, after which
/// no further task starts. Each task's last parameter must be spelt as an
/// asyncshift::callback<...> (the types are read off it).
template <class... A>
void waterfall(A&&... args) {
  static_assert(sizeof...(A) > 0, "waterfall needs at least its final callback");
  auto all = std::forward_as_tuple(static_cast<A&&>(args)...);
  constexpr std::size_t n = sizeof...(A) - 1;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    using tasks_type = std::tuple<std::decay_t<std::tuple_element_t<I, std::tuple<A...>>>...>;
    using done_type = typename detail::waterfall_result<std::tuple_element_t<I, tasks_type>...>::type;
    done_type done(std::get<n>(std::move(all)));
    auto tasks = make_shared_state<tasks_type>(std::get<I>(std::move(all))...);
    detail::waterfall_step<0>(tasks, done);
  }(std::make_index_sequence<n>{});
}

} // namespace asyncshift
