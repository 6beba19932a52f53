// doxbee-sequential written by hand for standalone Asio in callback style:
// completion handlers on asio::io_context, one asio::steady_timer per op,
// the same seven sequential waits as bench/workloads/doxbee.cpp (createQuery
// completes synchronously there and is a plain call here). What a C++ user
// would write instead of asyncshift's callback style.
#include "doxbee_world.hpp"

#include <memory>
#include <utility>

namespace asio_peer {
namespace {

/// One simulated op: a timer of its own that completes \p handler with a value.
template <class Handler>
void async_op(std::int64_t arg, Handler&& handler) {
  auto timer = std::make_unique<asio::steady_timer>(io(), latency());
  asio::steady_timer& t = *timer;
  t.async_wait([timer = std::move(timer), arg, handler = std::forward<Handler>(handler)](
                   const asio::error_code& ec) mutable { handler(ec, mix(arg, 7)); });
}

struct transaction {
  std::int64_t id;
  template <class Handler>
  void commit(Handler&& h) const {
    async_op(id, std::forward<Handler>(h));
  }
  void rollback() const {
    async_op(-id, [](const asio::error_code&, std::int64_t) {});
  }
};

void upload(std::uint64_t k, asyncshift::callback<> done) {
  const std::int64_t stream = static_cast<std::int64_t>(k);
  const transaction tx{static_cast<std::int64_t>(k) + 1};
  auto backoff = [tx, done](const asio::error_code& ec) {
    tx.rollback();
    done(to_error(ec));
  };
  async_op(mix(1, stream), [=](const asio::error_code& ec, std::int64_t blobId) {
    if (ec) return done(to_error(ec));
    async_op(mix(2, static_cast<std::int64_t>(id_or_path.size())), [=](const asio::error_code& ec, std::int64_t) {
      if (ec) return done(to_error(ec));
      const file_record file{}; // there is never one: the new-file branch runs
      version_record version{1, now_ms(), blobId, 1, file ? file.version : 0, 0};
      version.id = create_hash(version);
      auto after_file_exists = [=](const asio::error_code& ec, std::int64_t fileId) {
        if (ec) return backoff(ec);
        async_op(mix(fileId, version.id), [=](const asio::error_code& ec, std::int64_t) {
          if (ec) return backoff(ec);
          async_op(mix(fileId, -version.id), [=](const asio::error_code& ec, std::int64_t) {
            if (ec) return backoff(ec);
            tx.commit([done](const asio::error_code& ec, std::int64_t) { done(ec ? to_error(ec) : asyncshift::error{}); });
          });
        });
      };
      async_op(mix(version.id, tx.id), [=](const asio::error_code& ec, std::int64_t) {
        if (ec) return backoff(ec);
        if (!file) {
          const auto name = id_or_path.substr(id_or_path.rfind('/') + 1);
          const std::int64_t newId = mix(static_cast<std::int64_t>(k), 0);
          const std::int64_t query = mix(mix(newId, static_cast<std::int64_t>(name.size())), version.id);
          async_op(mix(query, tx.id), [=](const asio::error_code& ec, std::int64_t) { after_file_exists(ec, newId); });
        } else {
          after_file_exists({}, file.id);
        }
      });
    });
  });
}

void start(void*, std::uint64_t k, asyncshift::callback<> done) { upload(k, std::move(done)); }

const bool registered = asyncshift::bench::register_peer("doxbee", "asio-callback", &start, &run_loop);

} // namespace
} // namespace asio_peer
