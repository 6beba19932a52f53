#!/usr/bin/env python3
"""Regenerates the CHECK lines of a rewriting lit test from the tool's output.

    scripts/update-lit-checks.py [--tool build/bin/asyncshift] TEST.cpp...

Like LLVM's update_test_checks.py: it runs the test's own rewrites (one per
`--style=` in its RUN lines) and replaces everything after the
`// ---- expected output` marker with, per style, a CHECK-LABEL per rewritten
function and CHECK-NEXT for each of its lines. With one style the prefix is
CHECK; with several it is the style's name in capitals (CORO, CORO_VALUES,
PROMISE, FUTURE). Read the diff before committing: the checks pin what the
tool prints, so they are only as right as that output.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

MARKER = "// ---- expected output"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rewrite(tool, path, style):
    with open(path) as f:
        lines = f.read().split("\n")
    stripped = "\n".join("//" if re.match(r"^// *CHECK", l) else l for l in lines)
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False, dir=os.path.dirname(path)) as tmp:
        tmp.write(stripped)
    try:
        flags = ["-std=c++20", "-I" + os.path.join(ROOT, "runtime/include"),
                 "-I" + os.path.join(ROOT, "test/lit/Inputs")]
        proc = subprocess.run([tool, "--style=" + style, tmp.name, "--"] + flags, capture_output=True, text=True)
    finally:
        os.unlink(tmp.name)
    if proc.returncode != 0:
        sys.exit("%s: the tool failed:\n%s" % (path, proc.stderr))
    return proc.stdout


def escape(line):
    """FileCheck reads `{{` as a regex and `[[` as a variable: match them literally."""
    out = ""
    i = 0
    while i < len(line):
        if line.startswith("{{", i):
            out += "{{[{][{]}}"
            i += 2
        elif line.startswith("[[", i):
            out += "{{[[][[]}}"
            i += 2
        else:
            out += line[i]
            i += 1
    return out


def checks_for(output, prefix="CHECK"):
    out = []
    in_function = False
    for line in output.split("\n"):
        if re.match(r"^asyncshift::(task|promise|future)<", line):
            out.append("// %s-LABEL: %s" % (prefix, escape(line)))
            in_function = True
            continue
        if not in_function and ("asyncshift::start(" in line or ".then_callback(" in line):
            # A converted function called from code that keeps its callbacks.
            out.append("// %s: %s" % (prefix, escape(line.strip())))
            continue
        if in_function:
            if line.strip() == "":
                out.append("// %s-EMPTY:" % prefix)
            else:
                out.append("// %s-NEXT: %s" % (prefix, escape(line.strip())))
            if line == "}":
                in_function = False
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", default=os.path.join(ROOT, "build/bin/asyncshift"))
    parser.add_argument("tests", nargs="+")
    args = parser.parse_args()
    for path in args.tests:
        with open(path) as f:
            text = f.read()
        styles = []
        for m in re.finditer(r"--style=([\w-]+)", text.split(MARKER)[0]):
            if m.group(1) not in styles:
                styles.append(m.group(1))
        if not styles:
            sys.exit("%s: no --style in its RUN lines" % path)
        head = text.split(MARKER)[0].rstrip("\n")
        body = []
        for style in styles:
            prefix = "CHECK" if len(styles) == 1 else style.upper().replace("-", "_")
            if body:
                body.append("")
            body += checks_for(rewrite(args.tool, path, style), prefix)
        with open(path, "w") as f:
            f.write(head + "\n\n" + MARKER + "\n" + "\n".join(body) + "\n")
        print("updated %s (%d checks)" % (path, len(body)))


if __name__ == "__main__":
    main()
