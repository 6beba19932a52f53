#!/usr/bin/env python3
"""The tool never crashes: feed it mutated sources and argument lists.

    mutate_tool.py [--count N] [--seed S] [--jobs J] [--tool PATH] [--out DIR]
                   [--real-header-share P] [--save-all-exits]

Seeds are the lit tests' inputs (test/lit/patterns, refuse, check, cli) and
programs from the generator (test/fuzz/fuzzgen.py). Each input is one seed,
mutated (truncated, lines shuffled, dropped or duplicated, bytes corrupted,
tokens swapped, spliced with another seed, refused constructs inserted),
and run with a mutated argument list (styles, modes, missing or duplicated
flags, bad paths, odd compiler flags). Sources include a stand-in runtime
header (test/fuzz/mini/) that parses in a fraction of the time the real
one takes; a share of inputs (--real-header-share) uses the real headers.

Every run must end in output or diagnostics with exit status 0 or 1: never
a signal, another status, a hang (--timeout), a status 1 with nothing on
stderr, or a file written by a run that failed. Offending inputs are kept
under OUT/crashes/<signature>/ (input, arguments, stderr), one per distinct
signature (exit, first asyncshift frame of the stack dump). The last line
says how many inputs were tried and how many failed.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import os
import random
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

# The headers inputs are compiled against. main() points these at copies under
# --out: argument mutations pair any path with any flag (`--out-dir <an -I
# directory>`), so no path the tool is given may lie in the source tree.
MINI = os.path.join(HERE, "mini")
REAL = os.path.join(ROOT, "runtime", "include")


def stage_headers(out):
    """Copy the headers under `out` (keeping mini/ops.h's relative include of the
    lit inputs) and point MINI and REAL at the copies."""
    global MINI, REAL
    root = os.path.join(out, "headers")
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(os.path.join(HERE, "mini"), os.path.join(root, "fuzz", "mini"))
    shutil.copytree(os.path.join(ROOT, "test", "lit", "Inputs"), os.path.join(root, "lit", "Inputs"))
    shutil.copytree(os.path.join(ROOT, "runtime", "include"), os.path.join(root, "real"))
    MINI, REAL = os.path.join(root, "fuzz", "mini"), os.path.join(root, "real")

STYLES = ["promise", "future", "coro", "coro-values"]

# Tokens worth inserting: what the tool's matchers look at, and constructs it refuses.
DICTIONARY = [
    "asyncshift::callback<>", "asyncshift::callback<int>", "asyncshift::callback<std::int64_t>",
    "asyncshift::error", "asyncshift::error err", "err", "done", "done({})", "done(err)", "return",
    "return done(err);", "if (err)", "if (!err)", "[=]", "[&]", "[]", "(asyncshift::error err)",
    "auto", "auto &self", "self(self, i + 1)", "step(step, 0)", "mutable", "co_await", "co_return",
    "template <class T>", "typename", "static", "inline", "const", "&", "&&", "*", "::", "...", "->",
    "goto out;", "out:", "switch (x) { case 0: break; }", "try {", "} catch (...) {}", "throw 1;",
    "while (true)", "for (;;)", "do {", "} while (0);", "#define M(x) x", "#include <vector>",
    "asyncshift::parallel", "asyncshift::parallel<int>", "asyncshift::each_series", "std::move(done)",
    "std::make_shared<std::size_t>(n)", "*failed = true;", "if (--*pending == 0)", "if (*failed) return;",
    "[[clang::annotate(\"asyncshift::leaf\")]]", "__attribute__((unused))", "decltype(done)",
    "sizeof(done)", "new int", "delete", "0", "1", "-1", "2147483648", "\"s\"", "'c'", "nullptr",
    "{", "}", "(", ")", ";", ",", "=", "<", ">", "\\", "\"", "/*", "*/", "//", "#", "##",
    "\x00", "\xff", "\u00e9", "\u200b", "\t", "\r", "\n", "??/",
]

ARG_NOISE = [
    "--style=", "--style=callback", "--style=coro-values", "--style=CORO", "--style=coro,promise",
    "--check", "--dump-ir", "-i", "--errors=values", "--errors=", "--help", "--version", "-h",
    "--", "-", "--style", "-o", "--out-dir", "-p", "--depfile", "--unknown-flag", "", " ", "=",
    "-std=c++98", "-std=c++20", "-std=gnu++23", "-x", "c", "-x", "c++-header", "-DX=1", "-Dasyncshift=foo",
    "-UNDEBUG", "-include", "nonexistent.h", "-I", "nonexistent", "-fsyntax-only", "-Werror",
    "-ferror-limit=1", "-w", "-O3", "-E", "-M", "-c", "-S", "--driver-mode=cl", "-fno-exceptions",
    "-fcoroutines", "-resource-dir=/nonexistent", "\u00e9\u00e9", "-" * 300, "x" * 5000,
]


def lit_seeds():
    seeds = []
    for sub in ("patterns", "refuse", "check", "cli"):
        for path in sorted(glob.glob(os.path.join(ROOT, "test", "lit", sub, "*.cpp"))):
            text = open(path, encoding="utf-8", errors="replace").read()
            # Drop the lit lines (RUN/CHECK): they are comments, but long ones.
            text = "\n".join(l for l in text.splitlines() if not re.match(r"\s*// *(RUN|CHECK|[A-Z_]+-?[A-Z]*:)", l))
            seeds.append(("lit/%s/%s" % (sub, os.path.basename(path)), text))
    for path in sorted(glob.glob(os.path.join(ROOT, "test", "equivalence", "workloads", "*.cpp"))):
        seeds.append(("equivalence/" + os.path.basename(path), open(path).read()))
    return seeds


def generated_seeds(count, seed):
    out = []
    for i in range(count):
        prog = fuzzgen.generate_program(seed + 1000, i, random.Random(i).randint(2, 8))
        out.append(("generated/p%d" % i, fuzzgen.render_bundle([prog])))
    return out


class Mutator:
    def __init__(self, rng, seeds):
        self.rng = rng
        self.seeds = seeds

    def source(self, text):
        r = self.rng
        for _ in range(r.choice([1, 1, 1, 2, 3, 5])):
            text = r.choice(self.OPS)(self, text)
        return text

    def truncate(self, text):
        return text[: self.rng.randint(0, len(text))] if text else text

    def truncate_lines(self, text):
        lines = text.splitlines(True)
        return "".join(lines[: self.rng.randint(0, len(lines))])

    def drop_lines(self, text):
        lines = text.splitlines(True)
        if not lines:
            return text
        a = self.rng.randrange(len(lines))
        b = min(len(lines), a + self.rng.choice([1, 1, 2, 3, 8]))
        return "".join(lines[:a] + lines[b:])

    def dup_lines(self, text):
        lines = text.splitlines(True)
        if not lines:
            return text
        a = self.rng.randrange(len(lines))
        b = min(len(lines), a + self.rng.choice([1, 2, 4]))
        at = self.rng.randrange(len(lines) + 1)
        return "".join(lines[:at] + lines[a:b] + lines[at:])

    def shuffle_lines(self, text):
        lines = text.splitlines(True)
        if len(lines) < 2:
            return text
        a = self.rng.randrange(len(lines))
        b = min(len(lines), a + self.rng.choice([2, 3, 5, 10, 40]))
        seg = lines[a:b]
        self.rng.shuffle(seg)
        return "".join(lines[:a] + seg + lines[b:])

    def swap_lines(self, text):
        lines = text.splitlines(True)
        if len(lines) < 2:
            return text
        i, j = self.rng.randrange(len(lines)), self.rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines)

    def corrupt_bytes(self, text):
        if not text:
            return text
        chars = list(text)
        for _ in range(self.rng.choice([1, 1, 2, 5, 20])):
            i = self.rng.randrange(len(chars))
            c = self.rng.random()
            if c < 0.4:
                chars[i] = self.rng.choice("{}()[];,=<>&*!\"'\\/#:.?~^|%+-0123456789abcdefxyz _\n\t")
            elif c < 0.6:
                chars[i] = chr(self.rng.choice([0, 1, 0x7f, 0xa0, 0xe9, 0x200b, 0xfeff, 0xd7ff, 0x1f600]))
            elif c < 0.8:
                del chars[i]
            else:
                chars.insert(i, chars[self.rng.randrange(len(chars))])
        return "".join(chars)

    TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|::|->|\d+|\S")

    def tokens(self, text):
        toks = [(m.start(), m.end()) for m in self.TOKEN.finditer(text)]
        if not toks:
            return text
        r = self.rng
        i = r.randrange(len(toks))
        s, e = toks[i]
        c = r.random()
        if c < 0.3:  # delete a token
            return text[:s] + text[e:]
        if c < 0.5:  # replace with a dictionary word
            return text[:s] + r.choice(DICTIONARY) + text[e:]
        if c < 0.7:  # insert a dictionary word
            return text[:s] + r.choice(DICTIONARY) + " " + text[s:]
        if c < 0.85:  # replace with another token of the text
            s2, e2 = toks[r.randrange(len(toks))]
            return text[:s] + text[s2:e2] + text[e:]
        # swap two tokens
        j = r.randrange(len(toks))
        (a, b), (c2, d) = sorted([toks[i], toks[j]])
        if b > c2:
            return text
        return text[:a] + text[c2:d] + text[b:c2] + text[a:b] + text[d:]

    def splice(self, text):
        other = self.rng.choice(self.seeds)[1]
        lines, olines = text.splitlines(True), other.splitlines(True)
        if not olines:
            return text
        a = self.rng.randrange(len(olines))
        b = min(len(olines), a + self.rng.randint(1, 30))
        at = self.rng.randint(0, len(lines))
        return "".join(lines[:at] + olines[a:b] + lines[at:])

    def brace_noise(self, text):
        """Unbalance the structure the tool walks: drop or add a brace/paren."""
        positions = [m.start() for m in re.finditer(r"[{}()\[\]]", text)]
        if not positions:
            return text
        i = self.rng.choice(positions)
        if self.rng.random() < 0.5:
            return text[:i] + text[i + 1:]
        return text[:i] + self.rng.choice("{}()[]") + text[i:]

    def huge(self, text):
        """Deep nesting and long lines: stress recursion in the tool."""
        r = self.rng
        depth = r.choice([50, 200, 1000])
        c = r.random()
        if c < 0.33:
            body = "(" * depth + "0" + ")" * depth
            return text + "\nint deep = %s;\n" % body
        if c < 0.66:
            inner = "done({});"
            for i in range(depth // 10):
                inner = "fake::io(\"d\", %d, [=](asyncshift::error err, std::int64_t v%d) { if (err) return done(err); %s });" % (
                    i, i, inner)
            return text + "\nvoid deep_fn(asyncshift::callback<> done) { %s }\n" % inner
        return text + "\nint wide = " + " + ".join(["1"] * (depth * 10)) + ";\n"

    OPS = [truncate, truncate_lines, drop_lines, drop_lines, dup_lines, shuffle_lines, swap_lines,
           corrupt_bytes, tokens, tokens, tokens, splice, brace_noise, huge]


class Case:
    def __init__(self, index, name, text, args_fn, real_header):
        self.index, self.name, self.text, self.args_fn, self.real_header = index, name, text, args_fn, real_header


def make_args(rng, tmp, src, real_header, pch=None):
    """A mutated argument list; every path it may write is under `tmp`."""
    inc = REAL if real_header else MINI
    style = rng.choice(STYLES)
    out = os.path.join(tmp, "out.cpp")
    base_flags = ["-std=c++20", "-I", inc, "-I", MINI] + (["-include-pch", pch] if pch else [])
    c = rng.random()
    if c < 0.55:
        args = ["--style=" + style, src, "-o", out, "--"] + base_flags
    elif c < 0.65:
        args = ["--style=" + style, src, "--"] + base_flags
    elif c < 0.72:
        args = ["--style=" + style, "--out-dir", os.path.join(tmp, "outdir"), src, src, "--"] + base_flags
    elif c < 0.78:
        args = ["--check", src, "--"] + base_flags
    elif c < 0.83:
        args = ["--style=" + style, "-i", src, "--"] + base_flags
    elif c < 0.87:
        # compile_commands.json in tmp, naming the source.
        with open(os.path.join(tmp, "compile_commands.json"), "w") as f:
            f.write('[{"directory": "%s", "file": "%s", "command": "c++ -std=c++20 -I %s -I %s -c %s"}]' % (
                tmp, src, inc, MINI, src) if rng.random() < 0.8 else rng.choice(["[", "{}", "", "[{}]", "null"]))
        args = ["--style=" + style, "-p", tmp, src, "-o", out]
    else:
        args = ["--style=" + style, src, "-o", out, "--depfile", os.path.join(tmp, "out.d"), "--"] + base_flags
    # Argument mutations.
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 4])):
        k = rng.random()
        if k < 0.3 and args:
            args.pop(rng.randrange(len(args)))
        elif k < 0.55:
            args.insert(rng.randint(0, len(args)), rng.choice(ARG_NOISE + [src, out, tmp, os.path.join(tmp, "nope.cpp"),
                                                                         os.path.join(tmp, "nodir", "x.cpp")]))
        elif k < 0.7 and len(args) > 1:
            i, j = rng.randrange(len(args)), rng.randrange(len(args))
            args[i], args[j] = args[j], args[i]
        elif k < 0.85 and args:
            i = rng.randrange(len(args))
            args.insert(i, args[i])
        else:
            rng.shuffle(args)
    return args


def check_confined(argv, out):
    """Every path in an argument list lies under `out`: whatever a mutated
    argument list makes the tool write, it cannot reach the source tree."""
    for a in argv:
        for part in a.split("="):
            if os.path.isabs(part) and part != "/nonexistent" and not os.path.abspath(part).startswith(out + os.sep):
                raise SystemExit("mutate: argument %r leaves %s; refusing to run the tool with it" % (a, out))


def build_pch(out):
    """The mini header precompiled by clang++-19 (the tool's Clang), or None.
    Parsing it is most of a run's time; with the PCH a run takes about half."""
    cxx = shutil.which("clang++-19")
    if not cxx:
        return None
    pch = os.path.join(out, "mini.pch")
    p = subprocess.run([cxx, "-std=c++20", "-x", "c++-header", "-I", MINI, os.path.join(MINI, "ops.h"), "-o", pch],
                       capture_output=True)
    return pch if p.returncode == 0 else None


def signature(code, err):
    m = re.search(r"#\d+ 0x[0-9a-f]+ .*?(asyncshift::\S+|clang::\S+|llvm::\S+)", err)
    frame = m.group(1) if m else ""
    m2 = re.search(r"(Assertion .*? failed|terminate called[^\n]*|UNREACHABLE[^\n]*|LLVM ERROR[^\n]*)", err)
    return "%s|%s|%s" % (code, frame[:120], (m2.group(1) if m2 else "")[:120])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "bin", "asyncshift"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz", "mutate"))
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--real-header-share", type=float, default=0.02)
    ap.add_argument("--generated-seeds", type=int, default=40)
    ap.add_argument("--pch-share", type=float, default=0.9,
                    help="share of mini-header inputs run with the mini header precompiled (-include-pch)")
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    args.tool = os.path.abspath(args.tool)
    if not os.path.exists(args.tool):
        sys.exit("mutate: no tool at %s" % args.tool)
    seeds = lit_seeds() + generated_seeds(args.generated_seeds, args.seed)
    os.makedirs(args.out, exist_ok=True)
    stage_headers(args.out)
    crashdir = os.path.join(args.out, "crashes")
    lock = threading.Lock()
    stats = {"tried": 0, "bad": 0, "codes": {}, "signatures": {}}
    t0 = time.time()
    pch = build_pch(args.out) if args.pch_share > 0 else None
    if args.pch_share > 0 and not pch:
        print("mutate: no clang++-19 to precompile the mini header; every input parses it")

    retry_lock = threading.Lock()

    def one(i):
        rng = random.Random("%d:%d" % (args.seed, i))
        name, text = rng.choice(seeds)
        real = rng.random() < args.real_header_share
        mut = Mutator(rng, seeds)
        if rng.random() < 0.97:
            text = mut.source(text)
        tmp = os.path.join(args.out, "w%d" % i)
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        src = os.path.join(tmp, "input.cpp")
        with open(src, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        use_pch = pch and not real and random.Random("pch:%d:%d" % (args.seed, i)).random() < args.pch_share
        argv = make_args(rng, tmp, src, real, pch if use_pch else None)
        check_confined(argv, args.out)
        out = os.path.join(tmp, "out.cpp")
        t = time.time()
        try:
            p = subprocess.run([args.tool] + argv, capture_output=True, timeout=args.timeout, cwd=tmp)
            code, err = p.returncode, p.stderr.decode(errors="replace")
            hung = False
        except subprocess.TimeoutExpired as e:
            code, err, hung = None, (e.stderr or b"").decode(errors="replace"), True
        if hung:
            # On a loaded machine a slow parse is not a hang: run it again,
            # one retry at a time, with four times the time.
            with retry_lock:
                try:
                    p = subprocess.run([args.tool] + argv, capture_output=True, timeout=4 * args.timeout, cwd=tmp)
                    code, err, hung = p.returncode, p.stderr.decode(errors="replace"), False
                except subprocess.TimeoutExpired as e:
                    err = (e.stderr or b"").decode(errors="replace")
        problems = []
        if hung:
            problems.append("no answer in %g s, nor in %g s alone" % (args.timeout, 4 * args.timeout))
        elif code < 0:
            try:
                problems.append("killed by %s" % signal.Signals(-code).name)
            except ValueError:
                problems.append("killed by signal %d" % -code)
        elif code not in (0, 1):
            problems.append("exit status %d" % code)
        elif code == 1 and not err.strip():
            problems.append("exit status 1 with nothing on stderr")
        elif code == 1 and "internal error: asyncshift crashed" in err:
            # Recovered by the driver, but a crash in the rewriter all the same
            # (a crash in Clang's own parser is reported apart and not ours).
            problems.append("asyncshift crashed (recovered)")
        if code == 1 and "-o" in argv and os.path.exists(out) and argv.count("-o") == 1 and \
                argv.index("-o") + 1 < len(argv) and argv[argv.index("-o") + 1] == out and "-i" not in argv:
            problems.append("a failed run wrote its output file")
        with lock:
            stats["tried"] += 1
            key = "signal" if (code is not None and code < 0) else ("hang" if hung else str(code))
            if code == 1:
                key = "1 (refused)" if "[asyncshift-" in err else "1 (other)"
            stats["codes"][key] = stats["codes"].get(key, 0) + 1
            if problems:
                stats["bad"] += 1
                sig = signature(code, err) + "|" + problems[0]
                first = sig not in stats["signatures"]
                stats["signatures"][sig] = stats["signatures"].get(sig, 0) + 1
                if first:
                    h = hashlib.sha1(sig.encode()).hexdigest()[:10]
                    d = os.path.join(crashdir, h)
                    os.makedirs(d, exist_ok=True)
                    shutil.copy(src, os.path.join(d, "input.cpp"))
                    with open(os.path.join(d, "README.txt"), "w") as f:
                        f.write("input %d (seed %d) from %s, %s\nproblem: %s\nargs:\n  asyncshift %s\n\nstderr:\n%s\n" % (
                            i, args.seed, name, "real headers" if real else "mini header", "; ".join(problems),
                            " ".join(repr(a) if (not a or " " in a) else a for a in argv), err[-6000:]))
                    print("input %d: %s (%s) -> %s" % (i, "; ".join(problems), name, os.path.relpath(d, ROOT)),
                          flush=True)
            if stats["tried"] % 500 == 0:
                print("  %d inputs, %d failed, %.0f s (exits: %s)" % (
                    stats["tried"], stats["bad"], time.time() - t0,
                    ", ".join("%s: %d" % kv for kv in sorted(stats["codes"].items()))), flush=True)
        shutil.rmtree(tmp, ignore_errors=True)
        return time.time() - t

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        list(ex.map(one, range(args.count)))
    print("mutate: exits %s; %d distinct problems" % (
        ", ".join("%s: %d" % kv for kv in sorted(stats["codes"].items())), len(stats["signatures"])))
    print("mutate: %d inputs tried, %d failed in %.0f s (seed %d)" % (stats["tried"], stats["bad"], time.time() - t0,
                                                                  args.seed))
    return 1 if stats["bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
