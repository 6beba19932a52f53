// doxbee-sequential written by hand for standalone Asio with C++20
// coroutines: asio::awaitable, co_spawn on asio::io_context, one
// asio::steady_timer per op awaited with use_awaitable, errors as exceptions
// with the rollback in a catch, as bluebird's promises-native-async-await.js.
// The same seven sequential waits as bench/workloads/doxbee.cpp. This is the
// peer asyncshift's `coro` style is measured against.
#include "doxbee_world.hpp"

#include <exception>
#include <utility>

namespace asio_peer {
namespace {

/// One simulated op: a timer in the op's own frame; yields a value.
asio::awaitable<std::int64_t> async_op(std::int64_t arg) {
  asio::steady_timer timer(co_await asio::this_coro::executor, latency());
  co_await timer.async_wait(asio::use_awaitable);
  co_return mix(arg, 7);
}

asio::awaitable<void> upload(std::uint64_t k) {
  const std::int64_t stream = static_cast<std::int64_t>(k);
  const std::int64_t tx = static_cast<std::int64_t>(k) + 1;
  const std::int64_t blobId = co_await async_op(mix(1, stream));
  co_await async_op(mix(2, static_cast<std::int64_t>(id_or_path.size())));
  try {
    file_record file{}; // there is never one: the new-file branch runs
    version_record version{1, now_ms(), blobId, 1, file ? file.version : 0, 0};
    version.id = create_hash(version);
    co_await async_op(mix(version.id, tx));
    if (!file) {
      const auto name = id_or_path.substr(id_or_path.rfind('/') + 1);
      file.id = mix(static_cast<std::int64_t>(k), 0);
      const std::int64_t query = mix(mix(file.id, static_cast<std::int64_t>(name.size())), version.id);
      co_await async_op(mix(query, tx));
    }
    co_await async_op(mix(file.id, version.id));
    co_await async_op(mix(file.id, -version.id));
  } catch (...) {
    asio::co_spawn(io(), async_op(-tx), asio::detached); // the rollback, not awaited
    throw;
  }
  co_await async_op(tx); // the commit
}

void start(void*, std::uint64_t k, asyncshift::callback<> done) {
  asio::co_spawn(io(), upload(k), [done = std::move(done)](std::exception_ptr e) {
    if (!e) return done({});
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      done(asyncshift::error(x.what()));
    }
  });
}

const bool registered = asyncshift::bench::register_peer("doxbee", "asio-awaitable", &start, &run_loop);

} // namespace
} // namespace asio_peer
