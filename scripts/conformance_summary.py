#!/usr/bin/env python3
"""Put one scripts/conformance run side by side: per target, each conformance scenario's checks
next to the mcprobe checks that judge the same clause, then mcprobe's checks the suite has no
scenario for. Markdown on stdout.

    python scripts/conformance_summary.py OUTDIR NODE_VERSION SUITE_VERSION [SUITE_VERSION ...]

The scenario → mcprobe mapping below is the comparison's spine (docs/conformance.md explains
each row); "fixture" marks scenarios that call names only the suite's own fixture server has
(test_simple_text, test://static-text, test_simple_prompt, ...), so on any other server their
verdict says nothing about conformance.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# scenario -> (mcprobe checks judging the same clause, needs the suite's fixture names?)
MAPPING: dict[str, tuple[tuple[str, ...], bool]] = {
    "server-initialize": (("connect",), False),
    "server-session-lifecycle": (("http.session_delete", "http.session_unknown"), False),
    "logging-set-level": (("protocol.logging",), False),
    "ping": (("protocol.ping",), False),
    "completion-complete": (("protocol.completion",), True),
    "tools-list": (("lint",), False),
    "tools-call-simple-text": (("fuzz",), True),
    "tools-call-image": (("fuzz",), True),
    "tools-call-audio": (("fuzz",), True),
    "tools-call-embedded-resource": (("fuzz",), True),
    "tools-call-mixed-content": (("fuzz",), True),
    "tools-call-with-logging": ((), True),
    "tools-call-error": (("fuzz",), True),
    "tools-call-with-progress": (("protocol.progress",), True),
    "tools-call-sampling": ((), True),
    "tools-call-elicitation": ((), True),
    "elicitation-sep1034-defaults": ((), True),
    "elicitation-sep1330-enums": ((), True),
    "server-sse-multiple-streams": ((), False),
    "resources-list": (("resources.list", "lint"), False),
    "resources-read-text": (("resources.read",), True),
    "resources-read-binary": (("resources.read",), True),
    "resources-templates-read": (("resources.template_read",), True),
    "resources-subscribe": (("resources.subscribe",), True),
    "resources-unsubscribe": (("resources.subscribe",), True),
    "prompts-list": (("prompts.list", "lint"), False),
    "prompts-get-simple": (("prompts.get",), True),
    "prompts-get-with-args": (("prompts.get",), True),
    "prompts-get-embedded-resource": (("prompts.get",), True),
    "prompts-get-with-image": (("prompts.get",), True),
    "dns-rebinding-protection": (("http.origin", "http.host"), False),
}


def _cell(text: object, width: int = 160) -> str:
    s = " ".join(str(text).split()).replace("|", "\\|")
    return s if len(s) <= width else s[: width - 1] + "…"


def _suite(out: Path, version: str, name: str) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((out / f"conformance-{version}" / name).glob("server-*/checks.json")):
        scenario = path.parent.name.removeprefix("server-").rsplit("-", 6)[0]
        found[scenario] = json.loads(path.read_text(encoding="utf-8"))
    return found


def _status(checks: list[dict[str, Any]]) -> str:
    statuses = {c.get("status") for c in checks}
    if "FAILURE" in statuses:
        return "FAIL"
    if "WARNING" in statuses:
        return "WARN"
    return "pass" if "SUCCESS" in statuses else "/".join(sorted(str(s) for s in statuses))


def _mcprobe(report: dict[str, Any], check: str) -> str:
    surface = report.get("surface") or {}
    if check == "connect":
        bad = [
            f for f in report.get("findings", []) if f.get("code") == "server.invalid_initialize"
        ]
        return (
            "fail (server.invalid_initialize)"
            if bad
            else "pass (connected, initialize well-formed)"
        )
    if check == "lint":
        codes = sorted(
            {
                f["code"]
                for f in report.get("findings", [])
                if f.get("code", "").startswith(("tool.", "resource.", "prompt."))
            }
        )
        return "lint: " + (", ".join(codes) if codes else "no tool/resource/prompt finding")
    if check == "fuzz":
        fuzz = report.get("fuzzSummary") or {}
        return f"fuzz: {_cell(json.dumps(fuzz, sort_keys=True), 120)}" if fuzz else "fuzz: not run"
    verdicts = [c for c in surface.get("checks", []) if c.get("check") == check]
    if not verdicts:
        return f"{check}: not run"
    parts = sorted({f"{c['verdict']}" for c in verdicts})
    return f"{check}: {'/'.join(parts)} ({len(verdicts)}×)"


def main() -> None:
    out, node_version, versions = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    print(f"# Conformance suites {', '.join(versions)} (Node {node_version}) vs mcprobe\n")
    print(f"Run directory: `{out}`.\n")
    targets = sorted(
        {p.name for v in versions for p in (out / f"conformance-{v}").glob("*") if p.is_dir()}
    )
    for name in targets:
        suites = {v: _suite(out, v, name) for v in versions}
        scenarios = list(dict.fromkeys(s for v in versions for s in suites[v]))
        report_path = out / "mcprobe" / f"{name}.json"
        report: dict[str, Any] = (
            json.loads(report_path.read_text(encoding="utf-8")) if report_path.is_file() else {}
        )
        server = report.get("server") or {}
        print(f"## {name}: {server.get('name')} {server.get('version')}\n")
        print(
            f"mcprobe: {report.get('overall')}/100 {report.get('grade')}, era {server.get('era')},"
            f" eras {server.get('eras')}, protocolVersion {server.get('protocolVersion')}\n"
        )
        heads = " | ".join(versions)
        print(f"| scenario | {heads} | suite checks that failed or warned | fixture? | mcprobe |")
        print("|---|" + "---|" * len(versions) + "---|---|---|")
        for scenario in scenarios:
            mapped, fixture = MAPPING.get(scenario, ((), False))
            statuses = " | ".join(
                _status(suites[v][scenario]) if scenario in suites[v] else "—" for v in versions
            )
            failed: dict[str, str] = {}
            for v in versions:
                for c in suites[v].get(scenario, []):
                    if c.get("status") in ("FAILURE", "WARNING"):
                        failed.setdefault(str(c.get("id")), str(c.get("errorMessage") or ""))
            why = "; ".join(f"{k}: {m}" for k, m in failed.items())
            ours = "; ".join(_mcprobe(report, m) for m in mapped) if report else "no report"
            print(
                f"| {scenario} | {statuses} | {_cell(why)} | {'yes' if fixture else ''}"
                f" | {_cell(ours or '(no mcprobe check)')} |"
            )
        covered = {m for mapped, _ in MAPPING.values() for m in mapped}
        rest = [
            c for c in (report.get("surface") or {}).get("checks", []) if c["check"] not in covered
        ]
        if rest:
            print("\nmcprobe checks with no suite scenario:\n")
            print("| check | level | verdict | message |")
            print("|---|---|---|---|")
            for c in rest:
                print(f"| {c['check']} | {c['level']} | {c['verdict']} | {_cell(c['message'])} |")
        probe = report.get("unknownToolProbe")
        if probe:
            shown = {k: probe.get(k) for k in ("outcome", "errorCode", "message")}
            print(f"\nmcprobe's unknown-tool probe: `{_cell(json.dumps(shown), 300)}`")
        print()


if __name__ == "__main__":
    main()
