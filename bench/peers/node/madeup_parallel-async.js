// madeup-parallel, Node.js async/await style (bluebird's
// promises-native-async-await.js): await Promise.all over p inserts.
'use strict';

const { db, FileVersion } = require('./fakes');
const params = require('./params');

async function upload(k) {
  const tx = db.begin(k);
  const queries = new Array(params.p);
  for (let i = 0; i < queries.length; i++) queries[i] = FileVersion.insert(i, 0).execWithinP(tx);
  try {
    await Promise.all(queries);
  } catch (err) {
    tx.rollbackP();
    throw err;
  }
  tx.commitP();
}

module.exports = (k, done) => upload(k).then(() => done(null), done);
