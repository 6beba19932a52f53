// The command-line parameters shared by the harness and the workloads, the
// flags of SPEC §7 (--n --t --p --e --seed --clock --warmup).
'use strict';

const params = { n: 10000, t: 1, p: 25, e: 0, seed: 1, clock: 'real', warmup: -1, workload: '', style: '' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  let [flag, value] = argv[i].split('=', 2);
  if (value === undefined && !['--progress', '--no-progress'].includes(flag)) value = argv[++i];
  const key = flag.replace(/^--/, '');
  if (!(key in params)) {
    if (key === 'progress' || key === 'no-progress') continue;
    process.stderr.write(`node peer: unknown flag ${flag}\n`);
    process.exit(2);
  }
  params[key] = typeof params[key] === 'number' ? Number(value) : value;
}
module.exports = params;
