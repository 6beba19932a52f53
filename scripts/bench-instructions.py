#!/usr/bin/env python3
"""Instructions per execution, from callgrind: the overhead numbers that repeat exactly.

    scripts/bench-instructions.py [--build-dir build] [--n 2000] [--compilers gcc clang]
                                  [--workloads doxbee madeup_parallel]

Times drift on a shared machine; instruction counts do not. Every style of
every workload runs under `valgrind --tool=callgrind
--toggle-collect=asyncshift_bench_measured_run`, so only the measured run is
counted (start-up, warm-up and reporting are not), on the virtual clock (no
sleeping, no clock reads per turn), and the count is divided by n. A second
run with --harness-only gives the harness's own share per execution (starting
an execution, its context, the digest), which is the same for every style.

Both compilers: the sources the CMake build compiles (the callback file and
the generated files under build/bench/asyncshift/) are compiled here with the
CMake build's C++ compiler (gcc) and with clang++-19, -O3 -DNDEBUG, into
build/bench/instructions-bin/<compiler>/, with ASYNCSHIFT_NO_MEMORY_STATS: the
runtime's allocation counters (about ten instructions per block allocated and
freed, more for the styles that allocate more) are what `make bench` needs to
report allocations and bytes, not part of what a style costs, so they are not
counted here. The Asio peers have only the real clock; they are counted in a
separate table at t=0 beside asyncshift's styles under the same clock.
A third table per workload counts the error paths: the virtual clock with
--e 0.1 (a tenth of the ops fail), where `coro` pays for C++ exceptions.

Results: build/bench/instructions.json and .csv; the callgrind profiles stay
in build/bench/callgrind/ for callgrind_annotate.
"""
import argparse
import csv
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("bench", os.path.join(ROOT, "scripts", "bench.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

STYLES = bench.GENERATED_STYLES
TARGETS = {"doxbee": 1000, "madeup_parallel": 3500}  # Ir per execution, every style
TARGET_RATIO = 1.4  # every style against the callback baseline
CXX_FLAGS = ["-std=c++20", "-O3", "-DNDEBUG", "-pthread", "-DASYNCSHIFT_NO_MEMORY_STATS"]
ASIO_FLAGS = bench.ASIO_FLAGS
find_clang = bench.find_clang


def find_gcc(build_dir):
    """The CMake build's C++ compiler (the gcc the timed benchmark uses)."""
    path = bench.cmake_cache(build_dir).get("CMAKE_CXX_COMPILER")
    if path and os.path.exists(path):
        return path
    return shutil.which("g++")


def compiled_binary(cxx, compiler, build_dir, workload, style, extra_flags=()):
    """Builds <workload>_<style> with cxx into instructions-bin/<compiler>/, without the allocation counters."""
    out_dir = os.path.join(build_dir, "bench", "instructions-bin", compiler)
    return bench.compiled_binary(cxx, CXX_FLAGS + list(extra_flags), out_dir, build_dir, workload, style,
                                 "bench-instructions")


def style_binary(compiler, cxx, build_dir, workload, style, extra_flags=()):
    """The benchmark binary of (workload, style), built here by cxx[compiler] without the allocation counters."""
    return compiled_binary(cxx[compiler], compiler, build_dir, workload, style, extra_flags=extra_flags)


def callgrind(binary, args, profile):
    os.makedirs(os.path.dirname(profile), exist_ok=True)
    cmd = ["valgrind", "--tool=callgrind", "--toggle-collect=asyncshift_bench_measured_run",
           "--callgrind-out-file=" + profile, binary] + args + ["--no-progress"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        return None, "exit %d: %s" % (proc.returncode, proc.stderr.strip()[-300:])
    m = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
    if not m:
        return None, "no 'Collected' line from callgrind"
    result = None
    for line in reversed(proc.stdout.strip().splitlines()):
        if line.startswith("{"):
            result = json.loads(line)
            break
    return (int(m.group(1)), result), None


def measure(binary, workload, style, compiler, params, out_dir, harness_too=True, profile_suffix=None):
    n = params["n"]
    args = bench.flags(params)
    tag = "%s/%s_%s" % (compiler, workload, style.replace("-", "_"))
    if profile_suffix is None:
        profile_suffix = "" if params.get("clock") == "virtual" else ".real"
    profile = os.path.join(out_dir, "callgrind", tag + profile_suffix + ".out")
    got, err = callgrind(binary, args, profile)
    if err:
        return {"workload": workload, "style": style, "compiler": compiler, "error": err}
    ir, result = got
    row = {"workload": workload, "style": style, "compiler": compiler, "n": n, "clock": params.get("clock"),
           "t": params.get("t"), "e": params.get("e", 0), "ir_total": ir, "ir_per_exec": ir / n,
           "trace_digest": result.get("trace_digest") if result else None}
    sums = breakdown(profile)
    if sums:
        row["breakdown_per_exec"] = {k: v / n for k, v in sums.items()}
    if harness_too:
        got, err = callgrind(binary, args + ["--harness-only"], os.path.join(out_dir, "callgrind", tag + ".harness.out"))
        if not err:
            row["harness_ir_per_exec"] = got[0] / n
    return row


FAMILIES = [  # first match wins; inlined code counts in the function it was inlined into
    ("harness", ("asyncshift::bench::", "asyncshift_bench_")),
    ("loop", ("asyncshift::loop::", "runnable_fn")),
    ("fake I/O", ("asyncshift::fake::",)),
    ("doxbee world", ("asyncshift::doxbee::",)),
    ("heap", ("malloc", "free", "operator new", "operator delete", "_int_", "(anonymous namespace)::counted")),
]


def qualified_name(entry):
    """'???:void ns::f<A>(B) const [obj]' -> 'ns::f<A>': the function itself, not its parameters' types."""
    m = re.match(r"[^:]*:(?!:)(.*)$", entry)
    text = m.group(1) if m else entry
    depth = 0
    cut = len(text)
    last_space = -1
    for i, ch in enumerate(text):
        if ch in "<([{":
            if ch == "(" and depth == 0 and i > 0:
                cut = i
                break
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == " " and depth == 0:
            last_space = i
    return text[last_space + 1:cut].strip()


def breakdown(profile):
    """Exclusive Ir of a callgrind profile, summed by function family."""
    if not shutil.which("callgrind_annotate") or not os.path.exists(profile):
        return None
    proc = subprocess.run(["callgrind_annotate", "--threshold=100", profile], capture_output=True, text=True)
    sums = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)$", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        ir = int(m.group(1).replace(",", ""))
        name = qualified_name(m.group(2))
        family = next((f for f, keys in FAMILIES if any(name.startswith(k) for k in keys)),
                      "style")
        sums[family] = sums.get(family, 0) + ir
    return sums


def table(title, rows, compilers, target):
    out = [title, ""]
    head = "%-28s" % "file"
    for c in compilers:
        head += " %12s %9s" % ("Ir/exec " + c, "vs cb")
    head += " %13s  %s" % ("harness Ir", "target")
    out.append(head)
    styles = []
    for r in rows:
        if r["style"] not in styles:
            styles.append(r["style"])
    base = {c: next((r for r in rows if r["style"] == "callback" and r["compiler"] == c and "ir_per_exec" in r), None)
            for c in compilers}
    verdicts = []
    for style in styles:
        line = "%-28s" % ("%s.%s" % (rows[0]["workload"], style))
        ok = True
        harness = None
        for c in compilers:
            r = next((x for x in rows if x["style"] == style and x["compiler"] == c), None)
            if r is None or "ir_per_exec" not in r:
                line += " %12s %9s" % ("FAILED" if r else "-", "")
                continue
            ratio = r["ir_per_exec"] / base[c]["ir_per_exec"] if base[c] else float("nan")
            line += " %12.0f %9.2f" % (r["ir_per_exec"], ratio)
            harness = r.get("harness_ir_per_exec", harness)
            if target and not style.startswith("asio"):
                ok = ok and r["ir_per_exec"] <= target and (ratio <= TARGET_RATIO or style == "callback")
        line += " %13s" % ("%.0f" % harness if harness is not None else "-")
        if target and not style.startswith("asio"):
            line += "  %s" % ("met" if ok else "MISSED")
            verdicts.append(ok)
        out.append(line)
    if target:
        out.append("")
        out.append("target: every style <= %d Ir/exec and <= %.1fx the callback baseline, both compilers" % (
            target, TARGET_RATIO))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--compilers", nargs="+", default=["gcc", "clang"], choices=["gcc", "clang"])
    parser.add_argument("--workloads", nargs="+", default=["doxbee", "madeup_parallel"])
    args = parser.parse_args()

    if not shutil.which("valgrind"):
        print("bench-instructions: valgrind is not installed; nothing to count (apt-get install valgrind)")
        return 0
    bench_dir = os.path.join(args.build_dir, "bench")
    cxx = {"gcc": find_gcc(args.build_dir) if "gcc" in args.compilers else None,
           "clang": find_clang() if "clang" in args.compilers else None}
    compilers = [c for c in args.compilers if cxx[c]]
    for c in args.compilers:
        if not cxx[c]:
            print("note: no %s compiler found: skipped" % c)

    start = time.monotonic()
    virtual = {"n": args.n, "t": 1, "p": 25, "clock": "virtual"}
    errors = dict(virtual, e=0.1)
    real0 = {"n": args.n, "t": 0, "p": 25, "clock": "real"}
    all_rows = []
    outputs = []
    def measure_styles(workload, params, what, **kw):
        rows = []
        for compiler in compilers:
            for style in STYLES:
                binary = style_binary(compiler, cxx, args.build_dir, workload, style)
                if not binary:
                    continue
                sys.stderr.write("bench-instructions: %s %s %s%s (%.0f s)\n" % (
                    compiler, workload, style, what, time.monotonic() - start))
                rows.append(measure(binary, workload, style, compiler, params, bench_dir, **kw))
        return rows

    for workload in args.workloads:
        rows = measure_styles(workload, virtual, "")
        if rows:
            outputs.append(table("%s: instructions per execution, %d executions, virtual clock, p=%d" % (
                workload, args.n, virtual["p"]), rows, compilers, TARGETS.get(workload)))
            all_rows.extend(rows)

        # The error paths (doxbee-sequential-errors): a tenth of the ops fail.
        # Where a failure is a C++ exception (`coro`), this is the count that
        # shows what a throw costs.
        rows = measure_styles(workload, errors, ", e=%g" % errors["e"], harness_too=False, profile_suffix=".errors")
        if rows:
            outputs.append(table("%s: instructions per execution, %d executions, virtual clock, p=%d, "
                                 "likelihood of rejection %g" % (workload, args.n, errors["p"], errors["e"]),
                                 rows, compilers, None))
            for r in rows:
                r["table"] = "errors"
            all_rows.extend(rows)

        # Beside the Asio peers: the real clock with t=0 (timers due at once; no sleeping).
        if workload == "doxbee":
            rows = []
            for compiler in compilers:
                for style in STYLES + bench.ASIO_STYLES:
                    extra = ASIO_FLAGS if style.startswith("asio") else []
                    binary = style_binary(compiler, cxx, args.build_dir, workload, style, extra)
                    if not binary:
                        continue
                    sys.stderr.write("bench-instructions: %s %s %s, real clock (%.0f s)\n" % (
                        compiler, workload, style, time.monotonic() - start))
                    rows.append(measure(binary, workload, style, compiler, real0, bench_dir, harness_too=False))
            if rows:
                outputs.append(table("%s: instructions per execution, %d executions, real clock, t=0, "
                                     "with the Asio peers" % (workload, args.n), rows, compilers, None))
                for r in rows:
                    r["table"] = "real-t0"
                all_rows.extend(rows)

    families = [f for f, _ in FAMILIES] + ["style"]
    broken = [r for r in all_rows if r.get("breakdown_per_exec") and r.get("table") not in ("real-t0", "errors")
              and r["compiler"] == compilers[0]]
    if broken:
        lines = ["where the instructions go (%s, virtual clock, Ir per execution by function family; code "
                 "inlined into a function counts there)" % compilers[0], ""]
        lines.append("%-28s" % "file" + "".join(" %12s" % f[:12] for f in families))
        for r in broken:
            b = r["breakdown_per_exec"]
            lines.append("%-28s" % ("%s.%s" % (r["workload"], r["style"])) +
                         "".join(" %12.0f" % b.get(f, 0) for f in families))
        outputs.append(lines)

    ctx = bench.context(args.build_dir, None, [], [os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])
    ctx["compilers"] = ["%s: %s %s" % (c, cxx[c], " ".join(CXX_FLAGS)) for c in compilers]
    ctx["compilers_formatted"] = True
    ctx["valgrind"] = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()
    for lines in outputs:
        print()
        print("\n".join(lines))
    print()
    print("\n".join(bench.platform_lines(ctx)))
    print(ctx["valgrind"])

    with open(os.path.join(bench_dir, "instructions.json"), "w") as f:
        json.dump({"schema_version": 1, "context": ctx, "rows": all_rows}, f, indent=1)
    with open(os.path.join(bench_dir, "instructions.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["table", "workload", "style", "compiler", "n", "clock", "t", "e", "ir_total",
                                          "ir_per_exec", "harness_ir_per_exec", "trace_digest", "error"],
                           extrasaction="ignore")
        w.writeheader()
        for r in all_rows:
            w.writerow(dict(r, table=r.get("table", "virtual")))
    print()
    print("results: %s, %s; profiles under %s" % (os.path.join(bench_dir, "instructions.json"),
                                                   os.path.join(bench_dir, "instructions.csv"),
                                                   os.path.join(bench_dir, "callgrind")))
    failed = [r for r in all_rows if "error" in r]
    for r in failed:
        sys.stderr.write("bench-instructions: %s %s %s: %s\n" % (r["compiler"], r["workload"], r["style"], r["error"]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
