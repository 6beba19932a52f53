// fanout (worker-pool variant), Node.js callback style: p crypto.randomBytes(8)
// calls at once on libuv's thread pool, joined with a counter; the first bytes
// are summed and one more op completes the execution, as
// bench/workloads/fanout_pool.cpp.
'use strict';

const crypto = require('crypto');
const { op } = require('./fakes');
const params = require('./params');

module.exports = function fanout(k, done) {
  const width = params.p;
  const values = new Array(width);
  let left = width;
  let failed = false;
  for (let i = 0; i < width; i++) {
    crypto.randomBytes(8, (err, bytes) => {
      if (failed) return;
      if (err) {
        failed = true;
        return done(err);
      }
      values[i] = bytes[0];
      if (--left === 0) {
        let sum = 0;
        for (const x of values) sum += x;
        op(10, sum, (err) => done(err));
      }
    });
  }
};
