// fanout (timer variant), Node.js native-promise style: the fan-out article's
// Promise.all over p promises of one setTimeout each, then one more op.
'use strict';

const { opP } = require('./fakes');
const params = require('./params');

module.exports = function fanout(k, done) {
  const ops = new Array(params.p);
  for (let i = 0; i < ops.length; i++) ops[i] = opP(9, i);
  Promise.all(ops)
    .then((values) => {
      let sum = 0;
      for (const x of values) sum += x;
      return opP(9, sum);
    })
    .then(() => done(null), done);
};
