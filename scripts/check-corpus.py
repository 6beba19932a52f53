#!/usr/bin/env python3
"""Precision and recall of `asyncshift --check` over a labelled corpus.

    scripts/check-corpus.py --tool build/bin/asyncshift [--corpus test/check-corpus] [-- COMPILER_ARGS]

Every `.cpp` file of the corpus is small callback code; each finding the
checker must report is labelled at the end of the line it is reported on:

    read_int(1, [=](asyncshift::error err, int v) { done({}, v); }); // expect: asyncshift-error-ignored

(several ids separated by commas). Any line without a label must not get a
finding. The script runs the checker once over the whole corpus, matches
(file, line, id) triples, prints a table per finding id and the false alarms
and misses, and exits 1 unless precision and recall are both 100% (and 2
when the corpus does not compile or the tool cannot run).
"""
import argparse
import collections
import os
import re
import subprocess
import sys

LABEL = re.compile(r"//\s*expect:\s*([a-z0-9, -]+)$")
FINDING = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?:error|warning): (?P<msg>.*) \[(?P<id>asyncshift-[a-z-]+)\]$")
ERROR = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: ")


def expected_findings(paths):
    expected = collections.Counter()
    for path in paths:
        with open(path) as f:
            for number, text in enumerate(f, 1):
                m = LABEL.search(text.rstrip("\n"))
                if m:
                    for finding_id in m.group(1).split(","):
                        if finding_id.strip():
                            expected[(path, number, finding_id.strip())] += 1
    return expected


def reported_findings(tool, paths, args):
    proc = subprocess.run([tool, "--check", *paths, "--", *args], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit("check-corpus: %s exited with %d:\n%s" % (tool, proc.returncode, proc.stderr))
    reported = collections.Counter()
    broken = []
    for line in proc.stderr.splitlines():
        m = FINDING.match(line)
        if m:
            reported[(os.path.realpath(m.group("file")), int(m.group("line")), m.group("id"))] += 1
        elif ERROR.match(line):
            broken.append(line)
    if broken:
        sys.exit("check-corpus: the corpus does not compile:\n  " + "\n  ".join(broken))
    return reported


def ratio(num, den):
    return 1.0 if den == 0 else num / den


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", required=True, help="the asyncshift binary")
    parser.add_argument("--corpus", default=os.path.join(root, "test", "check-corpus"))
    parser.add_argument("args", nargs="*", help="compiler arguments (after --)")
    opts = parser.parse_args()
    args = opts.args or ["-std=c++20", "-I" + os.path.join(root, "runtime", "include"), "-I" + opts.corpus]

    paths = sorted(os.path.realpath(os.path.join(opts.corpus, name))
                   for name in os.listdir(opts.corpus) if name.endswith(".cpp"))
    if not paths:
        sys.exit("check-corpus: no .cpp files in %s" % opts.corpus)
    expected = expected_findings(paths)
    reported = reported_findings(opts.tool, paths, args)

    true_pos = expected & reported
    false_pos = reported - expected
    false_neg = expected - reported
    ids = sorted({key[2] for key in expected} | {key[2] for key in reported})

    def count(counter, finding_id):
        return sum(n for key, n in counter.items() if key[2] == finding_id)

    print("asyncshift --check over %d files of %s" % (len(paths), os.path.relpath(opts.corpus, root)))
    print("%-34s %8s %8s %8s %10s %8s" % ("finding", "expected", "reported", "correct", "precision", "recall"))
    for finding_id in ids:
        tp, exp, rep = count(true_pos, finding_id), count(expected, finding_id), count(reported, finding_id)
        print("%-34s %8d %8d %8d %9.1f%% %7.1f%%" % (finding_id, exp, rep, tp, 100 * ratio(tp, rep), 100 * ratio(tp, exp)))
    tp, exp, rep = sum(true_pos.values()), sum(expected.values()), sum(reported.values())
    precision, recall = ratio(tp, rep), ratio(tp, exp)
    print("%-34s %8d %8d %8d %9.1f%% %7.1f%%" % ("total", exp, rep, tp, 100 * precision, 100 * recall))

    def show(title, counter):
        if counter:
            print("\n" + title + ":")
            for (path, line, finding_id), n in sorted(counter.items()):
                print("  %s:%d: %s%s" % (os.path.relpath(path, root), line, finding_id, " (x%d)" % n if n > 1 else ""))

    show("false alarms (reported, not labelled)", false_pos)
    show("misses (labelled, not reported)", false_neg)
    return 0 if precision == 1.0 and recall == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
