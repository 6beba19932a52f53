// A stand-in for <asyncshift/bench.hpp> (and <asyncshift/asyncshift.hpp>),
// for feeding the tool many inputs quickly (test/fuzz/mutate_tool.py).
//
// The tool recognises SPEC §3 by names and shapes: asyncshift::error,
// asyncshift::callback<T...>, parallel, each_series, and calls whose last
// argument is a continuation. This header declares just those, so a file
// that includes it parses in a fraction of the time the real runtime
// headers take. It is never compiled into a program (templates have empty bodies; nothing
// else is defined).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace asyncshift {

class error {
public:
  error() = default;
  explicit error(std::string message) : message_(static_cast<std::string&&>(message)) {}
  explicit operator bool() const noexcept { return !message_.empty(); }
  const std::string& message() const noexcept { return message_; }

private:
  std::string message_;
};

template <class... T>
class callback {
public:
  callback() = default;
  template <class F>
  callback(F) {}
  void operator()(error e, T... values) const;
  void operator()(error e) const
    requires(sizeof...(T) > 0);
};

template <class T, class F>
void parallel(std::size_t, F, callback<std::vector<T>>) {}
template <class F>
void parallel(std::size_t, F, callback<>) {}
template <class F>
void each_series(std::size_t, F, callback<>) {}

class loop {
public:
  loop();
  void run();
};

namespace fake {
void io(std::string_view op, std::int64_t arg, callback<std::int64_t> cb);
} // namespace fake

namespace bench {
struct registration {
  template <class F>
  registration(const char*, F) {}
};
} // namespace bench

} // namespace asyncshift

#define ASYNCSHIFT_WORKLOAD_CONCAT2(a, b) a##b
#define ASYNCSHIFT_WORKLOAD_CONCAT(a, b) ASYNCSHIFT_WORKLOAD_CONCAT2(a, b)
#define ASYNCSHIFT_WORKLOAD(name, entry)                                                                               \
  static const ::asyncshift::bench::registration ASYNCSHIFT_WORKLOAD_CONCAT(asyncshift_workload_, __LINE__)(name, entry)
