#!/usr/bin/env python3
"""scripts/bench.py runs every style once per repetition, in an order that rotates.

run_suite is driven with fake binaries (candidates and run_once replaced), so the
test sees the exact order in which `make bench` would start the processes.
"""
import importlib.util
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("bench", os.path.join(ROOT, "scripts", "bench.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


class FakeArgs:
    quick = False
    repeat = None
    clang = None


class Quiet:
    def step(self, what):
        pass


def run_order(suite):
    """The styles in the order run_suite starts them, and its tables."""
    started = []

    def fake_candidates(suite, workload, bench_dir, node, clang=None):
        styles = list(bench.GENERATED_STYLES) + ["node-callback", "node-promise"]
        return [(style, [style]) for style in styles]

    def fake_run_once(cmd, timeout):
        started.append(cmd[0])
        return {"time_ms": float(len(started)), "cpu_ms": 1.0}, None

    saved = bench.candidates, bench.run_once
    bench.candidates, bench.run_once = fake_candidates, fake_run_once
    try:
        tables = bench.run_suite(suite, "unused", None, FakeArgs(), Quiet())
    finally:
        bench.candidates, bench.run_once = saved
    return started, tables


class RunOrder(unittest.TestCase):
    def test_each_repetition_runs_every_style_once_and_the_first_rotates(self):
        suite = bench.Suite("s", "t", ["doxbee"], {"n": 1}, repeat=5, peers=False)
        started, tables = run_order(suite)
        styles = list(bench.GENERATED_STYLES) + ["node-callback", "node-promise"]
        reps = [started[i * len(styles):(i + 1) * len(styles)] for i in range(5)]
        for rep in reps:
            self.assertEqual(sorted(rep), sorted(styles))
        self.assertEqual([rep[0] for rep in reps], styles[:5])
        # each style has all five runs, and the row reported is the median of them
        for row in tables[0]["rows"]:
            self.assertEqual(len(row["time_ms_runs"]), 5)
            self.assertEqual(row["time_ms"], sorted(row["time_ms_runs"])[2])

    def test_the_callback_baseline_runs_first_only_once(self):
        suite = bench.Suite("s", "t", ["doxbee"], {"n": 1}, repeat=5, peers=False)
        started, _ = run_order(suite)
        n = len(bench.GENERATED_STYLES) + 2
        firsts = [started[i] for i in range(0, len(started), n)]
        self.assertEqual(firsts.count("callback"), 1)

    def test_node_runs_stop_after_their_repetitions_and_the_rest_still_rotate(self):
        suite = bench.Suite("s", "t", ["fanout_timer"], {"n": 1}, repeat=3, peers=False, node_repeat=1)
        started, _ = run_order(suite)
        self.assertEqual(started.count("node-callback"), 1)
        self.assertEqual(started.count("callback"), 3)
        gen = [s for s in started if not s.startswith("node")]
        k = len(bench.GENERATED_STYLES)
        firsts = [gen[i * k] for i in range(3)]
        self.assertEqual(firsts, list(bench.GENERATED_STYLES[:3]))


if __name__ == "__main__":
    unittest.main()
