"""Peak memory and wall time of ``mcprobe audit`` against the largest hostile replies.

Each case runs a real ``mcprobe audit --fuzz`` in a child process (``python -m mcprobe.cli``,
one tool, ``--concurrency 1``) against one of the hostile test targets, twice: once with the
hostile reply and once with a plain reply *of the same tool*, in the same run. Peak RSS comes
from ``wait4`` (``ru_maxrss`` of that child alone), wall time from the parent's clock. The
ratios hostile/plain are the numbers that matter (the machine is shared and noisy).

- ``bomb``: HTTP (uvicorn on 127.0.0.1), a gzip reply that inflates to 1 GiB (~1 MB sent) vs
  one that inflates to 1 KiB (``tests/targets/hostile_http.bomb_server``);
- ``line``: stdio, one 1 GiB JSON line (``rawserver.py tools=huge huge_mb=1024``) vs an empty
  text (``huge_mb=0``);
- ``nesting``: stdio, structuredContent nested 5,000 levels (``deep_result depth=5000``) vs 1;
- ``deep_page``, ``surrogates``, ``setsid``, ``shape``, ``version``: the other hostile
  behaviours of the catalogue (tests/test_hostile_targets.py), each against the same target
  without the behaviour (``shape`` against the well-formed ``fail`` tool).

    .venv/bin/python scripts/bench_hostile.py [--only bomb,line,nesting]

Each child's address space is capped (``RLIMIT_AS`` 4 GiB) so a regression fails instead of
eating the machine.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.targets import RAWSERVER  # noqa: E402
from tests.targets.hostile_http import bomb_server, serve  # noqa: E402

PY = sys.executable
GIB = 1 << 30


@dataclass(frozen=True)
class Run:
    status: int
    wall: float
    rss_mb: float
    note: str


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 * GIB, 4 * GIB))


def audit(target: list[str], tool: str) -> Run:
    argv = [PY, "-m", "mcprobe.cli", "audit", "--fuzz", "--fuzz-destructive", "--json"]
    argv += ["--concurrency", "1", "--tools", tool, "--timeout", "30", *target]
    started = time.monotonic()
    child = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT, preexec_fn=_limit
    )
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    note = ""
    if out.strip():
        report = json.loads(out)
        valid = [r for r in report["fuzz"] if r["name"] == tool and r["case"] == "valid"]
        note = (valid[0]["note"] or valid[0]["outcome"]) if valid else "no valid case"
    return Run(child.returncode, wall, usage.ru_maxrss / 1024, note[-100:])


def stdio(*words: str) -> list[str]:
    return ["--", PY, str(RAWSERVER), *words]


async def http_pair(tool: str) -> tuple[Run, Run]:
    runs = []
    for decoded in (GIB, 1024):
        async with serve(bomb_server(decoded)) as base:
            url = f"{base}/mcp"
            runs.append(await anyio.to_thread.run_sync(audit, [url], tool))
    return runs[0], runs[1]


CASES: dict[str, tuple[str, Callable[[], tuple[Run, Run]]]] = {
    "bomb": ("HTTP gzip inflating to 1 GiB", lambda: anyio.run(http_pair, "bomb")),
    "line": (
        "stdio 1 GiB line",
        lambda: (
            audit(stdio("tools=huge", "huge_mb=1024"), "huge"),
            audit(stdio("tools=huge", "huge_mb=0"), "huge"),
        ),
    ),
    "nesting": (
        "stdio 5,000-level nesting",
        lambda: (
            audit(stdio("tools=deep_result", "depth=5000"), "deep_result"),
            audit(stdio("tools=deep_result", "depth=1"), "deep_result"),
        ),
    ),
    # The other hostile behaviours, each against the same target without it.
    "deep_page": (
        "stdio 5,000-deep tools page 2",
        lambda: (
            audit(stdio("deep_page2", "tools=echo"), "echo"),
            audit(stdio("tools=echo"), "echo"),
        ),
    ),
    "surrogates": (
        "stdio lone surrogates",
        lambda: (
            audit(stdio("surrogates", "tools=half_emoji"), "half_emoji"),
            audit(stdio("tools=half_emoji"), "half_emoji"),
        ),
    ),
    "setsid": (
        "stdio setsid + daemon",
        lambda: (
            audit(stdio("escape_setsid", "tools=echo"), "echo"),
            audit(stdio("tools=echo"), "echo"),
        ),
    ),
    "shape": (
        'stdio "isError": "true"',
        lambda: (
            audit(stdio("tools=bad_is_error"), "bad_is_error"),
            audit(stdio("tools=fail"), "fail"),
        ),
    ),
    "version": (
        "stdio protocol 1999-01-01",
        lambda: (
            audit(stdio("protocol=1999-01-01", "tools=echo"), "echo"),
            audit(stdio("tools=echo"), "echo"),
        ),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", default="bomb,line,nesting", help=f"comma-separated, from {','.join(CASES)}"
    )
    args = parser.parse_args()
    # uvicorn's sockets complain once per chunk after mcprobe hangs up on the bomb: expected.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    print(f"{'case':28} {'kind':7} {'exit':>4} {'wall s':>7} {'peak MB':>8}  valid case")
    for name in args.only.split(","):
        title, run = CASES[name]
        hostile, plain = run()
        for kind, result in (("hostile", hostile), ("plain", plain)):
            print(
                f"{title:28} {kind:7} {result.status:>4} {result.wall:>7.2f} "
                f"{result.rss_mb:>8.1f}  {result.note}"
            )
        print(
            f"{'':28} {'ratio':7} {'':>4} {hostile.wall / plain.wall:>7.2f} "
            f"{hostile.rss_mb / plain.rss_mb:>8.2f}"
        )


if __name__ == "__main__":
    main()
