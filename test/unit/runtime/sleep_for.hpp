// What the when_all tests wait with: a task that sleeps on a loop's timer,
// and a millisecond in the loop's nanoseconds.
#pragma once

#include <asyncshift/callback.hpp>
#include <asyncshift/loop.hpp>
#include <asyncshift/promisify.hpp>
#include <asyncshift/task.hpp>

#include <cstdint>

namespace asyncshift::test {

inline constexpr std::int64_t ms = 1'000'000;

inline task<> sleep_for(loop& l, std::int64_t delay) {
  co_await promisify([&l, delay](callback<> cb) { l.set_timeout(delay, [cb] { cb({}); }); });
}

} // namespace asyncshift::test
