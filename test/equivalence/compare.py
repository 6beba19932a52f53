#!/usr/bin/env python3
"""Runs every style of a workload on the virtual clock and compares digests.

    compare.py [--n N] [--seeds S...] [--errors E...] BINARY...
    compare.py --compile CXX --include DIR --harness DIR [...] SOURCE...

The first binary (or source) is the baseline, normally the callback style.
For every seed and error rate, every binary must complete all n executions
and print the baseline's trace digest: the same ops, started at the same
virtual times with the same arguments, ending the same way. With --compile,
the sources (generated files) are first built with the given compiler, to
prove the generated code builds and behaves the same with it.
"""
import argparse
import json
import os
import subprocess
import sys


def run(binary, n, seed, error_rate):
    cmd = [binary, "--clock=virtual", "--n", str(n), "--seed", str(seed), "--e", str(error_rate), "--warmup", "0"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError("%s exited with %d: %s" % (" ".join(cmd), proc.returncode, proc.stderr.strip()))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compile_sources(args):
    os.makedirs(args.workdir, exist_ok=True)
    binaries = []
    harness = [os.path.join(args.harness, f) for f in ("main.cpp", "harness.cpp")]
    for source in args.binaries:
        out = os.path.join(args.workdir, os.path.basename(source).replace(".", "_") + ".bin")
        cmd = [args.compile, "-std=c++20", "-O1", "-DNDEBUG", "-Wall", "-Wextra", "-I", args.include,
               "-I", args.harness, source] + harness + ["-o", out, "-pthread"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            raise RuntimeError("cannot compile %s with %s" % (source, args.compile))
        if proc.stderr.strip():
            sys.stderr.write(proc.stderr)
            raise RuntimeError("warnings compiling %s with %s" % (source, args.compile))
        binaries.append(out)
    return binaries


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--errors", type=float, nargs="+", default=[0.0, 0.1])
    parser.add_argument("--compile", help="compile the given sources with this compiler first")
    parser.add_argument("--include", help="runtime include directory (with --compile)")
    parser.add_argument("--harness", help="benchmark harness directory (with --compile)")
    parser.add_argument("--workdir", default="equivalence-build", help="where --compile puts binaries")
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()

    binaries = compile_sources(args) if args.compile else args.binaries
    failures = 0
    checks = 0
    for seed in args.seeds:
        for error_rate in args.errors:
            results = [run(b, args.n, seed, error_rate) for b in binaries]
            base = results[0]
            for binary, r in zip(binaries, results):
                checks += 1
                problems = []
                if r["completed"] != args.n:
                    problems.append("completed %d of %d" % (r["completed"], args.n))
                if r["trace_digest"] != base["trace_digest"]:
                    problems.append("digest %s != %s (%s)" % (r["trace_digest"], base["trace_digest"], base["style"]))
                if r["failed"] != base["failed"]:
                    problems.append("failed %d != %d" % (r["failed"], base["failed"]))
                status = "ok" if not problems else "MISMATCH: " + "; ".join(problems)
                print("%-10s %-12s seed=%d e=%-4g digest=%s completed=%d failed=%d  %s" % (
                    r["workload"], r["style"], seed, error_rate, r["trace_digest"], r["completed"], r["failed"],
                    status))
                failures += bool(problems)
    print("%d checks, %d mismatches" % (checks, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
