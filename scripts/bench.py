#!/usr/bin/env python3
"""Runs every style of every workload and prints bluebird-shaped tables.

    scripts/bench.py [--build-dir build] [--workloads doxbee ...] [--n N] [--t MS]

Each style runs in its own process (the binaries build/bench/<workload>_<style>),
one after another so they do not compete for the CPU. The table has the shape
of bluebird's benchmark output: one row per style with time, CPU time, the
slowdown against the callback baseline, peak memory and allocations per
execution; the platform follows. Results also go to build/bench/results.json.
"""
import argparse
import json
import os
import platform
import subprocess
import sys

STYLES = ["callback", "promise", "future", "coro", "coro-values"]


def run(binary, args):
    proc = subprocess.run([binary] + args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (binary, proc.returncode, proc.stderr.strip()))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def platform_lines():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = os.cpu_count()
    return ["Platform info:", "%s %s %s" % (platform.system(), platform.release(), platform.machine()),
            "%s x %d" % (cpu, cores)]


def table(workload, rows, n, t, clock):
    base = next((r for r in rows if r["style"] == "callback"), rows[0])
    out = ["results for %d parallel executions, %g ms per I/O op (%s clock)" % (n, t, clock), ""]
    # Digests only repeat on the virtual clock (real-clock start times drift).
    show_digest = clock == "virtual"
    header = "%-20s %10s %10s %10s %12s %12s" % ("file", "time(ms)", "cpu(ms)", "slowdown", "memory(MB)",
                                                 "allocs/exec")
    out.append(header + ("  same digest" if show_digest else ""))
    for r in rows:
        slowdown = r["time_ms"] / base["time_ms"] if base["time_ms"] > 0 else float("nan")
        line = "%-20s %10.1f %10.1f %10.2f %12.2f %12.2f" % (
            "%s.%s" % (workload, r["style"]), r["time_ms"], r["cpu_ms"], slowdown, r["rss_mb"], r["allocs_per_exec"])
        if show_digest:
            line += "  %s" % ("yes" if r["trace_digest"] == base["trace_digest"] else "NO")
        out.append(line)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--workloads", nargs="+", default=["doxbee"])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--t", type=float, default=1)
    parser.add_argument("--p", type=int, default=25)
    parser.add_argument("--clock", default="real", choices=["real", "virtual"])
    args = parser.parse_args()

    bench_dir = os.path.join(args.build_dir, "bench")
    results = []
    for workload in args.workloads:
        rows = []
        for style in STYLES:
            binary = os.path.join(bench_dir, "%s_%s" % (workload, style.replace("-", "_")))
            if not os.path.exists(binary):
                continue
            rows.append(run(binary, ["--n", str(args.n), "--t", str(args.t), "--p", str(args.p),
                                     "--clock=" + args.clock]))
        if not rows:
            sys.exit("bench.py: no binaries for workload '%s' under %s" % (workload, bench_dir))
        if any(r.get("build") != "release" for r in rows):
            print("WARNING: the benchmark binaries are not an optimised release build; numbers mean little")
        print("\n".join(table(workload, rows, args.n, args.t, args.clock)))
        print()
        results.extend(rows)
    print("\n".join(platform_lines()))
    with open(os.path.join(bench_dir, "results.json"), "w") as f:
        json.dump({"schema_version": 1, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
