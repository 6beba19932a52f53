// asyncshift::error — the error value of error-first completion handlers.
//
// Success is the default-constructed value and costs one null pointer: copying,
// moving and testing a success never touches memory. A failure holds an
// intrusively reference-counted message (atomic, because a failure may be made
// on a worker thread and read on the loop thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

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
  ~error() {
    if (rep_ && rep_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete rep_;
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

/// Throws \p e as an error_exception when it is a failure.
inline void throw_if(const error& e) {
  if (e) throw error_exception(e);
}

/// Converts the exception currently being handled into an error value.
inline error error_from_current_exception() noexcept {
  try {
    throw;
  } catch (const error_exception& e) {
    return e.error();
  } catch (const std::exception& e) {
    return error(std::string(e.what()));
  } catch (...) {
    return error("unknown exception");
  }
}

inline error error_from(const std::exception_ptr& p) noexcept {
  try {
    std::rethrow_exception(p);
  } catch (...) {
    return error_from_current_exception();
  }
}

} // namespace asyncshift
