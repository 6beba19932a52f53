// doxbee-sequential, Node.js callback style: op for op as
// bench/workloads/doxbee.cpp (and bluebird's callbacks-baseline.js).
'use strict';

const { blobManager, db, self, Version, File, FileVersion, userAccount, uuid, fakeStream } = require('./fakes');

module.exports = function upload(k, done) {
  const stream = fakeStream(k);
  const idOrPath = 'a/b/c/d/e/f/g/h.txt';
  const blob = blobManager.create(userAccount);
  const tx = db.begin(k);
  blob.put(stream, (err, blobId) => {
    if (err) return done(err);
    self.byUuidOrPath(idOrPath).get((err, file) => {
      if (err) return done(err);
      const previousId = file ? file.version : 0;
      const version = { userAccountId: userAccount.id, date: Date.now(), blobId, creatorId: userAccount.id, previousId, id: 0 };
      version.id = Version.createHash(version);
      const afterFileExists = (err, fileId) => {
        if (err) {
          tx.rollback();
          return done(err);
        }
        FileVersion.insert(fileId, version.id).execWithin(tx, (err) => {
          if (err) {
            tx.rollback();
            return done(err);
          }
          File.whereUpdate(fileId, version.id).execWithin(tx, (err) => {
            if (err) {
              tx.rollback();
              return done(err);
            }
            tx.commit(done);
          });
        });
      };
      Version.insert(version.id).execWithin(tx, (err) => {
        if (err) {
          tx.rollback();
          return done(err);
        }
        if (!file) {
          const fileName = idOrPath.slice(idOrPath.lastIndexOf('/') + 1);
          const newId = uuid.v1();
          self.createQuery(idOrPath, { id: newId, userAccountId: userAccount.id, name: fileName, version: version.id },
            (err, q) => {
              if (err) {
                tx.rollback();
                return done(err);
              }
              q.execWithin(tx, (err) => afterFileExists(err, newId));
            });
        } else {
          return afterFileExists(null, file.id);
        }
      });
    });
  });
};
