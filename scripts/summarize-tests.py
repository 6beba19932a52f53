#!/usr/bin/env python3
"""Prints one line of test counts from CTest's and lit's JUnit XML files.

    summarize-tests.py CTEST_JUNIT.xml [LIT_XUNIT.xml]

CTest runs lit as one test; its cases are counted from lit's own report, so
the line says how many checks actually ran, by suite.
"""
import os
import sys
import xml.etree.ElementTree as ET


def cases(path):
    if not path or not os.path.exists(path):
        return []
    root = ET.parse(path).getroot()
    out = []
    for case in root.iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None or case.get("status") in ("notrun", "disabled")
        out.append((case.get("name", ""), case.get("classname", ""), failed, skipped))
    return out


def suite_of(name):
    if name.startswith("equivalence"):
        return "equivalence"
    if name.startswith("promises_aplus"):
        return "promises/A+"
    if name == "lit":
        return "lit"
    if name.startswith("bench."):
        return "bench"
    for prefix in ("packaging", "fuzz", "check-corpus"):
        if name.startswith(prefix):
            return prefix
    return "unit"


def main():
    counts = {}
    passed = failed = skipped = 0
    for name, _, is_failed, is_skipped in cases(sys.argv[1]):
        suite = suite_of(name)
        if suite == "lit" and len(sys.argv) > 2 and os.path.exists(sys.argv[2]):
            continue  # counted case by case below
        c = counts.setdefault(suite, [0, 0])
        if is_skipped:
            skipped += 1
        elif is_failed:
            failed += 1
            c[1] += 1
        else:
            passed += 1
            c[0] += 1
    if len(sys.argv) > 2:
        for name, _, is_failed, is_skipped in cases(sys.argv[2]):
            c = counts.setdefault("lit", [0, 0])
            if is_skipped:
                skipped += 1
            elif is_failed:
                failed += 1
                c[1] += 1
            else:
                passed += 1
                c[0] += 1
    parts = ", ".join("%s %d" % (suite, p + f) for suite, (p, f) in sorted(counts.items()))
    extra = (", %d skipped" % skipped) if skipped else ""
    print("asyncshift tests: %d passed, %d failed%s (%s)" % (passed, failed, extra, parts))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
