// doxbee-sequential, Node.js native-promise style: one flat `then` chain
// with the same seven timed ops as bench/workloads/doxbee.cpp; errors after
// the lookup roll the transaction back (not awaited), as the callback file.
'use strict';

const { blobManager, db, self, Version, File, FileVersion, userAccount, uuid, fakeStream } = require('./fakes');

module.exports = function upload(k, done) {
  const stream = fakeStream(k);
  const idOrPath = 'a/b/c/d/e/f/g/h.txt';
  const blob = blobManager.create(userAccount);
  const tx = db.begin(k);
  let version;
  let fileId;
  blob.putP(stream)
    .then((blobId) => self.byUuidOrPath(idOrPath).getP().then((file) => {
      const previousId = file ? file.version : 0;
      version = { userAccountId: userAccount.id, date: Date.now(), blobId, creatorId: userAccount.id, previousId, id: 0 };
      version.id = Version.createHash(version);
      return Version.insert(version.id).execWithinP(tx)
        .then(() => {
          if (file) {
            fileId = file.id;
            return undefined;
          }
          const fileName = idOrPath.slice(idOrPath.lastIndexOf('/') + 1);
          fileId = uuid.v1();
          return self.createQueryP(idOrPath, { id: fileId, userAccountId: userAccount.id, name: fileName, version: version.id })
            .then((q) => q.execWithinP(tx));
        })
        .then(() => FileVersion.insert(fileId, version.id).execWithinP(tx))
        .then(() => File.whereUpdate(fileId, version.id).execWithinP(tx))
        .catch((err) => {
          tx.rollbackP();
          throw err;
        });
    }))
    .then(() => tx.commitP())
    .then(() => done(null), done);
};
