#!/usr/bin/env python3
"""What ``--deep`` costs: ``mcprobe audit --fuzz`` against ``mcprobe audit --deep`` on one own
target, alternating run by run in one process (so machine noise hits both alike).

Printed: each mode's median wall time, their ratio, and the deep pass's cost per deep-fuzzed
tool in seconds ((median deep − median fuzz) / the tools the deep pass covered, read from the
report's deep note), against the issue-25 target of ≤ 3 s per tool on a fast local server at
the default concurrency. Also the deep calls sent, from the same note.

Default target: ``tests/targets/deep_defects.py`` when it exists, else
``tests/targets/cli_target.py --extra-tools 4`` (a raw server with six tools that starts in
milliseconds). Any other command after ``--`` replaces it (an own target: third-party servers
belong in a loopback-only network namespace, ``unshare -rn``).

    .venv/bin/python scripts/bench_deep.py [--runs 5] [--sandbox off|auto] [-- COMMAND ...]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
MCPROBE = [PY, "-m", "mcprobe.cli"]
TARGETS = REPO / "tests" / "targets"
GOAL_PER_TOOL = 3.0
DEEP_NOTE = re.compile(r"Deep pass \(seed (\d+)\): (\d+) deep calls sent to (\d+) tool")


def default_target() -> list[str]:
    deep_defects = TARGETS / "deep_defects.py"
    if deep_defects.is_file():
        return [PY, str(deep_defects)]
    return [PY, str(TARGETS / "cli_target.py"), "--extra-tools", "4"]


def audit(mode: str, target: list[str], sandbox: str) -> tuple[float, dict[str, object]]:
    argv = [*MCPROBE, "audit", mode, "--json", "--no-config", "--sandbox", sandbox, "--", *target]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 3, 4, 8):  # a report was written (gates are not asked for)
        sys.exit(f"{mode}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout)


def deep_counts(report: dict[str, object]) -> tuple[int, int, int]:
    """(seed, deep calls sent, tools deep-fuzzed) from the report's deep note."""
    notes = report.get("notes")
    for note in notes if isinstance(notes, list) else []:
        found = DEEP_NOTE.search(str(note))
        if found:
            seed, calls, tools = (int(g) for g in found.groups())
            return seed, calls, tools
    sys.exit("the --deep report has no deep note")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sandbox", default="off", choices=("off", "auto", "required"))
    parser.add_argument("command", nargs="*", help="the target (after --); default: see above")
    args = parser.parse_args()
    target = args.command or default_target()
    times: dict[str, list[float]] = {"--fuzz": [], "--deep": []}
    counts: list[tuple[int, int, int]] = []
    for run in range(args.runs):
        for mode in ("--fuzz", "--deep") if run % 2 == 0 else ("--deep", "--fuzz"):
            seconds, report = audit(mode, target, args.sandbox)
            times[mode].append(seconds)
            if mode == "--deep":
                counts.append(deep_counts(report))
    fuzz, deep = statistics.median(times["--fuzz"]), statistics.median(times["--deep"])
    seed, calls, tools = counts[-1]
    per_tool = (deep - fuzz) / tools if tools else float("nan")
    verdict = "ok" if per_tool <= GOAL_PER_TOOL else "OVER"
    print(f"target: {' '.join(target)}  ({args.runs} runs each, alternating)")
    print(f"--fuzz median {fuzz:.3f} s   runs {[round(t, 3) for t in times['--fuzz']]}")
    print(f"--deep median {deep:.3f} s   runs {[round(t, 3) for t in times['--deep']]}")
    print(f"ratio deep/fuzz {deep / fuzz:.2f}x")
    print(f"deep pass: seed {seed}, {calls} deep calls, {tools} tools")
    print(f"deep cost per tool {per_tool:.3f} s (goal <= {GOAL_PER_TOOL:.0f} s: {verdict})")


if __name__ == "__main__":
    main()
