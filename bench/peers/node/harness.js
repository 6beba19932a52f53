// The Node.js peers' benchmark main, measuring as bench/harness does and as
// bluebird's benchmark/performance.js: warm up with min(n, 350) executions,
// then start n executions at once and wait for all. Memory is the growth of
// the kernel-tracked peak RSS over the run (reset through
// /proc/self/clear_refs first), read once at the end. Prints the JSON line of
// SPEC §7 with style "node-<style>"; fields Node cannot measure (allocations,
// trace digest) are null.
//
//   node harness.js --workload doxbee --style callback [--n N --t MS --p P]
'use strict';

const fs = require('fs');
const path = require('path');
const params = require('./params');

if (params.clock !== 'real') {
  process.stderr.write('node peer: only the real clock exists in Node\n');
  process.exit(2);
}
const fn = require(path.join(__dirname, `${params.workload}-${params.style}.js`));

function statusMb(field) {
  const m = fs.readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${field}:\\s+(\\d+)`, 'm'));
  return m ? Number(m[1]) / 1024 : 0;
}

function run(first, count, then) {
  let left = count;
  let failed = 0;
  const cb = (err) => {
    if (err) failed++;
    if (--left === 0) then(failed);
  };
  for (let k = first; k < first + count; k++) fn(k, cb);
}

const n = params.n;
const warmup = params.warmup >= 0 ? params.warmup : Math.min(n, 350);

function measure() {
  let peakReset = true;
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch (e) {
    peakReset = false;
  }
  const rssStart = statusMb('VmRSS');
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  run(0, n, (failed) => {
    const t1 = process.hrtime.bigint();
    const cpu = process.cpuUsage(cpu0);
    const rssPeak = statusMb('VmHWM');
    const r = {
      workload: params.workload, style: `node-${params.style}`, n, t: params.t, p: params.p, e: params.e,
      seed: params.seed, clock: 'real',
      time_ms: Number(t1 - t0) / 1e6, cpu_ms: (cpu.user + cpu.system) / 1e3, rss_mb: rssPeak,
      allocs_per_exec: null, bytes_per_exec: null, completed: n, failed, trace_digest: null,
      mem_mb: peakReset ? Math.max(0, rssPeak - rssStart) : rssPeak, peak_live_bytes_per_exec: null,
      warmup, harness_only: false, build: 'node', compiler: `node ${process.version} (V8 ${process.versions.v8})`,
    };
    process.stdout.write(JSON.stringify(r) + '\n');
  });
}

if (warmup > 0) run(n, warmup, measure);
else measure();
