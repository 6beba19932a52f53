// doxbee-sequential, in callback style: the one source every style of the
// benchmark is generated from.
//
// Op for op as bluebird's benchmark/doxbee-sequential/callbacks-baseline.js:
// put the blob, look the file up, insert the version, insert the file when
// there is none (createQuery completes synchronously), then the shared
// continuation afterFileExists inserts the file version, updates the file and
// commits. Errors from put and get go straight to done; later ones roll the
// transaction back (not awaited) first. Seven timed ops per execution.
#include <asyncshift/bench.hpp>

using namespace asyncshift::doxbee;

void upload(std::uint64_t k, asyncshift::callback<> done) {
  auto stream = fake_stream(k);
  std::string_view idOrPath = "a/b/c/d/e/f/g/h.txt";
  auto blob = blobManager.create(userAccount);
  auto tx = db.begin();
  blob.put(stream, [=](asyncshift::error err, std::int64_t blobId) {
    if (err) return done(err);
    self.byUuidOrPath(idOrPath).get([=](asyncshift::error err, file_record file) {
      if (err) return done(err);
      auto previousId = file ? file.version : 0;
      version_record version{userAccount.id, now_ms(), blobId, userAccount.id, previousId};
      version.id = Version.createHash(version);
      auto afterFileExists = [=](asyncshift::error err, std::int64_t fileId) {
        if (err) {
          tx.rollback();
          return done(err);
        }
        FileVersion.insert(fileId, version.id).execWithin(tx, [=](asyncshift::error err) {
          if (err) {
            tx.rollback();
            return done(err);
          }
          File.whereUpdate(fileId, version.id).execWithin(tx, [=](asyncshift::error err) {
            if (err) {
              tx.rollback();
              return done(err);
            }
            tx.commit(done);
          });
        });
      };
      Version.insert(version).execWithin(tx, [=](asyncshift::error err) {
        if (err) {
          tx.rollback();
          return done(err);
        }
        if (!file) {
          auto fileName = idOrPath.substr(idOrPath.rfind('/') + 1);
          auto newId = uuid.v1();
          self.createQuery(idOrPath, {newId, userAccount.id, fileName, version.id},
                           [=](asyncshift::error err, query q) {
                             if (err) {
                               tx.rollback();
                               return done(err);
                             }
                             q.execWithin(tx, [=](asyncshift::error err) { afterFileExists(err, newId); });
                           });
        } else {
          return afterFileExists({}, file.id);
        }
      });
    });
  });
}

ASYNCSHIFT_WORKLOAD("doxbee", upload);
