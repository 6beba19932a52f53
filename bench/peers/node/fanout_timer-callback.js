// fanout (timer variant), Node.js callback style: p timers of --t ms at once
// (a million in `make bench`), joined with a counter; the values are summed
// and one more op completes the execution, as bench/workloads/fanout_timer.cpp.
'use strict';

const { op } = require('./fakes');
const params = require('./params');

module.exports = function fanout(k, done) {
  const width = params.p;
  const values = new Array(width);
  let left = width;
  let failed = false;
  for (let i = 0; i < width; i++) {
    op(9, i, (err, v) => {
      if (failed) return;
      if (err) {
        failed = true;
        return done(err);
      }
      values[i] = v;
      if (--left === 0) {
        let sum = 0;
        for (const x of values) sum += x;
        op(9, sum, (err) => done(err));
      }
    });
  }
};
