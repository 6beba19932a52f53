// asyncshift::make_shared_state — the per-call state of a promise or future chain.
//
// When a callback-style function becomes a flat chain of `then`s, the
// variables that one continuation sets and a later one reads can no longer
// live in a shared enclosing lambda; the printers hoist them into one object
// that every continuation of the call captures by pointer. That pointer is
// copied into each continuation, so it must be cheap: one pooled block
// holding a plain (non-atomic) count, the function that frees it and the
// object, no control block, no weak count, no virtual calls — a fraction of
// the instructions of std::make_shared. Like the rest of the loop's objects
// it is single-threaded.
//
// A fused chain may keep the state instead (`make_promise_chain(...).keep(
// std::move(state))`): the chain then holds the one counted reference until it
// is destroyed, and its handlers capture a plain pointer (`state.get()`), which
// costs nothing to copy and nothing to destroy. The printers do this when
// nothing that captures the state can outlive the chain (docs/runtime.md,
// Round 31).
#pragma once

#include "asyncshift/callback.hpp" // ASYNCSHIFT_INLINE
#include "asyncshift/detail/pool.hpp"

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

namespace asyncshift {

namespace detail {

/// The header of make_shared_state's block: its count, and how to free it
/// (so that a chain can keep a block of any type).
struct kept_node {
  std::uint32_t refs;
  void (*free)(kept_node*) noexcept;
};

/// One counted reference to a make_shared_state block, held by what keeps
/// the block alive (a fused chain, until it is destroyed): moved, never copied.
class kept_ref {
public:
  kept_ref() noexcept = default;
  explicit kept_ref(kept_node* n) noexcept : n_(n) {}
  kept_ref(kept_ref&& other) noexcept : n_(std::exchange(other.n_, nullptr)) {}
  kept_ref& operator=(kept_ref&& other) noexcept {
    std::swap(n_, other.n_);
    return *this;
  }
  ~kept_ref() {
    if (n_ && --n_->refs == 0) n_->free(n_);
  }
  explicit operator bool() const noexcept { return n_ != nullptr; }

private:
  kept_node* n_ = nullptr;
};

} // namespace detail

/// A single-threaded, reference-counted pointer to an S (make one with
/// make_shared_state). Copies share the object; the last one destroys it.
template <class S>
class shared_state {
  struct node : detail::kept_node {
    S value;
    template <class... A>
    explicit node(A&&... a) : detail::kept_node{1, &free_node}, value(static_cast<A&&>(a)...) {}
  };

public:
  using element_type = S;

  shared_state() noexcept = default;
  ASYNCSHIFT_INLINE shared_state(const shared_state& other) noexcept : n_(other.n_) {
    if (n_) ++n_->refs;
  }
  ASYNCSHIFT_INLINE shared_state(shared_state&& other) noexcept : n_(std::exchange(other.n_, nullptr)) {}
  shared_state& operator=(shared_state other) noexcept {
    std::swap(n_, other.n_);
    return *this;
  }
  ASYNCSHIFT_INLINE ~shared_state() {
    if (n_ && --n_->refs == 0) free(n_);
  }

  S* get() const noexcept { return n_ ? &n_->value : nullptr; }
  S* operator->() const noexcept {
    assert(n_ && "dereferencing an empty shared_state");
    return &n_->value;
  }
  S& operator*() const noexcept {
    assert(n_ && "dereferencing an empty shared_state");
    return n_->value;
  }
  explicit operator bool() const noexcept { return n_ != nullptr; }
  /// How many pointers share the object (for tests).
  std::uint32_t use_count() const noexcept { return n_ ? n_->refs : 0; }

  /// Hands this pointer's reference to a keeper (a chain's keep()): the
  /// pointer is empty afterwards.
  detail::kept_ref to_kept() && noexcept { return detail::kept_ref(std::exchange(n_, nullptr)); }

  template <class T, class... A>
  friend shared_state<T> make_shared_state(A&&... a);

private:
  static constexpr bool pooled = alignof(node) <= detail::pool_granule;

  static void free(node* n) noexcept {
    if constexpr (pooled)
      detail::pool_delete(n);
    else
      delete n;
  }
  static void free_node(detail::kept_node* n) noexcept { free(static_cast<node*>(n)); }

  node* n_ = nullptr;
};

/// Makes an S from \p a in one pooled block and returns a shared pointer to it.
template <class S, class... A>
shared_state<S> make_shared_state(A&&... a) {
  shared_state<S> p;
  using node = typename shared_state<S>::node;
  if constexpr (shared_state<S>::pooled)
    p.n_ = detail::pool_new<node>(static_cast<A&&>(a)...);
  else
    p.n_ = new node(static_cast<A&&>(a)...);
  return p;
}

} // namespace asyncshift
