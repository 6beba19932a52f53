#!/usr/bin/env python3
"""Per function of a benchmark profile: instructions and calls per execution,
and how many registers its prologue saves.

    valgrind --tool=callgrind --dump-instr=yes \\
        --toggle-collect=asyncshift_bench_measured_run --callgrind-out-file=cg.out \\
        build/bench/doxbee_promise --n 2000 --t 1 --clock=virtual --no-progress
    scripts/callgrind-prologues.py cg.out build/bench/doxbee_promise --executions 2000

Why: the cheap wins of docs/runtime.md Rounds 12 and 13 were functions that
run once per completion and save four to six registers on every call. The
reason was a rare case compiled in beside the common one, or a small member
(a destructor) that g++ left out of line. A function's `calls` and `push`
columns show them. Its cost is `Ir/exec`, exclusive of its callees and
inclusive of what was inlined into it. `calls` is the execution count of the
function's first instruction, so it reads 0 for a loop's body that is entered
once per run.

With --dead-stores it lists instead the stores on the measured path that a
later store to the same place overwrites with nothing in between reading that
place (nor a call, a jump or a change of the base register): a field's default
that the code sets again at once, which one compiler drops and the other keeps.
Round 35 found two that way (a timer node's `due` with g++, an op node's `ctx`
with clang). A row is a place to look, not a verdict: the scan reads the
instructions in address order, not along the paths between them.

Needs `--dump-instr=yes` (instruction-level costs) and objdump. For clang
binaries, valgrind 3.19 needs `-gdwarf-4` if they are built with `-g`.
"""
import argparse
import bisect
import collections
import re
import subprocess
import sys


def parse_position(token, last):
    if token.startswith("0x"):
        return int(token, 16)
    if token == "*":
        return last
    if token[0] in "+-":
        return last + int(token)
    return int(token)


def costs_by_function(path):
    """{function name: {instruction address: Ir}} from a callgrind file."""
    costs = collections.defaultdict(collections.Counter)
    names = {}
    function = None
    last_address = last_line = 0
    after_calls = False
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("fn="):
            m = re.match(r"fn=\((\d+)\)(?: (.*))?", line)
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                function = names.get(m.group(1))
            else:
                function = line[3:]
            continue
        if line.startswith("cfn="):
            m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line)
            if m and m.group(2):
                names[m.group(1)] = m.group(2)
            continue
        if line.startswith("calls="):
            after_calls = True  # the next cost line is the call's inclusive cost
            continue
        if not line or not (line[0].isdigit() or line[0] in "+-*" or line.startswith("0x")):
            continue
        parts = line.split()
        last_address = parse_position(parts[0], last_address)
        if len(parts) >= 2:
            last_line = parse_position(parts[1], last_line)
        if after_calls:
            after_calls = False
            continue
        if function and len(parts) >= 3:
            costs[function][last_address] += int(parts[2])
    return costs


def disassembly(binary):
    """{address: instruction text} of the binary."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True, check=True).stdout
    asm = {}
    for line in out.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
        if m:
            asm[int(m.group(1), 16)] = m.group(2)
    return asm


STORE = re.compile(r"(mov[bwlq]?|movups|movaps|movdqu|movdqa)\s+\S+,(\S*\(%\w+[^)]*\))$")


def print_dead_stores(costs, asm, executions, window=40):
    """Stores run at least once per execution whose place the next mention overwrites."""
    hot = collections.Counter()
    for by_address in costs.values():
        hot.update(by_address)
    run = sorted(a for a, ir in hot.items() if ir / executions >= 0.9 and a in asm)
    print("%8s %-44s %8s %s" % ("address", "store", "then", "store again"))
    for i, address in enumerate(run):
        m = STORE.match(asm[address])
        if not m:
            continue
        place = m.group(2)
        base = re.search(r"\((%\w+)", place).group(1)
        for later in run[i + 1 : i + window]:
            insn = asm[later]
            if later - address > 400 or insn.startswith(("call", "ret", "jmp")):
                break
            if place in insn:
                again = STORE.match(insn)
                if again and again.group(2) == place:
                    print("%8x %-44s %8x %s" % (address, asm[address], later, insn))
                break
            if re.match(r"\S+\s+.*,%s$" % re.escape(base), insn):  # the base register changes
                break


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", help="callgrind output made with --dump-instr=yes")
    parser.add_argument("binary", help="the profiled binary (for objdump)")
    parser.add_argument("--executions", type=int, default=2000, help="the run's --n (default 2000)")
    parser.add_argument("--top", type=int, default=40, help="how many functions to print (default 40)")
    parser.add_argument("--min-ir", type=float, default=5.0, help="skip functions under this Ir/exec")
    parser.add_argument("--dead-stores", action="store_true", help="list stores overwritten before any read (see above)")
    args = parser.parse_args()

    costs = costs_by_function(args.profile)
    if not costs:
        sys.exit("no instruction-level costs in %s: profile with --dump-instr=yes" % args.profile)
    asm = disassembly(args.binary)
    if args.dead_stores:
        return print_dead_stores(costs, asm, args.executions)
    addresses = sorted(asm)
    rows = []
    for function, by_address in costs.items():
        total = sum(by_address.values()) / args.executions
        if total < args.min_ir:
            continue
        entry = min(by_address)
        calls = by_address[entry] / args.executions
        start = bisect.bisect_left(addresses, entry)
        prologue = [asm[a] for a in addresses[start:start + 10]]
        pushes = sum(1 for insn in prologue if insn.startswith("push"))
        short = re.sub(r"asyncshift::|detail::|\(unsigned long\)", "", function)[:150]
        rows.append((total, calls, pushes, short))
    print("%8s %7s %5s  %s" % ("Ir/exec", "calls", "push", "function"))
    for total, calls, pushes, name in sorted(rows, reverse=True)[: args.top]:
        print("%8.1f %7.2f %5d  %s" % (total, calls, pushes, name))


if __name__ == "__main__":
    main()
