// madeup-parallel, Node.js callback style (bluebird's callbacks-baseline.js):
// p inserts at once with a hand-written counter; commit (not awaited) on
// success, rollback and the error on the first failure.
'use strict';

const { db, FileVersion } = require('./fakes');
const params = require('./params');

module.exports = function upload(k, done) {
  const tx = db.begin(k);
  const total = params.p;
  let current = 0;
  let finished = false;
  const inserted = (err) => {
    if (finished) return;
    if (err) {
      finished = true;
      tx.rollback();
      return done(err);
    }
    if (++current === total) {
      finished = true;
      tx.commit();
      done(null);
    }
  };
  for (let i = 0; i < total; i++) FileVersion.insert(i, 0).execWithin(tx, inserted);
};
