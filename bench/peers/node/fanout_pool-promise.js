// fanout (worker-pool variant), Node.js native-promise style: Promise.all over
// p promisified crypto.randomBytes(8) calls (libuv's thread pool), then one op.
'use strict';

const crypto = require('crypto');
const util = require('util');
const { opP } = require('./fakes');
const params = require('./params');

const randomBytes = util.promisify(crypto.randomBytes);

module.exports = function fanout(k, done) {
  const jobs = new Array(params.p);
  for (let i = 0; i < jobs.length; i++) jobs[i] = randomBytes(8).then((bytes) => bytes[0]);
  Promise.all(jobs)
    .then((values) => {
      let sum = 0;
      for (const x of values) sum += x;
      return opP(10, sum);
    })
    .then(() => done(null), done);
};
