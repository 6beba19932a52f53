#!/usr/bin/env python3
"""Runs every style of every workload, and the peers, and prints bluebird-shaped tables.

    scripts/bench.py [--build-dir build] [--suites seeds overhead errors fanout]
                     [--repeat R] [--quick] [--no-node] [--out DIR] [--compiler cmake|clang]
    asyncshift-bench --bench-dir DIR --workloads NAME... [--suites seeds overhead errors] [--quick]

Your own workloads (asyncshift_add_workload, docs/usage.md): installed as
<prefix>/bin/asyncshift-bench, this script runs the binaries DIR/<name>_<style>
of each NAME in the seeds, overhead and errors suites (their parameters below)
and prints the same tables; results go to DIR/bench/ unless --out says otherwise.

Suites (each a table per workload):
  seeds     the seeds' configuration: n=10000 executions at once, t=1 ms per op,
            p=25, real clock; the generated styles, the Asio and Node.js peers
  overhead  n=100000 on the virtual clock: no sleeping, so time is the CPU cost
            of the styles themselves; trace digests must be equal
  errors    as overhead, with 10% of ops failing (doxbee-sequential-errors)
  fanout    one execution fanning out to p=1,000,000 ops (t=0) and one join;
            generated styles and Node.js peers

Each run is its own process (the binaries build/bench/<workload>_<style> and
`node bench/peers/node/harness.js`); runs are repeated R times, interleaved
across styles so that drift on a shared machine hits every style alike (the
order rotates by one style per repetition, so that no style always runs
first), and the run with the median time is reported. Results go to build/bench/:
results.json (schema_version, context block, every run), results.csv (one
row per suite, workload and style) and chart.svg.

--compiler clang runs the same tables with the generated styles and the Asio
peers compiled by clang++-19 (-O3 -DNDEBUG, from the sources the CMake build
compiles) into build/bench/clang-bin/, and writes its results to
build/bench/clang/. The compiler matters most to the coroutine styles: g++ 12
gives every awaiter and temporary of a coroutine its own frame slot
(docs/bench.md), so their memory and their time at high concurrency differ
most between the two.
"""
import argparse
import csv
import datetime
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED_STYLES = ["callback", "promise", "future", "coro", "coro-values"]
ASIO_STYLES = ["asio-callback", "asio-awaitable"]
NODE_STYLES = ["callback", "promise", "async"]
NODE_DIR = os.path.join(ROOT, "bench", "peers", "node")
# As bench/peers/asio/CMakeLists.txt: Asio 1.22 detects coroutines only for gcc and MSVC.
ASIO_FLAGS = ["-DASIO_STANDALONE", "-DASIO_NO_DEPRECATED", "-DASIO_HAS_CO_AWAIT", "-DASIO_HAS_STD_COROUTINE"]
RELEASE_FLAGS = ["-std=c++20", "-O3", "-DNDEBUG", "-pthread"]


def find_clang():
    for name in ("clang++-19", "clang++"):
        path = shutil.which(name)
        if path:
            return path
    return None


def newest_mtime(paths):
    newest = 0.0
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in files:
                    newest = max(newest, os.path.getmtime(os.path.join(root, f)))
        elif os.path.exists(p):
            newest = max(newest, os.path.getmtime(p))
    return newest


def compiled_binary(cxx, flags, out_dir, build_dir, workload, style, who="bench"):
    """Builds <workload>_<style> with the compiler cxx and flags into out_dir, from the sources the
    CMake build compiles (the callback file, the generated files, the Asio peers); cached by mtime.
    None when the source does not exist or does not compile (the compiler's errors go to stderr)."""
    if style == "callback":
        source = os.path.join(ROOT, "bench", "workloads", workload + ".cpp")
    elif style.startswith("asio-"):
        source = os.path.join(ROOT, "bench", "peers", "asio", "%s_%s.cpp" % (workload, style[len("asio-"):]))
    else:
        source = os.path.join(build_dir, "bench", "asyncshift", workload, "%s.%s.cpp" % (workload, style))
    if not os.path.exists(source):
        return None
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, "%s_%s" % (workload, style.replace("-", "_")))
    harness = [os.path.join(ROOT, "bench", "harness", f) for f in ("main.cpp", "harness.cpp")]
    inputs = [source] + harness + [os.path.join(ROOT, "runtime", "include"), os.path.join(ROOT, "bench", "harness")]
    if os.path.dirname(source) != os.path.dirname(harness[0]):
        inputs.append(os.path.dirname(source))
    flags_file = out + ".flags"
    cmd = [cxx] + list(flags) + [
        "-I", os.path.join(ROOT, "runtime", "include"), "-I", os.path.join(ROOT, "bench", "harness"),
        source] + harness + ["-o", out]
    scripts = [os.path.abspath(__file__), os.path.join(ROOT, "scripts", "bench-instructions.py")]
    if os.path.exists(out) and os.path.exists(flags_file) and os.path.getmtime(out) >= newest_mtime(inputs + scripts):
        with open(flags_file) as f:
            if f.read() == " ".join(cmd):
                return out
    sys.stderr.write("%s: compiling %s_%s with %s\n" % (who, workload, style, os.path.basename(cxx)))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-2000:])
        return None
    with open(flags_file, "w") as f:
        f.write(" ".join(cmd))
    return out

# Sequential waits per execution when nothing fails: the physical floor of a
# real-clock run is depth * t (the commit of madeup_parallel is not awaited by
# the execution, but the run lasts until it ends).
DEPTH = {"doxbee": 7, "madeup_parallel": 2, "fanout_timer": 2, "fanout_pool": 2}


class Suite:
    def __init__(self, name, title, workloads, args, repeat, peers, quick_args=None, node_repeat=None):
        self.node_repeat = node_repeat or repeat
        self.name = name
        self.title = title
        self.workloads = workloads
        self.args = args
        self.repeat = repeat
        self.peers = peers
        self.quick_args = quick_args or {}


SUITES = [
    Suite("seeds", "the seeds' configuration", ["doxbee", "madeup_parallel"],
          {"n": 10000, "t": 1, "p": 25, "clock": "real"}, repeat=5, peers=True),
    Suite("overhead", "overhead: virtual clock, CPU only", ["doxbee", "madeup_parallel"],
          {"n": 100000, "t": 1, "p": 25, "clock": "virtual"}, repeat=5, peers=False, quick_args={"n": 20000}),
    Suite("errors", "errors: virtual clock, 10% of ops fail", ["doxbee", "madeup_parallel"],
          {"n": 100000, "t": 1, "p": 25, "e": 0.1, "clock": "virtual"}, repeat=5, peers=False,
          quick_args={"n": 20000}),
    Suite("fanout", "fan-out: one execution, a million ops, one join", ["fanout_timer", "fanout_pool"],
          {"n": 1, "t": 0, "p": 1000000, "clock": "real", "warmup": 0}, repeat=3, peers=True,
          quick_args={"p": 100000}, node_repeat=1),
]


# ---- running -------------------------------------------------------------------------------------------------------

class Progress:
    """One progress line on stderr: rewritten in place on a terminal, else a line every few seconds."""

    def __init__(self, total):
        self.total = total
        self.done = 0
        self.start = time.monotonic()
        self.last = 0.0
        self.tty = sys.stderr.isatty()

    def step(self, what):
        self.done += 1
        now = time.monotonic()
        elapsed = now - self.start
        line = "bench: %d/%d runs, %.0f s: %s" % (self.done, self.total, elapsed, what)
        if self.tty:
            sys.stderr.write("\r\033[K" + line[:150])
            sys.stderr.flush()
        elif elapsed > 3 and now - self.last > 5:
            sys.stderr.write(line + "\n")
            self.last = now

    def finish(self):
        if self.tty:
            sys.stderr.write("\r\033[K")
        sys.stderr.write("bench: %d runs in %.0f s\n" % (self.done, time.monotonic() - self.start))


def flags(args):
    out = []
    for key in ("n", "t", "p", "e", "seed", "warmup"):
        if key in args:
            out += ["--" + key, str(args[key])]
    out.append("--clock=" + args.get("clock", "real"))
    return out


def run_once(cmd, timeout):
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    if proc.returncode != 0:
        return None, "exit %d: %s" % (proc.returncode, proc.stderr.strip()[-300:])
    for line in reversed(proc.stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line), None
    return None, "no JSON line in output"


_clang_binaries = {}  # (clang, bench_dir, workload, style) -> path or None: each compiled or failed once per run


def clang_binary(clang, bench_dir, workload, style):
    """The (workload, style) binary compiled by clang, once per run: the plan and the run both ask."""
    key = (clang, bench_dir, workload, style)
    if key not in _clang_binaries:
        flags = RELEASE_FLAGS + (ASIO_FLAGS if style.startswith("asio") else [])
        _clang_binaries[key] = compiled_binary(clang, flags, os.path.join(bench_dir, "clang-bin"),
                                               os.path.dirname(bench_dir), workload, style)
    return _clang_binaries[key]


def binary_path(bench_dir, workload, style):
    """Where the CMake build puts <workload>_<style> ('-' in a style is '_' in a target's name)."""
    return os.path.join(bench_dir, "%s_%s" % (workload, style.replace("-", "_")))


def candidates(suite, workload, bench_dir, node, clang=None):
    """(style, command) for every binary or peer that exists for this workload; given clang (a
    compiler path), the binaries the CMake build made are compiled again by it (clang_binary)."""
    out = []
    for style in GENERATED_STYLES + (ASIO_STYLES if suite.peers else []):
        binary = binary_path(bench_dir, workload, style)
        if os.path.exists(binary) and clang:
            binary = clang_binary(clang, bench_dir, workload, style)
            if not binary:
                out.append((style, None)) # a row with the error: the CMake build has this style
                continue
        if os.path.exists(binary):
            out.append((style, [binary]))
    if suite.peers and node:
        for style in NODE_STYLES:
            script = os.path.join(NODE_DIR, "%s-%s.js" % (workload, style))
            if os.path.exists(script):
                out.append(("node-" + style, [node, os.path.join(NODE_DIR, "harness.js"), "--workload", workload,
                                              "--style", style]))
    return out


def rotated(items, rep):
    """items in the order repetition rep runs them: rotated by one place per repetition. A run can pay
    for what ran before it (the kernel may still be taking back the previous process's memory
    while the next one faults its own in), so in a fixed order the callback baseline, the
    denominator of every slowdown, would always follow the last and largest runs of the repetition
    before (the Node.js peers, or the coroutine styles) or of the previous table; rotated, each
    style runs first in at most one repetition of several, and the median drops that run."""
    if not items:
        return items
    k = rep % len(items)
    return items[k:] + items[:k]


def median_run(runs):
    ok = [r for r in runs if r is not None]
    if not ok:
        return None
    ok.sort(key=lambda r: r["time_ms"])
    best = dict(ok[(len(ok) - 1) // 2])
    best["time_ms_runs"] = [r["time_ms"] for r in ok]
    best["cpu_ms_runs"] = [r["cpu_ms"] for r in ok]
    return best


def run_suite(suite, bench_dir, node, args, progress, plan_only=False):
    params = dict(suite.args)
    if args.quick:
        params.update(suite.quick_args)
    repeat = args.repeat or (1 if args.quick else suite.repeat)
    tables = []
    for workload in suite.workloads:
        cands = candidates(suite, workload, bench_dir, node, args.clang)
        node_repeat = min(repeat, suite.node_repeat)
        if plan_only:
            tables.append(sum(node_repeat if style.startswith("node") else repeat for style, _ in cands))
            continue
        if not cands:
            continue
        runs = {style: [] for style, _ in cands}
        errors = {}
        for rep in range(repeat):
            for style, cmd in rotated(cands, rep):
                if style.startswith("node") and rep >= node_repeat:
                    continue
                progress.step("%s %s.%s" % (suite.name, workload, style))
                if cmd is None:
                    runs[style].append(None)
                    errors[style] = "does not compile with %s (its errors are above)" % os.path.basename(args.clang)
                    continue
                timeout = 600 if style.startswith("node") else 300
                result, err = run_once(cmd + flags(params), timeout)
                runs[style].append(result)
                if err:
                    errors[style] = err
        rows = []
        for style, _ in cands:
            row = median_run(runs[style])
            if row is None:
                row = {"workload": workload, "style": style, "error": errors.get(style, "failed")}
            elif style in errors:
                row["error"] = errors[style]
            row["suite"] = suite.name
            rows.append(row)
        tables.append({"suite": suite.name, "title": suite.title, "workload": workload, "params": params,
                       "repeat": repeat, "rows": rows})
    return tables


# ---- reporting -----------------------------------------------------------------------------------------------------

def fmt(value, spec, width):
    if value is None:
        return "%*s" % (width, "-")
    if isinstance(value, float) and math.isnan(value):
        return "%*s" % (width, "n/a")
    return "%*s" % (width, spec % value)


def table_lines(table):
    p = table["params"]
    rows = table["rows"]
    workload = table["workload"]
    n, t, clock = p["n"], p["t"], p.get("clock", "real")
    base = next((r for r in rows if r.get("style") == "callback" and "time_ms" in r), None)
    head = "results for %d parallel executions, %g ms per I/O op" % (n, t)
    if workload.startswith("fanout"):
        head = "results for %d execution of %d parallel ops, %g ms per I/O op" % (n, p["p"], t)
    extras = [clock + " clock"]
    if p.get("e"):
        extras.append("likelihood of rejection %g" % p["e"])
    if workload == "madeup_parallel":
        extras.append("p=%d" % p["p"])
    depth = DEPTH.get(workload)
    if clock == "real" and depth and t > 0:
        extras.append("floor %g ms = %d sequential waits" % (depth * t, depth))
    out = ["%s: %s (%s)" % (workload, head, ", ".join(extras)), ""]
    show_digest = clock == "virtual"
    header = "%-28s %9s %9s %9s %11s %12s %11s %11s" % ("file", "time(ms)", "cpu(ms)", "slowdown", "memory(MB)",
                                                          "allocs/exec", "bytes/exec", "live B/exec")
    if show_digest:
        header += "  digest"
    out.append(header)
    for r in rows:
        name = "%s.%s" % (workload, r["style"])
        if "time_ms" not in r:
            out.append("%-28s %s" % (name, "FAILED: " + r.get("error", "")[:80]))
            continue
        slowdown = r["time_ms"] / base["time_ms"] if base and base["time_ms"] > 0 else float("nan")
        line = "%-28s %s %s %s %s %s %s %s" % (
            name, fmt(r["time_ms"], "%.1f", 9), fmt(r["cpu_ms"], "%.1f", 9), fmt(slowdown, "%.2f", 9),
            fmt(r.get("mem_mb"), "%.2f", 11), fmt(r.get("allocs_per_exec"), "%.2f", 12),
            fmt(r.get("bytes_per_exec"), "%.0f", 11), fmt(r.get("peak_live_bytes_per_exec"), "%.0f", 11))
        if show_digest:
            if r.get("trace_digest") is None or base is None:
                line += "  -"
            else:
                line += "  %s" % ("same" if r["trace_digest"] == base["trace_digest"] else "DIFFERS")
        out.append(line)
    return out


def git_revision():
    """This source tree's revision; None where the script is installed (asyncshift-bench)."""
    if not os.path.exists(os.path.join(ROOT, "scripts", "bench.py")):
        return None
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return rev + ("-dirty" if dirty else "") if rev else None
    except (OSError, subprocess.SubprocessError):
        return None


def cmake_cache(build_dir):
    cache = {}
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                if ":" in line and "=" in line and not line.startswith(("#", "//")):
                    key, value = line.rstrip("\n").split("=", 1)
                    cache[key.split(":", 1)[0]] = value
    except OSError:
        pass
    return cache


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def node_versions(node):
    if not node:
        return None
    try:
        out = subprocess.run([node, "-p", "process.version + ' ' + process.versions.v8"], capture_output=True,
                             text=True, timeout=30).stdout.split()
        return {"node": out[0], "v8": out[1]}
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def load_average():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def context(build_dir, node, tables, argv):
    cache = cmake_cache(build_dir)
    compilers = sorted({r["compiler"] for t in tables for r in t["rows"] if r.get("compiler") and
                        not r.get("build") == "node"})
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "os": "%s %s %s" % (platform.system(), platform.release(), platform.machine()),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "build_type": cache.get("CMAKE_BUILD_TYPE"),
        "cxx_flags": cache.get("CMAKE_CXX_FLAGS_" + cache.get("CMAKE_BUILD_TYPE", "").upper(), None),
        "compilers": compilers,
        "node": node_versions(node),
        "git_revision": git_revision(),
        "load_average": load_average(),
        "command": " ".join(argv),
    }


def platform_lines(ctx):
    lines = ["Platform info:", ctx["os"]]
    if ctx.get("node"):
        lines += ["Node.JS " + ctx["node"]["node"].lstrip("v"), "V8 " + ctx["node"]["v8"]]
    for c in ctx["compilers"]:
        if ctx.get("compilers_formatted"):
            lines.append(c)
        else:
            lines.append("%s (%s, %s)" % (c, ctx.get("build_type") or "?", ctx.get("cxx_flags") or "?"))
    lines.append("%s \u00d7 %d" % (ctx["cpu"], ctx["cores"] or 0))
    if ctx.get("load_average") is not None:
        lines.append("load average %.2f at the start, %.2f at the end" % (
            ctx.get("load_average_start", ctx["load_average"]), ctx["load_average"]))
    if ctx.get("git_revision"):
        lines.append("asyncshift " + ctx["git_revision"])
    return lines


CSV_FIELDS = ["suite", "workload", "style", "n", "t", "p", "e", "clock", "time_ms", "time_ms_min", "time_ms_max",
              "runs", "cpu_ms", "slowdown", "mem_mb",
              "rss_mb", "allocs_per_exec", "bytes_per_exec", "peak_live_bytes_per_exec", "completed", "failed",
              "trace_digest", "build", "compiler", "error"]


def write_csv(path, tables):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for t in tables:
            base = next((r for r in t["rows"] if r.get("style") == "callback" and "time_ms" in r), None)
            for r in t["rows"]:
                row = dict(r)
                if base and "time_ms" in r and base["time_ms"] > 0:
                    row["slowdown"] = "%.3f" % (r["time_ms"] / base["time_ms"])
                if r.get("time_ms_runs"):
                    row["time_ms_min"] = min(r["time_ms_runs"])
                    row["time_ms_max"] = max(r["time_ms_runs"])
                    row["runs"] = len(r["time_ms_runs"])
                w.writerow(row)


def family_color(style):
    if style.startswith("node"):
        return "#5a9e3a"
    if style.startswith("asio"):
        return "#d9822b"
    return "#3b6fb6"


def esc(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_svg(path, tables, ctx):
    """Horizontal bars per table: time (ms) and memory (MB), each on a log scale (peers differ by 100x)."""
    label_w, bar_w, row_h, gap = 210, 300, 16, 34
    width = label_w + 2 * (bar_w + 90) + 20
    parts = []
    y = 40
    for t in tables:
        rows = [r for r in t["rows"] if "time_ms" in r]
        if not rows:
            continue
        p = t["params"]
        parts.append('<text x="10" y="%d" font-weight="bold">%s — %s (n=%d, t=%g ms, %s clock%s)</text>' % (
            y, esc(t["workload"]), esc(t["title"]), p["n"], p["t"], p.get("clock", "real"),
            ", e=%g" % p["e"] if p.get("e") else ""))
        y += 8
        for col, (key, unit) in enumerate((("time_ms", "time"), ("mem_mb", "memory"))):
            values = [max(r.get(key) or 0, 1e-3) for r in rows]
            lo = 10 ** math.floor(math.log10(min(values)))
            hi = 10 ** math.ceil(math.log10(max(values) * 1.0001))
            x0 = label_w + col * (bar_w + 90)
            parts.append('<text x="%d" y="%d" font-size="10" fill="#555">%s (%s, log scale %g..%g)</text>' % (
                x0, y + 6, unit, "ms" if key == "time_ms" else "MB", lo, hi))
            for i, r in enumerate(rows):
                v = max(r.get(key) or 0, 1e-3)
                frac = (math.log10(v) - math.log10(lo)) / max(math.log10(hi) - math.log10(lo), 1e-9)
                yy = y + 12 + i * row_h
                parts.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>' % (
                    x0, yy, max(frac * bar_w, 1), row_h - 4, family_color(r["style"])))
                parts.append('<text x="%.1f" y="%d" font-size="10">%s</text>' % (
                    x0 + max(frac * bar_w, 1) + 4, yy + row_h - 6, "%.4g" % (r.get(key) or 0)))
        for i, r in enumerate(rows):
            parts.append('<text x="10" y="%d" font-size="11">%s</text>' % (y + 12 + i * row_h + row_h - 6,
                                                                          esc(r["style"])))
        y += 12 + len(rows) * row_h + gap
    footer = "%s; %s x %s; %s" % (ctx["os"], ctx["cpu"], ctx["cores"], ctx.get("git_revision") or "")
    parts.append('<text x="10" y="%d" font-size="10" fill="#555">%s</text>' % (y, esc(footer)))
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">\n'
           '<rect width="100%%" height="100%%" fill="white"/>\n'
           '<text x="10" y="20" font-size="14" font-weight="bold">asyncshift benchmark '
           '(blue: generated styles, orange: Asio, green: Node.js)</text>\n%s\n</svg>\n') % (
        width, y + 20, "\n".join(parts))
    with open(path, "w") as f:
        f.write(svg)


def not_optimised(tables, build_dir):
    cache = cmake_cache(build_dir)
    kinds = {r.get("build") for t in tables for r in t["rows"] if r.get("build") and r.get("build") != "node"}
    return (kinds and kinds != {"release"}) or cache.get("CMAKE_BUILD_TYPE", "Release") not in ("Release", "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--bench-dir", help="where the binaries <workload>_<style> are (default BUILD/bench): a "
                        "project's build directory for workloads of your own, named with --workloads")
    parser.add_argument("--suites", nargs="+", default=[s.name for s in SUITES],
                        choices=[s.name for s in SUITES])
    parser.add_argument("--workloads", nargs="+", help="only these workloads")
    parser.add_argument("--repeat", type=int, help="runs per style (default: 5 seeds, 3 others)")
    parser.add_argument("--quick", action="store_true", help="one run each, smaller n: a smoke test")
    parser.add_argument("--no-node", action="store_true", help="skip the Node.js peers")
    parser.add_argument("--out", help="output directory (default BUILD/bench, BUILD/bench/quick with --quick; "
                        "under them clang/ with --compiler clang)")
    parser.add_argument("--compiler", choices=["cmake", "clang"], default="cmake",
                        help="the CMake build's binaries (default), or the same sources compiled by clang++-19")
    args = parser.parse_args(argv)

    bench_dir = args.bench_dir or os.path.join(args.build_dir, "bench")
    results_dir = os.path.join(bench_dir, "bench") if args.bench_dir else bench_dir
    out_dir = args.out or (os.path.join(results_dir, "quick") if args.quick else results_dir)
    if not os.path.isdir(bench_dir):
        sys.exit("bench.py: %s does not exist; build first (%s)" %
                 (bench_dir, "cmake --build" if args.bench_dir else "make bench"))
    if args.bench_dir and args.compiler != "cmake":
        sys.exit("bench.py: --compiler clang compiles this repository's workloads again; for your own, build "
                 "them with -DCMAKE_CXX_COMPILER=clang++-19 in a build directory of their own")
    if args.bench_dir and not args.workloads:
        sys.exit("bench.py: --bench-dir needs --workloads: the names given to asyncshift_add_workload")
    args.clang = None
    if args.compiler == "clang":
        args.clang = find_clang()
        if not args.clang:
            sys.exit("bench.py: --compiler clang: clang++-19 is not on PATH (apt-get install clang-19)")
        if not args.out:
            out_dir = os.path.join(out_dir, "clang")
    os.makedirs(out_dir, exist_ok=True)
    node = None if args.no_node else shutil.which("node")
    suites = [s for s in SUITES if s.name in args.suites]
    if args.workloads:
        known = {w for s in SUITES for w in s.workloads}
        for w in args.workloads:
            if not any(os.path.exists(binary_path(bench_dir, w, style)) for style in GENERATED_STYLES):
                sys.exit("bench.py: no binaries of workload '%s' in %s (expected %s_callback, %s_coro, ...)" %
                         (w, bench_dir, w, w))
        for s in suites:
            s.workloads = [w for w in s.workloads if w in args.workloads]
            # A workload of the user's own runs where doxbee does: at n
            # executions at once, on the real and the virtual clock.
            if s.name in ("seeds", "overhead", "errors"):
                s.workloads += [w for w in args.workloads if w not in known]

    notes = []
    if not node and not args.no_node:
        notes.append("note: node is not on PATH: the Node.js peers are skipped")
    if any("doxbee" in s.workloads for s in suites) and \
            not any(os.path.exists(binary_path(bench_dir, "doxbee", s)) for s in ASIO_STYLES):
        notes.append("note: the Asio peers were not built (standalone Asio not found: apt-get install libasio-dev)")
    for note in notes:
        print(note)

    load_start = load_average()
    if load_start is not None and load_start > (os.cpu_count() or 1):
        print("note: the machine is busy (load average %.1f on %d cores): wall times will be inflated; cpu(ms) "
              "and `make bench-instructions` are the numbers that hold" % (load_start, os.cpu_count() or 1))
    total = sum(sum(run_suite(s, bench_dir, node, args, None, plan_only=True)) for s in suites)
    progress = Progress(total)
    tables = []
    for suite in suites:
        tables.extend(run_suite(suite, bench_dir, node, args, progress))
    progress.finish()
    if not tables:
        sys.exit("bench.py: no benchmark binaries under %s" % bench_dir)

    ctx = context(args.bench_dir or args.build_dir, node, tables,
                  [os.path.relpath(sys.argv[0], ROOT)] + (argv or sys.argv[1:]))
    ctx["load_average_start"] = load_start
    warn = not_optimised(tables, args.bench_dir or args.build_dir)
    if warn:
        print("***WARNING*** the benchmark binaries are not an optimised release build; the numbers mean little")
    for t in tables:
        print()
        print("\n".join(table_lines(t)))
    print()
    print("\n".join(platform_lines(ctx)))
    if warn:
        print("***WARNING*** not an optimised build")

    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"schema_version": 2, "context": ctx, "tables": tables}, f, indent=1)
    write_csv(os.path.join(out_dir, "results.csv"), tables)
    write_svg(os.path.join(out_dir, "chart.svg"), tables, ctx)
    print()
    print("results: %s, %s, %s" % tuple(os.path.join(out_dir, f) for f in ("results.json", "results.csv", "chart.svg")))
    failed = [r for t in tables for r in t["rows"] if "error" in r]
    for r in failed:
        sys.stderr.write("bench.py: %s %s %s: %s\n" % (r["suite"], r["workload"], r["style"], r["error"]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
