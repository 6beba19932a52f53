#!/usr/bin/env python3
"""Differential testing of the rewriter on generated programs (`make fuzz`).

    fuzz.py [--n N] [--seed S] [--per-bundle B] [--size Z] [--jobs J]
            [--styles STYLE...] [--run-seeds S...] [--errors E...]
            [--sanitize] [--reduce-budget SECONDS] [--out DIR] [--tool PATH]

N programs come from test/fuzz/fuzzgen.py (seeded: `--seed` and the program's
number decide it). They are bundled B to a workload file whose entry runs
program k % B for execution k, so one binary per style exercises B programs.
Every bundle is rewritten by the tool into each style, built, and run on the
virtual clock for every (run seed, error rate); each style must complete every
execution and print the callback original's trace digest and failure count,
and a second round in the same process must leave no live allocation behind
(test/fuzz/soak_main.cpp). A program fails when any of that goes wrong for it:

    refused       the tool refused it (the generator only writes SPEC §3 shapes)
    tool-crash    the tool exited with a signal or a status other than 0 and 1
    tool-timeout  the tool ran past --tool-timeout twice (the second try gets 3x)
    compile       the generated code does not build
    mismatch      a digest or failure count differs from the callback original
                  (in promise style, a program the tool warned about with
                  asyncshift-sync-completion-reordered is logged as announced
                  and passes: its reorder is the one the warning names)
    incomplete    a style did not complete every execution, or crashed
    leak          live allocations left after a round
    baseline      the callback original itself misbehaved (a generator bug)

Failures are pinned to their program (diagnostic lines, per-execution dumps:
execution k runs program k % B), then each distinct kind of failure is reduced
on the generator's tree to a small reproducer under OUT/failures/. The last
line is `N passed, M failed`; the exit status is 1 when M > 0.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import fuzzgen  # noqa: E402

ALL_STYLES = ["callback", "promise", "future", "coro", "coro-values"]


class Toolchain:
    """The tool, the compiler and the prebuilt harness objects; runs the heavy
    steps (tool, compiler) at most `jobs` at a time."""

    def __init__(self, args):
        self.args = args
        self.tool = args.tool
        self.cxx = args.cxx
        self.include = os.path.join(ROOT, "runtime", "include")
        self.harness = os.path.join(ROOT, "bench", "harness")
        self.slots = threading.Semaphore(args.jobs)
        flags = ["-std=c++20", args.opt, "-DNDEBUG" if not args.sanitize else "-UNDEBUG", "-pthread", "-w"]
        if args.sanitize:
            flags += ["-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
        self.cxxflags = flags
        self.objdir = os.path.join(args.out, "obj-sanitize" if args.sanitize else "obj")
        os.makedirs(self.objdir, exist_ok=True)
        self.objects = [self.prebuilt(os.path.join(self.harness, "harness.cpp")),
                        self.prebuilt(os.path.join(HERE, "soak_main.cpp"))]

    def heavy(self, cmd, timeout, env=None):
        with self.slots:
            return run(cmd, timeout, env)

    def newest_input(self, source):
        """The newest mtime among source and the headers it can include (the
        runtime's and the harness's): an object older than a header it was
        built from may disagree with new code on a layout."""
        newest = os.path.getmtime(source)
        for top in (self.include, self.harness):
            for d, _, files in os.walk(top):
                for f in files:
                    newest = max(newest, os.path.getmtime(os.path.join(d, f)))
        return newest

    def prebuilt(self, source):
        obj = os.path.join(self.objdir, os.path.basename(source) + ".o")
        stamp = obj + ".flags"
        key = " ".join([self.cxx] + self.cxxflags)
        if (os.path.exists(obj) and os.path.getmtime(obj) >= self.newest_input(source)
                and os.path.exists(stamp) and open(stamp).read() == key):
            return obj
        r = self.heavy([self.cxx] + self.cxxflags + ["-I", self.include, "-I", self.harness, "-c", source, "-o", obj],
                       600)
        if r.code != 0:
            sys.exit("fuzz: cannot build %s:\n%s" % (source, r.err))
        with open(stamp, "w") as f:
            f.write(key)
        return obj

    def rewrite(self, source, style, out, timeout=None):
        cmd = [self.tool, "--style=" + style, source, "-o", out, "--", "-std=c++20", "-I", self.include]
        return self.heavy(cmd, timeout or self.args.tool_timeout)

    def build(self, source, binary):
        obj = binary + ".o"
        r = self.heavy([self.cxx] + self.cxxflags + ["-I", self.include, "-c", source, "-o", obj],
                       self.args.compile_timeout)
        if r.code != 0:
            return r
        r2 = self.heavy([self.cxx] + self.cxxflags + [obj] + self.objects + ["-o", binary], 300)
        try:
            os.unlink(obj)
        except OSError:
            pass
        return r2

    def execute(self, binary, n, seed, error_rate, rounds=1, dump=False):
        cmd = [binary, "--clock=virtual", "--n", str(n), "--seed", str(seed), "--e", str(error_rate),
               "--warmup", "0", "--no-progress", "--rounds", str(rounds)]
        if dump:
            cmd.append("--dump-executions")
        env = dict(os.environ)
        if self.args.sanitize:
            env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:exitcode=86"
            env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:exitcode=87"
        return run(cmd, self.args.run_timeout, env)


class Result:
    def __init__(self, code, out, err, timed_out=False):
        self.code, self.out, self.err, self.timed_out = code, out, err, timed_out

    @property
    def signalled(self):
        return self.code is not None and self.code < 0


def run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, errors="replace")
        return Result(p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return Result(None, out, err, timed_out=True)


def describe_exit(r):
    if r.timed_out:
        return "timed out"
    if r.code < 0:
        try:
            return "killed by %s" % signal.Signals(-r.code).name
        except ValueError:
            return "killed by signal %d" % -r.code
    return "exit status %d" % r.code


class Failure:
    def __init__(self, kind, style, detail, seed=None, error_rate=None, refusal=None):
        self.kind, self.style, self.detail = kind, style, detail
        self.seed, self.error_rate, self.refusal = seed, error_rate, refusal

    def signature(self):
        return (self.kind, self.style, self.refusal or "")

    def __str__(self):
        where = "" if self.seed is None else " (run seed %s, e=%s)" % (self.seed, self.error_rate)
        return "%s in %s%s: %s" % (self.kind, self.style, where, self.detail)


# ---------------------------------------------------------------------------
# One bundle


def bundle_text(programs, tag):
    text = fuzzgen.render_bundle(programs, comment="Generated by test/fuzz/fuzzgen.py (%s); do not edit." % tag)
    return text


def program_of_line(text, line):
    """The program (its prefix number) whose code holds 1-based `line` of a
    bundle or of its rewrite: the last `pN_` function started at or above it."""
    lines = text.splitlines()
    pat = re.compile(r"^\S.*?\bp(\d+)_(?:f\d+|main|leaf|get)\s*\(")
    for i in range(min(line, len(lines)) - 1, -1, -1):
        m = pat.match(lines[i])
        if m:
            return int(m.group(1))
    return None


def programs_at(text, stderr, path, pattern):
    """Programs whose lines of `path` the `pattern` matches (its groups: file, line) name in stderr."""
    base = os.path.basename(path)
    found = set()
    for m in re.finditer(pattern, stderr, re.M):
        if os.path.basename(m.group(1)) == base:
            p = program_of_line(text, int(m.group(2)))
            if p is not None:
                found.add(p)
    return found


def diagnostic_programs(text, stderr, path):
    """Programs named by a diagnostic: its `path:line:col: error:` lines, else
    any `path:line:col:` line (an error inside a runtime header is reported
    at the header, with our line in its "required from here"), else the
    functions named by "In function ..." lines."""
    for pattern in (r"^([^\s:]+):(\d+):\d+: (?:fatal )?error:", r"^([^\s:]+):(\d+):\d+:"):
        found = programs_at(text, stderr, path, pattern)
        if found:
            return found
    return {int(m.group(1)) for m in re.finditer(r"In (?:function|lambda|member function|instantiation)[^\n]*?\bp(\d+)_",
                                                 stderr)}


# The tool's warning that promise style may start a turn's work in another
# order than the original (docs/transforms/README.md, "What promise style
# cannot keep"): a digest mismatch in a program it names is that reorder.
REORDER_WARNING = "asyncshift-sync-completion-reordered"


# The end test of fuzzgen's recursive-lambda loop (RecLoop), which runs one
# to four rounds: its first round never completes synchronously, although the
# checker, which does no arithmetic, says it may.
RECLOOP_END_TEST = re.compile(r"\|\s*if \(i\w+ == rounds\w+\) return ")


def warned_programs(text, stderr, path, warning_id):
    """Programs named by the tool's `path:line:col: warning: ... [warning_id]`
    lines, but for a warning whose synchronous completion is a RecLoop's end
    test, which no generated program reaches in its first round."""
    kept = []
    for block in re.split(r"(?m)^(?=[^\s:]+:\d+:\d+: (?:warning|error): )", stderr):
        sync = re.search(r"note: completes '\w+' synchronously here[^\n]*\n([^\n]*)", block)
        if sync and RECLOOP_END_TEST.search(sync.group(1)):
            continue
        kept.append(block)
    return programs_at(text, "".join(kept), path,
                       r"^([^\s:]+):(\d+):\d+: warning: .*\[" + re.escape(warning_id) + r"\]$")


def refusal_id(stderr):
    m = re.search(r"error: .*\[(asyncshift-[\w-]+)\]", stderr)
    return m.group(1) if m else None


def parse_json_lines(out):
    harness, soak = [], []
    for line in out.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        (soak if "soak_round" in obj else harness).append(obj)
    return harness, soak


def parse_dump(err):
    """execution k -> 'ops=.. trace=.. outcome=..' from --dump-executions."""
    out = {}
    for m in re.finditer(r"^execution (\d+): (.*)$", err, re.M):
        out[int(m.group(1))] = m.group(2)
    return out


class BundleRun:
    """Rewrites, builds and runs one bundle; returns {program index: [Failure]}."""

    def __init__(self, tc, args, workdir, programs, index_of, styles):
        self.tc, self.args, self.dir = tc, args, workdir
        self.programs = programs
        self.index_of = index_of  # program prefix number -> position in the bundle
        self.styles = styles
        os.makedirs(workdir, exist_ok=True)
        self.source = os.path.join(workdir, "fuzz.cpp")
        self.text = ""
        self.failures = {}
        self.unattributed = []
        # Programs the tool warned about, per style: their mismatches are the
        # reorder the warning announces (`warned`), not failures.
        self.reorder_warned = {}
        self.warned = {}

    def fail(self, prefix_numbers, failure):
        if not prefix_numbers:
            self.unattributed.append(failure)
            return
        for p in prefix_numbers:
            known = self.failures.setdefault(p, [])
            if not any(f.kind == failure.kind and f.style == failure.style for f in known):
                known.append(failure)

    def all_programs(self):
        return [int(p.prefix[1:]) for p in self.programs]

    def write(self):
        self.text = bundle_text(self.programs, os.path.basename(self.dir))
        with open(self.source, "w") as f:
            f.write(self.text)

    def go(self):
        """Rewrite, build, run. A program that cannot be rewritten or built is
        recorded and left out, and the rest are tried again without it, so
        one failure does not hide the others' results in that style."""
        for _ in range(5):
            if not self.programs:
                return self.failures
            self.write()
            bins = self.rewrite_and_build()
            if bins is None:  # some programs failed and were dropped: again
                continue
            if "callback" in bins:
                self.run_all(bins)
            return self.failures
        return self.failures

    def drop_failed(self):
        before = len(self.programs)
        self.programs = [p for p in self.programs if int(p.prefix[1:]) not in self.failures]
        return len(self.programs) != before

    def rewrite_and_build(self):
        sources = {"callback": self.source}
        styles = [s for s in self.styles if s != "callback"]
        outs = {s: os.path.join(self.dir, "fuzz.%s.cpp" % s) for s in styles}
        for o in outs.values():
            if os.path.exists(o):
                os.unlink(o)
        with concurrent.futures.ThreadPoolExecutor(len(styles) or 1) as ex:
            results = dict(zip(styles, ex.map(lambda s: self.tc.rewrite(self.source, s, outs[s]), styles)))
        # A bundle of large programs can take the tool most of its time limit
        # on an idle machine (clang-format on deeply nested lambdas), and more
        # under load: a timeout gets one more try with three times the limit
        # before anything is blamed.
        for s in styles:
            if results[s].timed_out:
                results[s] = self.tc.rewrite(self.source, s, outs[s], timeout=3 * self.args.tool_timeout)
        for s in styles:
            r = results[s]
            if r.code == 0 and os.path.exists(outs[s]):
                sources[s] = outs[s]
                self.reorder_warned[s] = warned_programs(self.text, r.err, self.source, REORDER_WARNING)
                continue
            if r.code == 1 and not r.timed_out:
                rid = refusal_id(r.err) or "error"
                progs = diagnostic_programs(self.text, r.err, self.source)
                if not progs:
                    progs = self.isolate_tool(s)
                for p in progs:
                    detail = first_lines(filter_diag(r.err, p, self.text, self.source), 6)
                    self.fail({p}, Failure("refused", s, detail, refusal=refusal_id(detail) or rid))
                if not progs:
                    self.fail(set(self.all_programs()), Failure("refused", s, first_lines(r.err, 6), refusal=rid))
            else:
                kind = "tool-crash" if not r.timed_out else "tool-timeout"
                progs = self.isolate_tool(s)
                self.fail(progs or set(self.all_programs()),
                          Failure(kind, s, describe_exit(r) + ": " + first_lines(r.err, 8)))
        if self.drop_failed():
            return None
        bins = {}
        with concurrent.futures.ThreadPoolExecutor(len(sources)) as ex:
            futs = {s: ex.submit(self.tc.build, src, os.path.join(self.dir, "fuzz_" + s.replace("-", "_")))
                    for s, src in sources.items()}
            for s, fut in futs.items():
                r = fut.result()
                binary = os.path.join(self.dir, "fuzz_" + s.replace("-", "_"))
                if r.code == 0:
                    bins[s] = binary
                    continue
                text = open(sources[s]).read()
                progs = diagnostic_programs(text, r.err, sources[s]) or set(self.all_programs())
                kind = "compile" if s != "callback" else "baseline"
                for p in progs:
                    self.fail({p}, Failure(kind, s, first_lines(filter_errors(r.err), 8)))
        if self.drop_failed():
            return None
        return bins

    def isolate_tool(self, style):
        """Programs whose rewrite fails on their own (when diagnostics name no line)."""
        bad = set()
        for prog in self.programs:
            d = os.path.join(self.dir, "alone-" + prog.prefix)
            os.makedirs(d, exist_ok=True)
            src = os.path.join(d, "fuzz.cpp")
            with open(src, "w") as f:
                f.write(bundle_text([prog], prog.prefix))
            r = self.tc.rewrite(src, style, os.path.join(d, "fuzz.%s.cpp" % style))
            if r.code != 0:
                bad.add(int(prog.prefix[1:]))
        return bad

    def run_all(self, bins):
        a = self.args
        nprog = len(self.programs)
        n = nprog * a.reps
        first = True
        for seed in a.run_seeds:
            for e in a.errors:
                rounds = a.leak_rounds if first else 1
                first = False
                results = {}
                with concurrent.futures.ThreadPoolExecutor(min(len(bins), a.jobs)) as ex:
                    futs = {s: ex.submit(self.tc.execute, b, n, seed, e, rounds) for s, b in bins.items()}
                    for s, f in futs.items():
                        results[s] = f.result()
                base = results["callback"]
                bj, bsoak = parse_json_lines(base.out)
                if base.code != 0 or not bj or bj[0]["completed"] != n:
                    self.pin_run(bins, "callback", seed, e, n, "baseline",
                                 "callback original: %s %s" % (describe_exit(base), first_lines(base.err, 6)))
                    continue
                self.check_leak("callback", bsoak, seed, e)
                for s, r in results.items():
                    if s == "callback":
                        continue
                    hj, soak = parse_json_lines(r.out)
                    problems = []
                    if r.code != 0 or not hj:
                        problems.append("%s %s" % (describe_exit(r), first_lines(r.err, 6)))
                        kind = "incomplete"
                    else:
                        h = hj[0]
                        kind = "mismatch"
                        if h["completed"] != n:
                            problems.append("completed %d of %d" % (h["completed"], n))
                            kind = "incomplete"
                        if h["trace_digest"] != bj[0]["trace_digest"]:
                            problems.append("digest %s != callback %s" % (h["trace_digest"], bj[0]["trace_digest"]))
                        if h["failed"] != bj[0]["failed"]:
                            problems.append("failed %d != callback %d" % (h["failed"], bj[0]["failed"]))
                        for extra in hj[1:]:
                            if extra["trace_digest"] != h["trace_digest"]:
                                problems.append("round 2 digest differs")
                    if problems:
                        self.pin_run(bins, s, seed, e, n, kind, "; ".join(problems))
                    else:
                        self.check_leak(s, soak, seed, e)

    def check_leak(self, style, soak, seed, e):
        later = [s for s in soak if s["soak_round"] >= 2]
        bad = [s for s in later if s["live_objects_delta"] != 0 or s["live_bytes_delta"] != 0]
        if bad:
            self.fail(set(self.all_programs()), Failure(
                "leak", style, "round %d left %d live objects (%d bytes)" % (
                    bad[0]["soak_round"], bad[0]["live_objects_delta"], bad[0]["live_bytes_delta"]), seed, e))

    def pin_run(self, bins, style, seed, e, n, kind, detail):
        """Which programs misbehave in `style` for (seed, e): compare the
        per-execution dumps with the callback original's."""
        nprog = len(self.programs)
        progs = set()
        if style != "callback" and "callback" in bins:
            rb = self.tc.execute(bins["callback"], n, seed, e, 1, dump=True)
            rs = self.tc.execute(bins[style], n, seed, e, 1, dump=True)
            db, ds = parse_dump(rb.err), parse_dump(rs.err)
            for k in range(n):
                if db.get(k) != ds.get(k):
                    progs.add(k % nprog)
            sample = {}
            for k in sorted(range(n)):
                if db.get(k) != ds.get(k):
                    p = k % nprog
                    if p not in sample:
                        sample[p] = "execution %d: callback %s; %s %s" % (k, db.get(k, "(none)"), style,
                                                                         ds.get(k, "(did not complete)"))
        else:
            rb = self.tc.execute(bins["callback"], n, seed, e, 1, dump=True)
            db = parse_dump(rb.err)
            sample = {}
            for k in range(n):
                if k not in db:
                    progs.add(k % nprog)
                    sample.setdefault(k % nprog, "execution %d did not complete" % k)
        for p in progs or range(nprog):
            num = int(self.programs[p].prefix[1:])
            extra = sample.get(p, "") if isinstance(sample, dict) else ""
            failure = Failure(kind, style, detail + ("; " + extra if extra else ""), seed, e)
            if kind == "mismatch" and num in self.reorder_warned.get(style, ()):
                self.warned.setdefault(num, failure)  # announced by the tool: not a failure
            else:
                self.fail({num}, failure)


def first_lines(text, k):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    s = "\n".join(lines[:k])
    if len(lines) > k:
        s += "\n..."
    return s


def filter_errors(err):
    return "\n".join(l for l in err.splitlines() if "error" in l) or err


def filter_diag(err, prog, text, source):
    out = []
    base = os.path.basename(source)
    for line in err.splitlines():
        m = re.match(r"^([^\s:]+):(\d+):\d+: ", line)
        if m and os.path.basename(m.group(1)) == base and program_of_line(text, int(m.group(2))) == prog:
            out.append(line)
    return "\n".join(out) or err


# ---------------------------------------------------------------------------
# Reduction


class Oracle:
    """Does a (single) program still fail the same way?"""

    def __init__(self, tc, args, failure, workdir):
        self.tc, self.args, self.failure, self.dir = tc, args, failure, workdir
        self.calls = 0

    def __call__(self, prog):
        self.calls += 1
        d = os.path.join(self.dir, "try")
        shutil.rmtree(d, ignore_errors=True)
        br = BundleRun(self.tc, self.oracle_args(), d, [prog], None,
                       ["callback", self.failure.style] if self.failure.style != "callback" else ["callback"])
        fails = br.go()
        for fl in fails.get(int(prog.prefix[1:]), []) + br.unattributed:
            if fl.kind == self.failure.kind and fl.style == self.failure.style and \
                    (fl.refusal or "") == (self.failure.refusal or ""):
                return True
        return False

    def oracle_args(self):
        a = argparse.Namespace(**vars(self.args))
        if self.failure.seed is not None:
            a.run_seeds = [self.failure.seed] + [s for s in self.args.run_seeds if s != self.failure.seed]
            a.errors = [self.failure.error_rate] + [e for e in self.args.errors if e != self.failure.error_rate]
        return a


def reduce_program(prog, oracle, budget, log):
    """Greedy reduction on the generator's tree (first improvement, biggest
    cuts first), until no single simplification keeps the failure or the
    time budget runs out."""
    start = time.time()
    cur = prog
    steps = 0
    while time.time() - start < budget:
        cands = []
        for desc, thunk in fuzzgen.reductions(cur):
            q = thunk()
            if q is not None:
                size = fuzzgen.program_size(q)
                if size < fuzzgen.program_size(cur):
                    cands.append((size, desc, q))
        cands.sort(key=lambda c: c[0])
        progressed = False
        for size, desc, q in cands:
            if time.time() - start >= budget:
                break
            if oracle(q):
                cur = q
                steps += 1
                log("    reduced (%s): %d chars" % (desc, size))
                progressed = True
                break
        if not progressed:
            break
    return cur, steps


# ---------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=200, help="programs to generate")
    ap.add_argument("--seed", type=int, default=1, help="generator seed")
    ap.add_argument("--first", type=int, default=0, help="number of the first program")
    ap.add_argument("--per-bundle", type=int, default=25, help="programs per workload file")
    ap.add_argument("--size", type=int, default=10, help="size of a program (async tails)")
    ap.add_argument("--strings", action="store_true",
                    help="some variables are std::strings (captured by value, with a destructor)")
    ap.add_argument("--mapped", action="store_true",
                    help="most parallel branches with a value map one call's value (promisify(...).map(...))")
    ap.add_argument("--reps", type=int, default=8, help="executions per program per run")
    ap.add_argument("--styles", nargs="+", default=ALL_STYLES)
    ap.add_argument("--run-seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--errors", type=float, nargs="+", default=[0.0, 0.1, 0.3])
    ap.add_argument("--leak-rounds", type=int, default=2, help="rounds of the first run (leak check)")
    ap.add_argument("--jobs", type=int, default=2, help="tool/compiler processes at once")
    ap.add_argument("--bundle-jobs", type=int, default=2, help="bundles in flight at once")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--opt", default="-O1")
    ap.add_argument("--sanitize", action="store_true", help="build with -fsanitize=address,undefined")
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "bin", "asyncshift"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz"))
    ap.add_argument("--reduce-budget", type=float, default=600, help="seconds per reduced failure (0: none)")
    ap.add_argument("--max-reduce", type=int, default=6, help="distinct failures to reduce")
    ap.add_argument("--keep", action="store_true", help="keep the work files of passing bundles")
    ap.add_argument("--tool-timeout", type=float, default=120,
                    help="seconds for one rewrite of a bundle (a timeout is retried once with 3x)")
    ap.add_argument("--compile-timeout", type=float, default=900)
    ap.add_argument("--run-timeout", type=float, default=30)
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    if "callback" not in args.styles:
        args.styles = ["callback"] + args.styles
    t0 = time.time()
    if not os.path.exists(args.tool):
        sys.exit("fuzz: no tool at %s (build it first)" % args.tool)
    tc = Toolchain(args)
    work = os.path.join(args.out, "work-sanitize" if args.sanitize else "work")
    faildir = os.path.join(args.out, "failures-sanitize" if args.sanitize else "failures")
    os.makedirs(work, exist_ok=True)
    lock = threading.Lock()

    def log(msg):
        with lock:
            print(msg, flush=True)

    numbers = list(range(args.first, args.first + args.n))
    programs = {i: fuzzgen.generate_program(args.seed, i, args.size, args.strings, args.mapped) for i in numbers}
    bundles = [numbers[i:i + args.per_bundle] for i in range(0, len(numbers), args.per_bundle)]
    log("fuzz: %d programs (seed %d, size %d%s%s), %d bundles, styles %s%s" % (
        args.n, args.seed, args.size, ", strings" if args.strings else "", ", mapped" if args.mapped else "",
        len(bundles), " ".join(args.styles),
        ", ASan+UBSan" if args.sanitize else ""))

    failures = {}
    warned = {}

    def do_bundle(bi):
        nums = bundles[bi]
        d = os.path.join(work, "s%d-b%d" % (args.seed, nums[0]))
        shutil.rmtree(d, ignore_errors=True)
        t = time.time()
        br = BundleRun(tc, args, d, [programs[i] for i in nums], None, args.styles)
        fails = br.go()
        for f in br.unattributed:
            for i in nums:
                fails.setdefault(i, []).append(f)
        with lock:
            failures.update(fails)
            warned.update({num: f for num, f in br.warned.items() if num not in fails})
        log("bundle %d/%d (programs %d-%d): %d failed, %.0f s" % (
            bi + 1, len(bundles), nums[0], nums[-1], len(fails), time.time() - t))
        for num in sorted(fails):  # at once, so a long run is useful before it ends
            log("  program %d: %s" % (num, str(fails[num][0])[:300].replace("\n", " ")))
        if not fails and not args.keep:
            shutil.rmtree(d, ignore_errors=True)

    with concurrent.futures.ThreadPoolExecutor(args.bundle_jobs) as ex:
        list(ex.map(do_bundle, range(len(bundles))))

    # Report, and reduce one program per distinct failure.
    seen = {}
    for num in sorted(failures):
        for f in failures[num]:
            log("program %d: %s" % (num, f))
            seen.setdefault(f.signature(), (num, f))
    if seen:
        os.makedirs(faildir, exist_ok=True)
    reduced = 0
    for sig, (num, f) in sorted(seen.items()):
        name = "s%d-p%d-%s-%s%s" % (args.seed, num, f.style, f.kind, "-" + f.refusal if f.refusal else "")
        d = os.path.join(faildir, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        prog = programs[num]
        with open(os.path.join(d, "original.cpp"), "w") as fh:
            fh.write(bundle_text([prog], "seed %d, program %d" % (args.seed, num)))
        final = prog
        steps = 0
        if args.reduce_budget > 0 and reduced < args.max_reduce:
            reduced += 1
            log("reducing program %d (%s in %s)..." % (num, f.kind, f.style))
            oracle = Oracle(tc, args, f, d)
            if oracle(prog):
                final, steps = reduce_program(prog, oracle, args.reduce_budget, log)
            else:
                log("    program %d alone does not fail the same way; kept as is" % num)
            shutil.rmtree(os.path.join(d, "try"), ignore_errors=True)
        with open(os.path.join(d, "reduced.cpp"), "w") as fh:
            fh.write(bundle_text([final], "seed %d, program %d, reduced in %d steps" % (args.seed, num, steps)))
        with open(os.path.join(d, "README.txt"), "w") as fh:
            fh.write("generator seed %d, program %d, size %d%s\n%s\n\nreproduce:\n  %s --style=%s reduced.cpp -- "
                     "-std=c++20 -I runtime/include\n" % (args.seed, num, args.size, (", --strings" if args.strings else "") + (", --mapped" if args.mapped else ""),
                                                          f, args.tool, f.style))
        log("kept %s" % os.path.relpath(d, ROOT))

    for num in sorted(warned):
        log("program %d: %s (passed: the tool warned %s)" % (num, str(warned[num])[:300].replace("\n", " "),
                                                              REORDER_WARNING))
    nfail = len(failures)
    log("fuzz: seed %d, %d programs in %.0f s" % (args.seed, args.n, time.time() - t0))
    log("%d passed, %d failed" % (args.n - nfail, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
