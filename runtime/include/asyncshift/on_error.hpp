// asyncshift::on_error(f): a cleanup attached to the operation itself.
//
//   asyncshift::make_promise([&](auto cb) { q.execWithin(tx, cb); },
//                            asyncshift::on_error([=](const asyncshift::error &) { tx.rollback(); }))
//
// is `make_promise(start).tap_error(f)` without the second step: f runs when
// the operation's callback reports an error, inline, before the promise (or
// future) rejects with that error, as `if (err) { cleanup; return done(err); }`
// does in the callback original. The tap_error form allocates a second state
// and, for a promise, runs f one microtask later; both reject with the same
// error, and an exception thrown by f becomes the error in both.
#pragma once

#include "asyncshift/error.hpp"

#include <cassert>
#include <type_traits>
#include <utility>

namespace asyncshift {

/// What on_error() makes: the cleanup, for make_promise and make_future.
template <class F>
struct on_error_cleanup {
  F f;
};

/// A cleanup run when an operation fails, before its promise or future
/// rejects: \p f(const error&) or \p f(); its result is ignored.
template <class F>
on_error_cleanup<std::decay_t<F>> on_error(F&& f) {
  return {static_cast<F&&>(f)};
}

namespace detail {

/// Runs the cleanup \p f for error \p e: an exception from it replaces \p e.
template <class F>
void run_cleanup(F& f, error& e) noexcept {
  try {
    if constexpr (std::is_invocable_v<F&, const error&>)
      (void)f(std::as_const(e));
    else
      (void)f();
  } catch (...) {
    e = error_from_current_exception();
  }
}

/// The cleanup of an operation's state, destroyed as soon as the operation
/// completes (the state itself may live much longer, until its reader goes).
template <class F>
class cleanup_slot {
public:
  explicit cleanup_slot(F f) : alive_(true) { ::new (static_cast<void*>(std::addressof(f_))) F(std::move(f)); }
  /// An empty slot, for put (a fused future chain's room for the cleanup of its step's operation).
  cleanup_slot() noexcept : alive_(false) {}
  /// Puts a cleanup into an empty slot.
  template <class G>
  void put(G&& g) {
    assert(!alive_ && "a cleanup put into a slot that holds one");
    ::new (static_cast<void*>(std::addressof(f_))) F(static_cast<G&&>(g));
    alive_ = true;
  }
  cleanup_slot(const cleanup_slot&) = delete;
  cleanup_slot& operator=(const cleanup_slot&) = delete;
  ~cleanup_slot() { drop(); }
  /// A cleanup with nothing to destroy (`[=] { tx.rollback(); }` capturing
  /// plain values) leaves the slot trivially destructible, and drop a store:
  /// the rooms of a fused chain and the states that hold one go without a
  /// test each (doxbee promise -20 Ir per execution, future -11 / -21).
  ~cleanup_slot()
    requires std::is_trivially_destructible_v<F>
  = default;

  /// On failure: runs the cleanup once (it may replace \p e), then drops it.
  /// Marked spent before it runs: a cleanup that cancels its operation may
  /// see it complete, and fail again, from inside the cleanup.
  void fail(error& e) noexcept {
    if (!alive_) return;
    alive_ = false;
    run_cleanup(f_, e);
    f_.~F();
  }
  void drop() noexcept {
    if constexpr (std::is_trivially_destructible_v<F>) {
      alive_ = false; // nothing to destroy: no test
    } else if (alive_) {
      alive_ = false;
      f_.~F();
    }
  }

private:
  bool alive_;
  union {
    F f_;
  };
};

} // namespace detail
} // namespace asyncshift
