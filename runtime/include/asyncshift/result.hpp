// asyncshift::result<T> — an error and a value, for code that keeps errors as
// values (the `coro-values` style). It mirrors a callback's arguments:
// `done({}, v)` becomes `co_return {{}, v};`, `done(err)` becomes
// `co_return err;`, and `auto [err, v] = co_await op;` reads both back.
// A void operation settles to a plain asyncshift::error.
#pragma once

#include "asyncshift/error.hpp"

#include <type_traits>
#include <utility>

namespace asyncshift {

template <class T>
struct result {
  static_assert(!std::is_void_v<T>, "a void operation settles to asyncshift::error");

  error err;
  T value{};

  result() = default;
  result(error e) : err(std::move(e)) {} // NOLINT: `co_return err;`
  result(error e, T v) : err(std::move(e)), value(std::move(v)) {}
};

/// What awaiting a settled operation of type T yields.
template <class T>
using settled_t = std::conditional_t<std::is_void_v<T>, error, result<T>>;

} // namespace asyncshift
