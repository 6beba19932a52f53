// What both Asio peers share: one io_context, the op latency from --t, and
// the pure computations of the doxbee workload (ids and hashes), so a peer
// does the same sequential waits and roughly the same bookkeeping as
// bench/workloads/doxbee.cpp without using asyncshift's runtime for either.
//
// Each simulated op is an asio::steady_timer that expires after --t ms, as
// each fake::io is a timer on asyncshift's loop. The peers do no trace
// hashing and no error injection, so per op they do less work than the
// generated styles: the comparison is conservative for asyncshift.
#pragma once

#include <asio.hpp>
#include <asyncshift/bench.hpp>

#include <chrono>
#include <cstdint>
#include <string_view>

namespace asio_peer {

inline asio::io_context& io() {
  static asio::io_context context(1);
  return context;
}

/// Runs the io_context until it is idle, and readies it for the next run.
inline void run_loop() {
  io().run();
  io().restart();
}

inline std::chrono::nanoseconds latency() {
  return std::chrono::nanoseconds(static_cast<std::int64_t>(asyncshift::bench::params().t * 1e6));
}

inline std::int64_t mix(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(
      asyncshift::detail::id_mix(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b)) >> 1);
}

struct file_record {
  std::int64_t id = 0;
  std::int64_t version = 0;
  explicit operator bool() const noexcept { return id != 0; }
};

struct version_record {
  std::int64_t userAccountId = 1;
  std::int64_t date = 0;
  std::int64_t blobId = 0;
  std::int64_t creatorId = 1;
  std::int64_t previousId = 0;
  std::int64_t id = 0;
};

inline std::int64_t create_hash(const version_record& v) {
  return mix(mix(mix(mix(v.userAccountId, v.date), v.blobId), v.creatorId), v.previousId);
}

inline std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline constexpr std::string_view id_or_path = "a/b/c/d/e/f/g/h.txt";

inline asyncshift::error to_error(const asio::error_code& ec) { return asyncshift::error(ec.message()); }

} // namespace asio_peer
