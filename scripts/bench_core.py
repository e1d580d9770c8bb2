"""Benchmark the pure pipeline on a synthetic listing of rich tools: 1,000 against 100, one run.

Measures CPU time (``time.process_time``, so a noisy shared machine matters less than with wall
time) of every stage of the pure core: lint + case generation + classification of a synthetic
fuzz run + score + report building + every renderer (Markdown full and summary, JSON, SARIF,
JUnit, HTML, terminal). Goal (issue 21): at most 1 s of CPU for 1,000 tools and at most 12x the
100-tool run (10x = linear). Measured as an audit runs, under ``engine.gc_budget``'s collector
thresholds (``fewer_collections``); the audit's figure under the interpreter's default
thresholds is printed too, measured in the same run. The listing and the stages are
``tests/support/synthetic_listing``, the same ones ``tests/core/test_linear_work.py`` counts
calls in (that test, not this script, fails when a stage stops being linear: a time is never a
pass/fail criterion).

    .venv/bin/python scripts/bench_core.py [--tools 1000] [--repeat 3] [--breakdown]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcprobe.engine.gc_budget import AUDIT_THRESHOLDS, fewer_collections
from tests.support.synthetic_listing import run_stages

_AUDIT = ("lint", "cases", "classify", "score", "report", "render md")
"""What one ``mcprobe audit --format md`` does (the figure of the goal); the rest are other
renderers of the same report."""


def pipeline(n: int) -> tuple[dict[str, float], dict[str, int]]:
    """CPU seconds of each stage on ``n`` tools, and the size of each rendering in characters,
    under the collector thresholds of an audit."""
    with fewer_collections():
        return _timed(n)


def _timed(n: int) -> tuple[dict[str, float], dict[str, int]]:
    times: dict[str, float] = {}
    sizes: dict[str, int] = {}
    gc.collect()  # what the previous run left is not this one's to collect
    for name, run, state in run_stages(n):
        start = time.process_time()
        run()
        times[name] = time.process_time() - start
        if name.startswith("render"):
            sizes[name] = state.output_chars
    return times, sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--breakdown", action="store_true", help="also print every stage's median CPU time"
    )
    args = parser.parse_args()
    pipeline(10)  # warm imports and caches outside the measurement
    small_n, large_n = args.tools // 10, args.tools
    small: list[dict[str, float]] = []
    large: list[dict[str, float]] = []
    default_gc: list[dict[str, float]] = []
    sizes: dict[str, int] = {}
    for _ in range(args.repeat):  # alternate, so drift on a shared machine hits both alike
        small.append(pipeline(small_n)[0])
        times, sizes = pipeline(large_n)
        large.append(times)
        default_gc.append(_timed(large_n)[0])

    def median(runs: list[dict[str, float]], names: tuple[str, ...] | list[str]) -> float:
        return statistics.median(sum(run[n] for n in names) for run in runs)

    every = list(large[0])
    audit_small, audit_large = median(small, _AUDIT), median(large, _AUDIT)
    all_small, all_large = median(small, every), median(large, every)
    print(f"tools={large_n} repeat={args.repeat} markdown_chars={sizes['render md']}")
    print(
        f"gc thresholds {AUDIT_THRESHOLDS} (engine.gc_budget, as an audit runs); "
        f"interpreter default {gc.get_threshold()}"
    )
    print(f"median CPU, audit (lint..markdown), {small_n} tools: {audit_small:.3f} s")
    print(f"median CPU, audit (lint..markdown), {large_n} tools: {audit_large:.3f} s (goal <= 1 s)")
    print(
        f"scaling {large_n}/{small_n}: {audit_large / audit_small:.1f}x (goal <= 12x, 10x linear)"
    )
    print(
        f"median CPU, audit, {large_n} tools, default gc thresholds: "
        f"{median(default_gc, _AUDIT):.3f} s"
    )
    print(f"median CPU, every stage and renderer, {large_n} tools: {all_large:.3f} s")
    print(f"scaling {large_n}/{small_n}, every stage: {all_large / all_small:.1f}x")
    if args.breakdown:
        for name in every:
            s, t = median(small, [name]), median(large, [name])
            size = f"  {sizes[name]} chars" if name in sizes else ""
            print(f"  {name:20s} {t:7.3f} s  {t / s if s else 0:5.1f}x{size}")


if __name__ == "__main__":
    main()
