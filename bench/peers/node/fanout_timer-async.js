// fanout (timer variant), Node.js async/await style: await Promise.all over p
// promises of one setTimeout each, then one more op.
'use strict';

const { opP } = require('./fakes');
const params = require('./params');

async function fanout() {
  const ops = new Array(params.p);
  for (let i = 0; i < ops.length; i++) ops[i] = opP(9, i);
  const values = await Promise.all(ops);
  let sum = 0;
  for (const x of values) sum += x;
  await opP(9, sum);
}

module.exports = (k, done) => fanout().then(() => done(null), done);
