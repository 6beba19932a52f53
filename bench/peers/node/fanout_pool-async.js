// fanout (worker-pool variant), Node.js async/await style: await Promise.all
// over p async functions each awaiting crypto.randomBytes(8), then one op.
'use strict';

const crypto = require('crypto');
const util = require('util');
const { opP } = require('./fakes');
const params = require('./params');

const randomBytes = util.promisify(crypto.randomBytes);

async function firstByte() {
  const bytes = await randomBytes(8);
  return bytes[0];
}

async function fanout() {
  const jobs = new Array(params.p);
  for (let i = 0; i < jobs.length; i++) jobs[i] = firstByte();
  const values = await Promise.all(jobs);
  let sum = 0;
  for (const x of values) sum += x;
  await opP(10, sum);
}

module.exports = (k, done) => fanout().then(() => done(null), done);
