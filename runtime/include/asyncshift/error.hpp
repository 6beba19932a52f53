// asyncshift::error — the error value of error-first completion handlers.
//
// Success is the default-constructed value and costs one null pointer: copying,
// moving and testing a success never touches memory. A failure holds an
// intrusively reference-counted message (atomic, because a failure may be made
// on a worker thread and read on the loop thread).
#pragma once

#include "asyncshift/detail/cxx20.hpp"

#include <atomic>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

// throw_error is inlined where it is called (it is one call and the throw).
// Out of line, it is one more frame for the unwinder to step through twice
// (to find the handler, then to unwind), with a landing pad of its own that
// restarts the unwinding: about 8,700 instructions more per failing doxbee
// execution in `coro`.
#if defined(__GNUC__)
#define ASYNCSHIFT_THROW_INLINE [[gnu::always_inline]] inline
#else
#define ASYNCSHIFT_THROW_INLINE inline
#endif

namespace asyncshift {

class error {
public:
  error() noexcept = default;
  error(std::string message) : rep_(new rep{std::move(message)}) {}
  error(const char* message) : error(std::string(message)) {}
  error(std::string_view message) : error(std::string(message)) {}

  error(const error& other) noexcept : rep_(other.rep_) {
    if (rep_) rep_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  error(error&& other) noexcept : rep_(std::exchange(other.rep_, nullptr)) {}
  error& operator=(const error& other) noexcept {
    error(other).swap(*this);
    return *this;
  }
  // The old failure, if any, leaves with \p other: moving a success is two stores.
  error& operator=(error&& other) noexcept {
    std::swap(rep_, other.rep_);
    return *this;
  }
  void swap(error& other) noexcept { std::swap(rep_, other.rep_); }
  /// A success's destructor is one test, inlined everywhere: the release
  /// of a failure's shared message is out of line (g++ called the whole
  /// destructor out of line once per promise chain, for a success).
  ~error() {
    if (rep_) [[unlikely]]
      release(rep_);
  }

  /// True on failure.
  explicit operator bool() const noexcept { return rep_ != nullptr; }

  /// The failure's message; empty on success.
  const std::string& message() const noexcept {
    static const std::string none;
    return rep_ ? rep_->message : none;
  }

  friend bool operator==(const error& a, const error& b) noexcept {
    return a.rep_ == b.rep_ || (a.rep_ && b.rep_ && a.rep_->message == b.rep_->message);
  }

private:
  struct rep {
    std::string message;
    std::atomic<std::uint32_t> refs{1};
  };
  [[gnu::noinline]] static void release(rep* r) noexcept {
    if (r->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete r;
  }
  rep* rep_ = nullptr;
};

/// The exception that carries an asyncshift::error through coroutines in the
/// `coro` style (errors as exceptions).
class error_exception : public std::exception {
public:
  explicit error_exception(asyncshift::error e) noexcept : error_(std::move(e)) {}
  const char* what() const noexcept override { return error_.message().c_str(); }
  const asyncshift::error& error() const noexcept { return error_; }

private:
  asyncshift::error error_;
};

namespace detail {

/// The error_exception this thread threw last through throw_error(), with
/// the error it carries. A C++ throw costs about 10,000 instructions here
/// (unwinder set-up, an FDE lookup and the personality routine per frame);
/// when an exception that ends a coroutine is the one an awaiter threw, the
/// coroutine's error is read from here instead of rethrowing the exception
/// to look inside it. Comparing exception_ptrs compares the objects, so an
/// exception a user made (or a copy of ours) is never mistaken for it.
struct last_thrown_error {
  std::exception_ptr exception;
  asyncshift::error error;
};
inline thread_local last_thrown_error tl_last_thrown;

/// Lets go of the remembered exception and error (a cache: nothing reads it
/// unless the same exception comes back). A leak check calls this before it
/// reads the live count: the cache keeps one error from whichever run threw
/// last, and malloc may give an equal message a block of another usable size.
inline void forget_last_thrown() noexcept { tl_last_thrown = {}; }

inline error classify(const std::exception_ptr& p) noexcept {
  if (!p) return error("unknown exception");
  try {
    std::rethrow_exception(p);
  } catch (const error_exception& e) {
    return e.error();
  } catch (const std::exception& e) {
    return error(std::string(e.what()));
  } catch (...) {
    return error("unknown exception");
  }
}

/// Makes the exception throw_error() throws, and remembers it. Out of line:
/// inlined into every awaiter, it made g++ stop inlining other calls into
/// large coroutines (doxbee: +79 instructions per execution without errors).
[[gnu::noinline, gnu::cold]] inline std::exception_ptr remember_thrown(const error& e) {
  last_thrown_error& last = tl_last_thrown;
  last.exception = std::make_exception_ptr(error_exception(e)); // no throw: the object is made in place
  last.error = e;
  return last.exception;
}

} // namespace detail

/// Throws \p e (a failure) as an error_exception that error_from() can read
/// back without rethrowing it: what awaiters use to fail a coroutine.
[[noreturn]] ASYNCSHIFT_THROW_INLINE void throw_error(const error& e) {
  std::rethrow_exception(detail::remember_thrown(e));
}

/// Throws \p e as an error_exception when it is a failure.
ASYNCSHIFT_THROW_INLINE void throw_if(const error& e) {
  if (e) throw_error(e);
}

/// The error an exception stands for: an error_exception's error, a
/// std::exception's what(), or "unknown exception". Rethrows \p p once to
/// look inside it, unless it is the exception throw_error() threw last on
/// this thread. Out of line: it runs only on failure paths.
[[gnu::noinline, gnu::cold]] inline error error_from(const std::exception_ptr& p) noexcept {
  const detail::last_thrown_error& last = detail::tl_last_thrown;
  if (p == last.exception && p) return last.error;
  return detail::classify(p);
}

/// Whether \p p is an error_exception (throw_error's, without rethrowing it;
/// any other, by rethrowing it once).
[[gnu::noinline, gnu::cold]] inline bool is_error_exception(const std::exception_ptr& p) noexcept {
  if (!p) return false;
  if (p == detail::tl_last_thrown.exception) return true;
  try {
    std::rethrow_exception(p);
  } catch (const error_exception&) {
    return true;
  } catch (...) {
    return false;
  }
}

/// Converts the exception currently being handled into an error value.
inline error error_from_current_exception() noexcept { return error_from(std::current_exception()); }

} // namespace asyncshift
