// madeup-parallel, Node.js native-promise style: Promise.all over p inserts;
// commit (not awaited) on success, rollback and the error on the first failure.
'use strict';

const { db, FileVersion } = require('./fakes');
const params = require('./params');

module.exports = function upload(k, done) {
  const tx = db.begin(k);
  const queries = new Array(params.p);
  for (let i = 0; i < queries.length; i++) queries[i] = FileVersion.insert(i, 0).execWithinP(tx);
  Promise.all(queries).then(() => {
    tx.commitP();
    done(null);
  }, (err) => {
    tx.rollbackP();
    done(err);
  });
};
