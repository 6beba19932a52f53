// The doxbee world: the fakes of bluebird's benchmark/lib/fakes.js (blob
// manager, database and transaction, query builders), built on fake::io.
//
// Names follow the JavaScript originals (`byUuidOrPath`, `execWithin`,
// `createQuery`) so that a workload reads op for op like bluebird's
// callbacks-baseline.js. Every method that takes a callback is a leaf: it
// completes through fake::start_io (one timed op) or, like createQuery,
// synchronously. Each takes its completion handler as a template argument,
// as Asio's initiating functions take a completion token: a callback<T...>
// (what every generated style passes: a callback that borrows a coroutine
// frame, a promise or a future state), or a continuation lambda, which the
// callback style passes and the op then keeps in its timer node, one block
// per op instead of a node and a callback block. The handler is taken by
// value, as the callback<T> it replaces was (a forwarding reference made
// clang's code for madeup_parallel's branch loop 2.5% slower). Ids are
// deterministic functions of the execution, so every style computes the
// same arguments and the trace proves it.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/context.hpp"
#include "asyncshift/detail/hash.hpp"
#include "asyncshift/fake.hpp"
#include "asyncshift/loop.hpp"

#include <cstdint>
#include <string_view>

// The world's ops, inlined always into their callers with clang. clang kept
// each op out of line (one copy per op and handler type, as it keeps
// start_io inside it), so a continuation lambda handed to an op went through
// memory, and the op's copy saved registers, per op: madeup_parallel took
// about 500 Ir more per execution in every style than with the ops inlined,
// doxbee's callback baseline 64 more. g++ inlines them by itself, and forced
// to, does worse (doxbee's callback baseline +24 Ir).
#if defined(__clang__)
#define ASYNCSHIFT_OP_INLINE [[gnu::always_inline]]
#else
#define ASYNCSHIFT_OP_INLINE
#endif

namespace asyncshift::doxbee {

namespace ops {
inline const fake::op_name blob_put{"blob.put"};
inline const fake::op_name file_get{"File.get"};
inline const fake::op_name tx_commit{"tx.commit"};
inline const fake::op_name tx_rollback{"tx.rollback"};
inline const fake::op_name uuid_v1{"uuid.v1"};
} // namespace ops

struct stream {
  std::int64_t id = 0;
};

struct account {
  std::int64_t id = 0;
};

/// A file row; a default-constructed one means "no such file".
struct file_record {
  std::int64_t id = 0;
  std::int64_t version = 0;
  explicit operator bool() const noexcept { return id != 0; }
};

namespace detail {
using namespace asyncshift::detail;
/// File.get's outcome in the benchmark: no row.
struct deliver_no_file {
  static constexpr bool uses_value = false;
  template <class H>
  ASYNCSHIFT_INLINE static void deliver(H& h, std::int64_t) {
    asyncshift::detail::succeed_from_loop<file_record>(h, file_record{});
  }
  template <class H>
  static void fail(H& h, error e) {
    asyncshift::detail::fail<file_record>(h, std::move(e));
  }
};
} // namespace detail

struct version_record {
  std::int64_t userAccountId = 0;
  std::int64_t date = 0;
  std::int64_t blobId = 0;
  std::int64_t creatorId = 0;
  std::int64_t previousId = 0;
  std::int64_t id = 0;
};

struct file_fields {
  std::int64_t id = 0;
  std::int64_t userAccountId = 0;
  std::string_view name;
  std::int64_t version = 0;
};

class transaction {
public:
  transaction() = default;
  explicit transaction(std::int64_t id) : id_(id) {}
  std::int64_t id() const noexcept { return id_; }

  template <asyncshift::detail::handler_of H = callback<>>
  ASYNCSHIFT_OP_INLINE void commit(H cb) const {
    fake::start_io<fake::detail::deliver_nothing>(ops::tx_commit, id_, fake::settings().latency_ns, std::move(cb));
  }
  template <asyncshift::detail::handler_of H = callback<>>
  ASYNCSHIFT_OP_INLINE void rollback(H cb = {}) const {
    fake::start_io<fake::detail::deliver_nothing>(ops::tx_rollback, id_, fake::settings().latency_ns, std::move(cb));
  }

private:
  std::int64_t id_ = 0;
};

/// A built query: executing it within a transaction is one timed op.
class query {
public:
  query() = default;
  query(const fake::op_name* op, std::int64_t arg) : op_(op), arg_(arg) {}

  template <asyncshift::detail::handler_of H = callback<>>
  ASYNCSHIFT_OP_INLINE void execWithin(const transaction& tx, H cb) const {
    fake::start_io<fake::detail::deliver_nothing>(
        *op_, static_cast<std::int64_t>(detail::id_mix(static_cast<std::uint64_t>(arg_), static_cast<std::uint64_t>(tx.id()))),
        fake::settings().latency_ns, std::move(cb));
  }
  /// Fetches the row; in the benchmark there is never one (the new-file branch runs).
  template <asyncshift::detail::handler_of<file_record> H = callback<file_record>>
  ASYNCSHIFT_OP_INLINE void get(H cb) const {
    fake::start_io<detail::deliver_no_file>(*op_, arg_, fake::settings().latency_ns, std::move(cb));
  }

private:
  const fake::op_name* op_ = nullptr;
  std::int64_t arg_ = 0;
};

/// A table with insert and update query builders.
class model {
public:
  explicit model(std::string_view name)
      : insert_(std::string(name) + ".insert"), update_(std::string(name) + ".whereUpdate") {}

  query insert(const version_record& v) const { return {&insert_, v.id}; }
  query insert(std::int64_t a, std::int64_t b) const {
    return {&insert_, static_cast<std::int64_t>(detail::id_mix(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b)))};
  }
  query whereUpdate(std::int64_t id, std::int64_t version) const {
    return {&update_, static_cast<std::int64_t>(detail::id_mix(static_cast<std::uint64_t>(id), static_cast<std::uint64_t>(version)))};
  }

  /// `Version.createHash(version)`.
  static std::int64_t createHash(const version_record& v) {
    std::uint64_t h = detail::id_mix(static_cast<std::uint64_t>(v.userAccountId), static_cast<std::uint64_t>(v.date));
    h = detail::id_mix(h, static_cast<std::uint64_t>(v.blobId));
    h = detail::id_mix(h, static_cast<std::uint64_t>(v.creatorId));
    h = detail::id_mix(h, static_cast<std::uint64_t>(v.previousId));
    return static_cast<std::int64_t>(h >> 1);
  }

private:
  fake::op_name insert_;
  fake::op_name update_;
};

class blob {
public:
  explicit blob(std::int64_t owner) : owner_(owner) {}
  template <asyncshift::detail::handler_of<std::int64_t> H = callback<std::int64_t>>
  ASYNCSHIFT_OP_INLINE void put(const stream& s, H cb) const {
    fake::start_io<fake::detail::deliver_value>(
        ops::blob_put, static_cast<std::int64_t>(detail::id_mix(static_cast<std::uint64_t>(owner_), static_cast<std::uint64_t>(s.id))),
        fake::settings().latency_ns, std::move(cb));
  }

private:
  std::int64_t owner_;
};

struct blob_manager {
  blob create(const account& a) const { return blob(a.id); }
};

struct database {
  /// Begins a transaction; its id is derived from the current execution.
  transaction begin() const {
    context* c = current_context();
    return transaction(static_cast<std::int64_t>(c ? c->k + 1 : 1));
  }
};

/// The `self` object of the JavaScript original.
class service {
public:
  service() : get_("File.get"), file_insert_("File.insert") {}

  query byUuidOrPath(std::string_view idOrPath) const { return {&get_, static_cast<std::int64_t>(detail::hash_string(idOrPath) >> 1)}; }

  /// Builds the insert query for a new file; completes synchronously, as in the original.
  template <asyncshift::detail::handler_of<query> H = callback<query>>
  ASYNCSHIFT_OP_INLINE void createQuery(std::string_view idOrPath, const file_fields& f, H cb) const {
    std::uint64_t h = detail::id_mix(detail::hash_string(idOrPath), static_cast<std::uint64_t>(f.id));
    h = detail::id_mix(h, static_cast<std::uint64_t>(f.userAccountId));
    h = detail::id_mix(h, detail::hash_string(f.name));
    h = detail::id_mix(h, static_cast<std::uint64_t>(f.version));
    asyncshift::detail::succeed<query>(cb, query(&file_insert_, static_cast<std::int64_t>(h >> 1)));
  }

private:
  fake::op_name get_;
  fake::op_name file_insert_;
};

struct uuid_generator {
  /// A fresh id, deterministic per execution and call order.
  ASYNCSHIFT_OP_INLINE std::int64_t v1() const {
    context* c = current_context();
    const std::uint64_t k = c ? c->k : 0;
    const std::uint32_t n = c ? c->next_ordinal(ops::uuid_v1.id()) : 0;
    return static_cast<std::int64_t>(detail::id_mix(k, n) >> 1);
  }
};

/// The current time in milliseconds (virtual time under the virtual clock).
inline std::int64_t now_ms() { return loop::current().now_ns() / 1'000'000; }

/// The stream execution \p k uploads.
inline stream fake_stream(std::uint64_t k) { return stream{static_cast<std::int64_t>(k)}; }

inline const blob_manager blobManager{};
inline const database db{};
inline const service self{};
inline const model Version{"Version"};
inline const model File{"File"};
inline const model FileVersion{"FileVersion"};
inline const account userAccount{1};
inline const uuid_generator uuid{};

} // namespace asyncshift::doxbee
