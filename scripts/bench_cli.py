#!/usr/bin/env python3
"""Time ``mcprobe audit --fuzz`` against the floor: a minimal raw JSON-RPC client.

For each target, one warm-up audit records the exact calls mcprobe makes (every fuzz case and
the unknown-tool probe, from the JSON report). Then, alternating run by run so that machine
noise hits every contender alike, it times as subprocesses:

- floor     a stdlib-only client (this file, ``floor`` mode): spawn the target, ``initialize``,
            ``notifications/initialized``, ``tools/list``, the same ``tools/call`` sequence one at
            a time, close;
- mcprobe   ``mcprobe audit --fuzz --json -- <target>`` (default concurrency 4; on the slow
            target also ``--concurrency 8``);
- mcpscore  ``mcpscore --smoke -- <target>``, only when an ``mcpscore`` executable is installed.

Targets: the demo target (``python -m demo_target``) and a deliberately slow one
(``tests/targets/cli_target.py --slow 200 --extra-tools 9``: every call takes 200 ms, calls are
served concurrently). Printed: medians, mcprobe's overhead over the floor (goal ≤ 1.25×), and on
the slow target mcprobe's time against the sequential sum of call latencies (goal ≤ 0.35×).

A third target ignores stdin EOF (``tests/targets/fragile.py ignore_eof``: like a server whose
timers keep it alive; SIGTERM stops it): the audit's close used to wait the whole polite
``EOF_GRACE`` (1 s) before SIGTERM; now the report is written first and the target then gets
``AFTER_REPORT_GRACE``. Timed: ``floor`` (it sends SIGTERM right after the last answer),
``before`` (``MCPROBE_CLOSE_GRACE=1.0``: the old grace) and ``mcprobe`` (the default), as
ratios against the floor.

``--breakdown`` also times, in the same alternation, the fixed costs an audit is made of:
``import``  a fresh interpreter importing ``engine.audit`` (what mcprobe loads; it overlaps the
            target's boot, since the CLI starts a stdio target before importing);
``boot``    the floor with no ``tools/call`` (spawn, ``initialize``, ``tools/list``, close).

    .venv/bin/python scripts/bench_cli.py [--runs 5] [--breakdown] [--close-only]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
MCPROBE = [PY, "-m", "mcprobe.cli"]
SLOW_MS = 200


# --------------------------------------------------------------------------- the floor client


def _floor(calls_file: str, command: list[str], *, terminate: bool = False) -> None:
    calls: list[dict[str, Any]] = json.loads(Path(calls_file).read_text())
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def request(request_id: int, method: str, params: Any) -> None:
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()
        while True:
            line = stdout.readline()
            if not line:
                raise SystemExit(f"target closed before answering {method}")
            reply = json.loads(line)
            if reply.get("id") == request_id:
                return

    request(
        1,
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "floor", "version": "0"},
        },
    )
    stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    stdin.flush()
    request(2, "tools/list", {})
    for i, call in enumerate(calls, start=3):
        request(i, "tools/call", call)
    stdin.close()
    if terminate:  # a target that ignores EOF: the least any client can do is SIGTERM it now
        proc.terminate()
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# --------------------------------------------------------------------------- the benchmark


def _timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        argv,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=None if env is None else os.environ | env,
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 3, 4):
        raise SystemExit(f"{argv} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def _record_calls(target: list[str], calls_file: Path) -> int:
    done = subprocess.run(
        [*MCPROBE, "audit", "--fuzz", "--json", "--", *target],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    results = [r for r in report["fuzz"] if r["outcome"] != "notRun"]
    probe = report.get("unknownToolProbe")
    if probe is not None and probe not in results:
        results.append(probe)
    calls = [{"name": r["name"], "arguments": r["arguments"]} for r in results]
    calls_file.write_text(json.dumps(calls))
    return len(calls)


def _bench(label: str, target: list[str], runs: int, slow_ms: int | None, breakdown: bool) -> None:
    calls_file = Path(f"/tmp/mcprobe-bench-calls-{label}.json")
    n_calls = _record_calls(target, calls_file)
    contenders: dict[str, list[str]] = {
        "floor": [PY, __file__, "floor", str(calls_file), "--", *target],
        "mcprobe": [*MCPROBE, "audit", "--fuzz", "--json", "--", *target],
    }
    if breakdown:
        no_calls = Path(f"/tmp/mcprobe-bench-no-calls-{label}.json")
        no_calls.write_text("[]")
        # os._exit: the audit skips interpreter teardown too (cli._exit_now), so time the import.
        contenders["import"] = [PY, "-c", "import os, mcprobe.engine.audit; os._exit(0)"]
        contenders["boot"] = [PY, __file__, "floor", str(no_calls), "--", *target]
    if slow_ms is not None:
        contenders["mcprobe-c8"] = [
            *MCPROBE,
            "audit",
            "--fuzz",
            "--json",
            "--concurrency",
            "8",
            "--",
            *target,
        ]
    mcpscore = shutil.which("mcpscore")
    if mcpscore:
        contenders["mcpscore"] = [mcpscore, "--smoke", "--", *target]
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(runs):
        for name, argv in contenders.items():
            times[name].append(_timed(argv))
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"\n{label}: {n_calls} tools/call per audit, median of {runs} runs")
    for name, median in medians.items():
        spread = f"{min(times[name]):.2f}-{max(times[name]):.2f}"
        print(f"  {name:<9} {median:6.2f} s   (range {spread} s)")
    if not mcpscore:
        print("  mcpscore  not installed: skipped")
    ratio = medians["mcprobe"] / medians["floor"]
    print(f"  mcprobe / floor = {ratio:.2f}x (goal <= 1.25x)")
    if slow_ms is not None:
        sequential = n_calls * slow_ms / 1000
        for name in ("mcprobe", "mcprobe-c8"):
            print(
                f"  {name} / sequential sum of call latencies ({n_calls} x {slow_ms} ms = "
                f"{sequential:.1f} s) = {medians[name] / sequential:.2f}x (goal <= 0.35x)"
            )


def _bench_close(runs: int) -> None:
    """The audit wall of a target that ignores stdin EOF, before / after the faster close."""
    label = "ignores stdin EOF"
    target = [PY, "tests/targets/fragile.py", "tools=healthy_a,healthy_b", "delay=0", "ignore_eof"]
    calls_file = Path("/tmp/mcprobe-bench-calls-eof.json")
    n_calls = _record_calls(target, calls_file)
    audit = [*MCPROBE, "audit", "--fuzz", "--json", "--", *target]
    contenders: dict[str, tuple[list[str], dict[str, str] | None]] = {
        "floor": ([PY, __file__, "floor-terminate", str(calls_file), "--", *target], None),
        "before": (audit, {"MCPROBE_CLOSE_GRACE": "1.0"}),
        "mcprobe": (audit, None),
    }
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(runs):
        for name, (argv, env) in contenders.items():
            times[name].append(_timed(argv, env))
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"\n{label}: {n_calls} tools/call per audit, median of {runs} runs")
    for name, median in medians.items():
        spread = f"{min(times[name]):.2f}-{max(times[name]):.2f}"
        print(f"  {name:<9} {median:6.2f} s   (range {spread} s)")
    for name in ("before", "mcprobe"):
        print(f"  {name} / floor = {medians[name] / medians['floor']:.2f}x")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("floor", "floor-terminate"):
        split = sys.argv.index("--")
        _floor(sys.argv[2], sys.argv[split + 1 :], terminate=sys.argv[1] == "floor-terminate")
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--breakdown", action="store_true", help="also time the import and the target's boot"
    )
    parser.add_argument(
        "--close-only", action="store_true", help="only the target that ignores stdin EOF"
    )
    ns = parser.parse_args()
    _bench_close(ns.runs)
    if ns.close_only:
        return
    slow_target = [PY, "tests/targets/cli_target.py", "--slow", str(SLOW_MS), "--extra-tools", "9"]
    _bench("demo target", [PY, "-m", "demo_target"], ns.runs, None, ns.breakdown)
    _bench("slow target", slow_target, ns.runs, SLOW_MS, ns.breakdown)


if __name__ == "__main__":
    main()
