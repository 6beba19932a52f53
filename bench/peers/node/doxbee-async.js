// doxbee-sequential, Node.js async/await style (bluebird's
// promises-native-async-await.js), with the same seven timed ops and the same
// error handling as bench/workloads/doxbee.cpp.
'use strict';

const { blobManager, db, self, Version, File, FileVersion, userAccount, uuid, fakeStream } = require('./fakes');

async function upload(k) {
  const stream = fakeStream(k);
  const idOrPath = 'a/b/c/d/e/f/g/h.txt';
  const blob = blobManager.create(userAccount);
  const tx = db.begin(k);
  const blobId = await blob.putP(stream);
  const file = await self.byUuidOrPath(idOrPath).getP();
  try {
    const previousId = file ? file.version : 0;
    const version = { userAccountId: userAccount.id, date: Date.now(), blobId, creatorId: userAccount.id, previousId, id: 0 };
    version.id = Version.createHash(version);
    await Version.insert(version.id).execWithinP(tx);
    let fileId;
    if (!file) {
      const fileName = idOrPath.slice(idOrPath.lastIndexOf('/') + 1);
      fileId = uuid.v1();
      const q = await self.createQueryP(idOrPath, { id: fileId, userAccountId: userAccount.id, name: fileName, version: version.id });
      await q.execWithinP(tx);
    } else {
      fileId = file.id;
    }
    await FileVersion.insert(fileId, version.id).execWithinP(tx);
    await File.whereUpdate(fileId, version.id).execWithinP(tx);
  } catch (err) {
    tx.rollbackP();
    throw err;
  }
  await tx.commitP();
}

module.exports = (k, done) => upload(k).then(() => done(null), done);
