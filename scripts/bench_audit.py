#!/usr/bin/env python3
"""Wall time of ``mcprobe audit --fuzz`` against its physical limit, and against peers, one run.

For each target, alternating contender by contender run by run (machine noise hits all alike):

- ``boot``     a stdlib client: spawn the target, ``initialize``, ``tools/list``, close (the
               least any audit pays before its first call);
- ``mcprobe``  ``mcprobe audit --fuzz --format json -vv`` (this checkout);
- ``before``   the same with ``--before DIR`` (an exported older ``mcprobe`` package, e.g.
               ``git archive <commit> mcprobe | tar -x -C DIR``), run as ``python -m mcprobe``;
- ``mcpscore`` ``mcpscore --smoke --stdio <target>`` when ``--mcpscore EXE`` is given (a static
               peer: it lists and smoke-calls, it does not fuzz).
- ``original`` the TypeScript original (github.com/alitiknazoglu/mcprobe, not on npm: a checkout
               built with ``npm install && npm run build:probe``), ``node DIST/index.js audit
               --stdio "<target>" --fuzz`` when ``--original DIST/index.js`` is given. It fuzzes
               at most 10 tools and skips the ones marked destructive, so compare it at
               ``--max-tools 10`` (like for like on the official servers, which mark none).

The physical limit of one mcprobe audit (issue 21) is computed from that audit's own report:
``boot`` (median) + the longest single call chain (the slowest call, plus the cancellation
probe's wall time when it re-called that tool, from the ``-vv`` timeline) + the other calls'
latencies ÷ the concurrency. Printed per target: medians, mcprobe ÷ limit (goal ≤ 1.2×), mcprobe ÷
each peer, and mcprobe's import floor (its own start-up, which the limit leaves out) with the
ratio to limit + floor. The calls are the fuzz calls (latencies from the report) and the attack
probes (count and summed latency from the ``-vv`` timeline). Real servers run inside
``unshare -rn`` (loopback only) with a fresh fixture directory, via
``tests/integration/real_servers.py``; own targets are ``tests/targets/``.

Bytecode: an installed mcprobe (pip, pipx, uv) runs from the ``.pyc`` files its install wrote;
this checkout's editable install has none, and where ``PYTHONDONTWRITEBYTECODE`` is set (this
project's machines set it) every run compiles ~170 modules from source again (~0.13 s of start-up
measured here). So the script compiles ``mcprobe/`` (and ``--before``'s package) first, as an
install does, and says so: mcprobe is measured as a user runs it, the peers as installed.

    .venv/bin/python scripts/bench_audit.py [--runs 3] [--max-tools 10]
        [--targets fast,slow,slowtool,many,everything,filesystem] [--before DIR] [--mcpscore EXE]
        [--original DIST/index.js]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.integration import real_servers  # noqa: E402

PY = sys.executable
CLI_TARGET = str(REPO / "tests" / "targets" / "cli_target.py")
OWN: dict[str, list[str]] = {
    "fast": [PY, CLI_TARGET, "--clean", "--extra-tools", "9"],
    "slow": [PY, CLI_TARGET, "--clean", "--slow", "300", "--extra-tools", "9"],
    "many": [PY, CLI_TARGET, "--clean", "--extra-tools", "999"],
    # One slow tool (3 s, with progress, cancellable) among ten fast ones: the cancellation
    # probe's candidate, as server-everything's long-running tool is.
    "slowtool": [PY, CLI_TARGET, "--clean", "--slow-tool", "3000", "--extra-tools", "9"],
}
_PHASE = re.compile(r"mcprobe: (?P<what>[^:\n]+(?:\([^)\n]*\))?): (?P<s>\d+\.\d+) s$", re.M)
_PROBED = re.compile(
    r"mcprobe: attack probes: (?P<n>\d+) call\(s\), (?P<s>\d+\.\d+) s of call time"
)


def _boot(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    for i, (method, params) in enumerate(
        [
            (
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "boot", "version": "0"},
                },
            ),
            ("tools/list", {}),
        ],
        start=1,
    ):
        message = {"jsonrpc": "2.0", "id": i, "method": method, "params": params}
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"{command}: closed before answering {method}")
            if json.loads(line).get("id") == i:
                break
        if method == "initialize":
            proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    elapsed = time.perf_counter() - started
    proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return elapsed


class Target:
    """How to start one target (and an audit of it) in a fresh fixture directory."""

    def __init__(self, name: str, max_tools: int) -> None:
        self.name = name
        self.max_tools = max_tools
        self.real = name not in OWN

    def run(self, contender: str, tmp: Path, exe: dict[str, list[str]]) -> tuple[float, Any, str]:
        fixture = real_servers.make_fixture(tmp)
        env = dict(os.environ, HOME=str(fixture / "home"))
        report_path = tmp / "report.json"
        if self.real:
            server = real_servers.manifest()[self.name]
            argv = [real_servers._fill(a, fixture) for a in server.argv]
            prefix = list(real_servers.NETNS)
        else:
            argv, prefix = OWN[self.name], []
        options = ["--fuzz", "-vv", "--max-tools", str(self.max_tools), "--format", "json"]
        options += ["--output", str(report_path), "--cwd", str(fixture)]
        if contender == "boot":
            command = [*prefix, PY, __file__, "--boot-only", json.dumps(argv)]
        elif contender == "mcpscore":
            command = [*prefix, *exe["mcpscore"], "--smoke", "--stdio", *argv]
        elif contender == "original":
            command = [*prefix, *exe["original"], "audit", "--stdio", shlex.join(argv), "--fuzz"]
        else:
            command = [*prefix, *exe[contender], "audit", *options, "--", *argv]
        started = time.perf_counter()
        done = subprocess.run(
            command, cwd=fixture, env=env, capture_output=True, text=True, timeout=600
        )
        elapsed = time.perf_counter() - started
        if contender == "boot":
            elapsed = float(done.stdout.strip() or "nan")
        report = json.loads(report_path.read_text()) if report_path.exists() else None
        if contender in ("mcprobe", "before") and report is None:
            raise SystemExit(f"{self.name}/{contender} wrote no report: {done.stderr[-800:]}")
        return elapsed, report, done.stderr


def _import_floor() -> float:
    """What mcprobe's own imports cost before it can send anything (the CLI starts the target
    first, so a target that boots slower than this hides it): not in the physical limit, shown
    beside it so the gap on a fast target is explained, not hidden."""
    code = "import mcprobe.cli.commands, mcprobe.engine.audit, mcprobe.client.connection"
    started = time.perf_counter()
    subprocess.run([PY, "-c", code], check=True)
    return time.perf_counter() - started


def _limit(report: Any, stderr: str, boot: float, concurrency: int) -> tuple[float, str]:
    """The physical limit of one audit: boot + the longest call chain + the rest ÷ concurrency."""
    latencies = sorted((c.get("latencyMs") or 0.0) / 1000 for c in report.get("fuzz", []))
    longest = latencies[-1] if latencies else 0.0
    phases = {m["what"]: float(m["s"]) for m in _PHASE.finditer(stderr)}
    # The probe re-calls the slowest tool after its valid call, beside the fuzz calls when it
    # starts early (its own phase), else within the progress checks after them.
    beside = "the cancellation probe (beside the fuzz calls, in one of their slots)"
    cancel = phases.get(beside, phases.get("progress checks and the cancellation probe", 0.0))
    # The attack probes are calls the audit makes too: their count and summed latency come from
    # the -vv timeline (no report holds them) and share the concurrency like the fuzz calls.
    probed = _PROBED.search(stderr)
    probe_calls = int(probed["n"]) if probed else 0
    probe_time = float(probed["s"]) if probed else 0.0
    rest = (sum(latencies[:-1]) + probe_time) / concurrency
    chain = longest + cancel
    why = (
        f"boot {boot:.2f} + chain {longest:.2f}+{cancel:.2f} + {len(latencies)} fuzz and "
        f"{probe_calls} probe calls {rest:.2f}"
    )
    return boot + chain + rest, why


def _compile_like_an_install(directories: list[Path]) -> None:
    """Write the ``.pyc`` files an install would (``py_compile`` writes them whatever
    ``PYTHONDONTWRITEBYTECODE`` says); stale ones are rewritten, so each run reads current code."""
    for directory in directories:
        if not compileall.compile_dir(str(directory), quiet=1):
            raise SystemExit(f"could not compile {directory} (a syntax error?)")
    print(f"bytecode: compiled {', '.join(map(str, directories))} as an install does")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--targets", default="fast,slow,many,everything,filesystem")
    parser.add_argument("--max-tools", type=int, default=10)
    parser.add_argument("--before", help="directory holding an older mcprobe package")
    parser.add_argument("--mcpscore", help="an mcpscore executable (a static peer)")
    parser.add_argument("--original", help="the TypeScript original's built dist/index.js")
    parser.add_argument("--boot-only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.boot_only:
        print(_boot(json.loads(args.boot_only), Path.cwd(), dict(os.environ)))
        return
    exe: dict[str, list[str]] = {"mcprobe": [PY, "-m", "mcprobe"]}
    contenders = ["boot", "mcprobe"]
    if args.before:
        exe["before"] = ["env", f"PYTHONPATH={args.before}", PY, "-m", "mcprobe"]
        contenders.append("before")
    if args.mcpscore:
        exe["mcpscore"] = [args.mcpscore]
        contenders.append("mcpscore")
    if args.original:
        exe["original"] = ["node", args.original]
        contenders.append("original")
    _compile_like_an_install([REPO / "mcprobe", *([Path(args.before)] if args.before else [])])
    problem = real_servers.skip_reason()
    for name in args.targets.split(","):
        target = Target(name, args.max_tools)
        if target.real and problem:
            print(f"{name}: skipped ({problem})")
            continue
        times: dict[str, list[float]] = {c: [] for c in contenders}
        limits: list[tuple[float, str]] = []
        runs: list[tuple[Any, str]] = []
        for _ in range(args.runs):
            for contender in contenders:
                with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as tmp:
                    elapsed, report, stderr = target.run(contender, Path(tmp), exe)
                times[contender].append(elapsed)
                if contender == "mcprobe":
                    runs.append((report, stderr))
        boot = statistics.median(times["boot"])
        floor = statistics.median(_import_floor() for _ in range(args.runs))
        limits = [_limit(report, stderr, boot, 4) for report, stderr in runs]
        med = {c: statistics.median(times[c]) for c in contenders}
        limit = statistics.median(x for x, _ in limits)
        shown = ", ".join(f"{c} {med[c]:.2f}" for c in contenders)
        print(f"{name}: medians of {args.runs} (s): {shown}")
        ratio = med["mcprobe"] / limit
        print(f"  physical limit {limit:.2f} ({limits[0][1]}); mcprobe/limit {ratio:.2f}x")
        print(
            f"  mcprobe's import floor {floor:.2f}; mcprobe/(limit + floor) "
            f"{med['mcprobe'] / (limit + floor):.2f}x"
        )
        for peer in contenders[2:]:
            print(f"  mcprobe/{peer} {med['mcprobe'] / med[peer]:.2f}x")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
