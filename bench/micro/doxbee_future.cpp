// doxbee-sequential in future style, written by hand the way the future
// printer is meant to write it (a flat chain; the variables that cross
// continuations hoisted into one make_shared_state block), so the runtime can
// be measured before the printer exists. It must print the same trace digest
// as the callback source (bench/workloads/doxbee.cpp) under the virtual clock.
#include <asyncshift/bench.hpp>

using namespace asyncshift::doxbee;

namespace {
struct upload_state {
  std::int64_t blobId = 0;
  file_record file;
  version_record version;
};
} // namespace

asyncshift::future<> upload(std::uint64_t k) {
  auto stream = fake_stream(k);
  std::string_view idOrPath = "a/b/c/d/e/f/g/h.txt";
  auto blob = blobManager.create(userAccount);
  auto tx = db.begin();
  auto s = asyncshift::make_shared_state<upload_state>();
  return asyncshift::make_future<std::int64_t>([&](auto cb) { blob.put(stream, cb); })
      .then([=](std::int64_t blobId) {
        s->blobId = blobId;
        return asyncshift::make_future<file_record>([&](auto cb) { self.byUuidOrPath(idOrPath).get(cb); });
      })
      .then([=](file_record file) {
        s->file = file;
        auto previousId = file ? file.version : 0;
        s->version = version_record{userAccount.id, now_ms(), s->blobId, userAccount.id, previousId};
        s->version.id = Version.createHash(s->version);
        return asyncshift::make_future([&](auto cb) { Version.insert(s->version).execWithin(tx, cb); })
            .then([=] {
              if (!s->file) {
                auto fileName = idOrPath.substr(idOrPath.rfind('/') + 1);
                auto newId = uuid.v1();
                return asyncshift::make_future<query>([&](auto cb) {
                         self.createQuery(idOrPath, {newId, userAccount.id, fileName, s->version.id}, cb);
                       })
                    .then([=](query q) { return asyncshift::make_future([&](auto cb) { q.execWithin(tx, cb); }); })
                    .then([=] { return newId; });
              }
              return asyncshift::make_ready_future(s->file.id);
            })
            .then([=](std::int64_t fileId) {
              return asyncshift::make_future([&](auto cb) { FileVersion.insert(fileId, s->version.id).execWithin(tx, cb); })
                  .then([=] {
                    return asyncshift::make_future([&](auto cb) { File.whereUpdate(fileId, s->version.id).execWithin(tx, cb); });
                  });
            })
            .tap_error([=](const asyncshift::error&) { tx.rollback(); });
      })
      .then([=] { return asyncshift::make_future([&](auto cb) { tx.commit(cb); }); });
}

ASYNCSHIFT_WORKLOAD("doxbee", upload);
