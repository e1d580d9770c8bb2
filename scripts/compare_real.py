#!/usr/bin/env python3
"""Do two mcprobe versions say the same about the real servers? One audit each, side by side.

For a refactor that must not change behaviour (issue 19's "same reports on the official
servers"): every server of ``scripts/real_servers.json`` (or ``--servers a,b``) is audited with
``mcprobe audit --fuzz`` by this checkout and by an older package (``--before DIR``, e.g.
``git archive <commit> mcprobe | tar -x -C DIR``), each in a loopback-only namespace with a fresh
fixture (``tests/integration/real_servers.py``). What a report *says* is compared, not its
bytes (latencies, the canary's nonce and temporary paths differ run to run): the exit code, the
schema version, the score and grade, every dimension's score, every finding (code, tool,
parameter, severity), every fuzz call (tool, case, outcome, verdicts) and every surface check
(check, subject, verdict). Prints one line per server and, for a difference, what only one side
has; exits 1 when any server differs, 2 when the real servers are not installed.

    .venv/bin/python scripts/compare_real.py --before DIR [--servers everything,git]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.integration import real_servers  # noqa: E402

Summary = dict[str, Any]


def audit(server_id: str, package_root: Path) -> tuple[int, dict[str, Any]]:
    """``mcprobe audit --fuzz --format json`` of one manifest server by the ``mcprobe`` package
    in ``package_root``: its exit code and report."""
    mcprobe = ["env", f"PYTHONPATH={package_root}", sys.executable, "-m", "mcprobe"]
    run = real_servers.audit_real_server(server_id, mcprobe=mcprobe)
    return run.returncode, run.report


def summary(code: int, report: dict[str, Any]) -> Summary:
    """What a report says, without what differs run to run."""

    def where(finding: dict[str, Any], key: str) -> str:
        return str((finding.get("location") or {}).get(key) or "")

    checks = (report.get("surface") or {}).get("checks") or []
    return {
        "exit code": code,
        "schema": report.get("schemaVersion"),
        "score": (report.get("overall"), report.get("grade")),
        "dimensions": [(d.get("key"), d.get("score")) for d in report.get("dimensions") or []],
        "findings": sorted(
            (f.get("code"), where(f, "tool"), where(f, "param"), f.get("severity"))
            for f in report.get("findings") or []
        ),
        "fuzz": sorted(
            (c.get("name"), c.get("case"), c.get("outcome"), tuple(c.get("verdicts") or ()))
            for c in report.get("fuzz") or []
        ),
        "checks": sorted(
            (c.get("check"), str(c.get("subject") or ""), c.get("verdict")) for c in checks
        ),
    }


def differences(before: Summary, now: Summary) -> list[str]:
    out: list[str] = []
    for key in before:
        if before[key] == now[key]:
            continue
        if isinstance(before[key], list):  # as multisets: a call made twice is not once
            gone: list[Any] = list((Counter(before[key]) - Counter(now[key])).elements())
            new: list[Any] = list((Counter(now[key]) - Counter(before[key])).elements())
            out.append(f"  {key}: only before {gone[:8]}; only now {new[:8]}")
        else:
            out.append(f"  {key}: before {before[key]}, now {now[key]}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="directory holding an older mcprobe")
    parser.add_argument("--servers", help="comma-separated manifest ids (default: all)")
    args = parser.parse_args()
    problem = real_servers.skip_reason()
    if problem is not None:
        print(f"compare_real: {problem}", file=sys.stderr)
        return 2
    if not (Path(args.before) / "mcprobe" / "__init__.py").is_file():
        print(f"compare_real: no mcprobe package in {args.before}", file=sys.stderr)
        return 2
    ids = args.servers.split(",") if args.servers else list(real_servers.manifest())
    differ = False
    for server_id in ids:
        before = summary(*audit(server_id, Path(args.before).resolve()))
        now = summary(*audit(server_id, REPO))
        found = differences(before, now)
        differ = differ or bool(found)
        score, grade = now["score"]
        print(
            f"{server_id}: {'DIFFERENT' if found else 'same'} ({score}/{grade}; "
            f"{len(now['fuzz'])} calls, {len(now['checks'])} checks, "
            f"{len(now['findings'])} findings)",
            flush=True,
        )
        for line in found:
            print(line, flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
