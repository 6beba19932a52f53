// Callback-style test operations on a loop's timers, shared by the future,
// promise and operation tests.
#pragma once

#include <asyncshift/callback.hpp>
#include <asyncshift/error.hpp>
#include <asyncshift/loop.hpp>

#include <cstdint>

namespace asyncshift::test {

inline constexpr std::int64_t ms = 1'000'000;

/// Completes \p cb with \p value after \p delay (at once when 0).
inline void op_after(loop& l, std::int64_t delay, int value, callback<int> cb) {
  if (delay == 0)
    cb({}, value);
  else
    l.set_timeout(delay, [cb, value] { cb({}, value); });
}
/// Fails \p cb with \p msg after \p delay (at once when 0).
inline void failing_op_after(loop& l, std::int64_t delay, const char* msg, callback<int> cb) {
  if (delay == 0)
    cb(error(msg));
  else
    l.set_timeout(delay, [cb, msg] { cb(error(msg)); });
}

} // namespace asyncshift::test
