// asyncshift timers: waiting for a duration on the current loop's clock.
//
// `after(d, handler)` is a leaf like any other callback-style operation: it
// completes its handler (a callback<> or any `(error)` continuation) with no
// error once \p d has passed on the loop's clock, real or virtual, so one
// wait serves every style:
//
//   asyncshift::after(5ms, [=](asyncshift::error) { ... });          // callback
//   co_await asyncshift::sleep_for(5ms);                              // task
//   asyncshift::make_promise(asyncshift::sleep_for(5ms)).then(...);   // promise
//   asyncshift::make_future(asyncshift::sleep_for(5ms)).then(...);    // future
//
// The wait starts when after() is called (sleep_for: when it is awaited or
// converted), counts from the loop's clock as read then, and never fails. A
// negative duration is zero, as setTimeout's is. Waits cannot be cancelled:
// a pending one keeps run() going until it fires, as a Node.js timer that is
// never cleared does.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/loop.hpp"
#include "asyncshift/promisify.hpp"

#include <chrono>
#include <type_traits>
#include <utility>

namespace asyncshift {

/// Completes \p handler (`handler(error{})`) after \p d on the current
/// loop's clock.
template <class Rep, class Period, class H>
  requires std::is_invocable_v<std::decay_t<H>&, error>
void after(std::chrono::duration<Rep, Period> d, H&& handler) {
  loop::current().set_timeout(d, [h = std::decay_t<H>(static_cast<H&&>(handler))]() mutable { h(error{}); });
}

/// An operation that completes after \p d: `co_await sleep_for(d)` in a
/// task, make_promise(sleep_for(d)) or make_future(sleep_for(d)) in the
/// chained styles. The wait starts when the operation starts.
template <class Rep, class Period>
auto sleep_for(std::chrono::duration<Rep, Period> d) {
  return promisify([d](callback<> cb) { after(d, std::move(cb)); });
}

} // namespace asyncshift
