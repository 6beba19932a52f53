// Callback-style combinators (SPEC §3): parallel and each_series.
//
// Both allocate one shared state per call and hand each branch or step a
// borrowed callback pointing into it, so a fan-out of a million branches is
// one allocation, not a million. each_series runs synchronously completing
// steps in a loop (a trampoline), so a long series does not grow the stack.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/detail/pool.hpp"
#include "asyncshift/error.hpp"

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace asyncshift {

namespace detail {

template <class T>
struct branch_sink;

/// Shared state of one parallel() call; freed when the last branch reports.
template <class T>
struct parallel_join {
  std::size_t n;
  std::size_t reported = 0;
  bool finished = false;
  std::vector<T> values;
  callback<std::vector<T>> done;
  std::unique_ptr<branch_sink<T>[]> sinks;

  void report(std::size_t i, error&& e, T&& v) {
    ++reported;
    if (!finished) {
      if (e) {
        finished = true;
        done(std::move(e));
      } else {
        values[i] = std::move(v);
        if (reported == n) {
          finished = true;
          done({}, std::move(values));
        }
      }
    }
    if (reported == n) delete this;
  }
};

template <>
struct parallel_join<void> {
  std::size_t n;
  std::size_t reported = 0;
  bool finished = false;
  callback<> done;
  std::unique_ptr<branch_sink<void>[]> sinks;

  void report(std::size_t, error&& e) {
    ++reported;
    if (!finished && (e || reported == n)) {
      finished = true;
      done(std::move(e));
    }
    if (reported == n) delete this;
  }
};

template <class T>
struct branch_sink : handler<T> {
  parallel_join<T>* join = nullptr;
  std::size_t index = 0;
  static void deliver(handler<T>* self, error&& e, T&& v) {
    auto* me = static_cast<branch_sink*>(self);
    me->join->report(me->index, std::move(e), std::move(v));
  }
  static void no_destroy(handler<T>*) noexcept {}
  static constexpr handler_ops<T> ops_{&deliver, &no_destroy};
  branch_sink() : handler<T>{&ops_} {}
};

template <>
struct branch_sink<void> : handler<> {
  parallel_join<void>* join = nullptr;
  std::size_t index = 0;
  static void deliver(handler<>* self, error&& e) {
    auto* me = static_cast<branch_sink*>(self);
    me->join->report(me->index, std::move(e));
  }
  static void no_destroy(handler<>*) noexcept {}
  static constexpr handler_ops<> ops_{&deliver, &no_destroy};
  branch_sink() : handler<>{&ops_} {}
};

template <class T, class F, class Done>
void run_parallel(std::size_t n, F& branch, Done done) {
  if (n == 0) {
    if constexpr (std::is_void_v<T>)
      done({});
    else
      done({}, std::vector<T>{});
    return;
  }
  auto* join = new parallel_join<T>{};
  join->n = n;
  if constexpr (!std::is_void_v<T>) join->values.resize(n);
  join->done = std::move(done);
  join->sinks.reset(new branch_sink<T>[n]);
  // Keep our own pointers: a branch that completes synchronously may be the
  // last one and free the join before the loop ends.
  branch_sink<T>* sinks = join->sinks.get();
  for (std::size_t i = 0; i < n; ++i) {
    sinks[i].join = join;
    sinks[i].index = i;
  }
  for (std::size_t i = 0; i < n; ++i) {
    using cb_type = std::conditional_t<std::is_void_v<T>, callback<>, callback<T>>;
    branch(i, cb_type::borrow(&sinks[i]));
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

  static void deliver(handler<>* self, error&& e) {
    auto* me = static_cast<series_state*>(self);
    me->last = std::move(e);
    if (me->in_loop) {
      me->pending = true; // the loop below picks it up: no recursion
      return;
    }
    me->advance();
  }
  static void no_destroy(handler<>*) noexcept {}
  static constexpr handler_ops<> ops_{&deliver, &no_destroy};

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
#ifndef NDEBUG
      this->called = false; // the sink is reused, once per step
#endif
      step(index, callback<>::borrow(this));
      in_loop = false;
      if (!pending) return; // the step is asynchronous: deliver() continues
    }
  }
};

} // namespace detail

/// Runs step(i, cb) for i in [0, n), one after another; stops at the first error.
template <class F>
void each_series(std::size_t n, F step, callback<> done) {
  (new detail::series_state<F>(std::move(step), n, std::move(done)))->advance();
}

} // namespace asyncshift
