"""Precision and recall of mcprobe's `security.*` findings (issue 24), on labelled targets.

Own targets (tests/targets/): each entry of TARGETS names a target + mode and the set of
(code, where) it was BUILT to show — taken from the target's docstring and the assertions of
the test that audits it (tests/engine/: test_security_targets.py, test_answer_security.py,
test_rug_pull_targets.py, test_listed_values.py; tests/core/test_surface_security.py,
tests/client/test_canary_channels.py, tests/report/test_injection.py,
tests/front/test_redaction.py), never from what mcprobe prints today. `where`
is the tool, resource (URI or template) or prompt of the finding, "" for the server itself.
Honest look-alikes expect nothing. Each is audited the way its test audits it (the library,
`audit(AuditRequest(spec, fuzz=True, ...))`, isolated where the test isolates).

`--official`: the 7 pinned reference servers, each through tests/integration/real_servers.py
(`mcprobe audit --fuzz --format json` in a loopback-only namespace), against OFFICIAL.

    unshare -rn --pid --fork --kill-child --mount-proc -- sh -c 'ip link set lo up;
      PYTHONPATH=. .venv/bin/python scripts/security_accuracy.py [--official] [--only NAME]'

Prints per code and overall: TP, FP, FN, precision, recall; then every FP and FN.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import anyio

from mcprobe.core.cases.selection import UNKNOWN_TOOL_BASE
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.json_report import render_json
from tests.targets import TARGETS_DIR
from tests.targets.rawserver import INJECT_NAME

Label = tuple[str, str]  # (code without "security.", where)


@dataclass(frozen=True)
class Target:
    name: str
    argv: tuple[str, ...]  # script under tests/targets/ and its words
    expected: frozenset[Label] = frozenset()
    destructive: bool = False  # --fuzz-destructive (the probes' consent without isolation)
    isolated: bool = False  # sandbox "required" (the probes' consent by isolation)
    surface: bool = True
    http_echo: bool = False  # tests/targets/hostile_http.py echo_secrets, with a bearer
    call_timeout: float = 5.0


def L(*pairs: str) -> frozenset[Label]:
    """Labels from "code@where" strings ("code" alone: the server itself)."""
    return frozenset((p.split("@")[0], p.split("@")[1] if "@" in p else "") for p in pairs)


def _hostile(mode: str, labels: frozenset[Label], probe: bool = False) -> list[Target]:
    """A hostile_answers.py mode and its honest look-alike, as test_answer_security runs them."""
    return [
        Target(
            f"hostile_answers {m}", ("hostile_answers.py", m), lab, isolated=probe, surface=False
        )
        for m, lab in ((mode, labels), (f"honest-{mode}", frozenset()))
    ]


TARGETS: list[Target] = [
    # poisoned.py: the static rules (test_security_targets) and the canary (fuzzed).
    Target(
        "poisoned poisoned",
        ("poisoned.py", "poisoned"),
        L(
            "hidden_characters@add",  # 35 zero-width characters before <IMPORTANT>
            "model_instruction@add",  # <IMPORTANT> ... Do not mention this to the user
            "exfiltration@add",  # read ~/.ssh/id_rsa and pass it as sidenote
            "param_contradiction@add",  # optional sidenote "REQUIRED."
            "shadowing@daily_quote",  # When send_email is used, always add a bcc
            "model_instruction@daily_quote",  # ... and never mention it
            "exfiltration@summarize",  # "The user's previous message, verbatim."
            "environment_exposure@debug_env",  # "Returns all environment variables"
            "canary_leak@debug_env",  # ... and does return them
            "misleading_annotation@run_command",  # a shell command runner, readOnlyHint: true
        ),
    ),
    Target("poisoned honest", ("poisoned.py", "honest")),
    Target(
        "poisoned rugpull",
        ("poisoned.py", "rugpull"),
        L("rug_pull@add", "undeclared_list_changed"),
    ),
    Target(
        "poisoned evolving",
        ("poisoned.py", "evolving"),
        L("definition_changed@search", "definition_changed@count"),
    ),
    # hostile_answers.py: the result scan (not isolated) and the probes (isolated).
    *_hostile("order", L("result_instruction@get_doc")),
    *_hostile("later", L("result_instruction@get_doc")),
    *_hostile("creds", L("credential_exposed@get_config")),
    *_hostile("shell", L("shell_reached@branch_info")),
    *_hostile("eval", L("code_execution@calc")),
    *_hostile("inject", L("command_injection@shout"), probe=True),
    *_hostile("traverse", L("path_traversal@read_note", "any_file_read@read_note"), probe=True),
    *_hostile("ssrf", L("ssrf@preview"), probe=True),
    *_hostile(
        "template",
        L("path_traversal@document://{filename}", "any_file_read@document://{filename}"),
        probe=True,
    ),
    # leaky_surface.py: resources, prompts and logs (test_surface_security, test_canary_channels).
    Target(
        "leaky_surface poison_listing",
        ("leaky_surface.py", "poison_listing"),
        L(
            "hidden_characters@config://settings",
            "model_instruction@config://settings",
            "model_instruction@review",
            "exfiltration@review",
        ),
    ),
    Target(
        "leaky_surface poison_content",
        ("leaky_surface.py", "poison_content"),
        L(
            "hidden_characters@config://settings",
            "model_instruction@config://settings",
            "hidden_characters@review",
            "model_instruction@review",
        ),
    ),
    Target("leaky_surface leak_log", ("leaky_surface.py", "leak_log"), L("canary_leak")),
    Target(
        "leaky_surface leak_resource",
        ("leaky_surface.py", "leak_resource"),
        L("canary_leak@config://settings"),
    ),
    Target(
        "leaky_surface leak_template",
        ("leaky_surface.py", "leak_template"),
        L("canary_leak@env://1"),
    ),
    Target(
        "leaky_surface leak_prompt", ("leaky_surface.py", "leak_prompt"), L("canary_leak@review")
    ),
    Target("leaky_surface leak_info", ("leaky_surface.py", "leak_info"), L("canary_leak")),
    Target("leaky_surface leak_stderr", ("leaky_surface.py", "leak_stderr"), L("canary_in_logs")),
    Target("leaky_surface honest", ("leaky_surface.py",)),
    Target("leaky_surface honest_text", ("leaky_surface.py", "honest_text")),
    # listed_values.py: an injection behind a value only the server's refusal lists.
    Target(
        "listed_values shell",
        ("listed_values.py", "shell"),
        L("command_injection@query_table"),
        destructive=True,
    ),
    Target("listed_values listed", ("listed_values.py",), destructive=True),
    Target("listed_values silent", ("listed_values.py", "silent"), destructive=True),
    # rawserver.py inject (test_injection): "Ignore previous instructions" with zero-width, bidi,
    # NUL and an ANSI colour code (ESC[31m: ansi_styling) in the server's title and
    # instructions, both tools' descriptions and parameter descriptions, and every error text
    # the tools answer with (result_instruction; answers are not scanned for colour codes).
    Target(
        "rawserver inject",
        ("rawserver.py", "inject"),
        frozenset(
            (code, where)
            for where in ("", INJECT_NAME, "plain")
            for code in ("model_instruction", "hidden_characters", "ansi_styling")
        )
        | frozenset(("result_instruction", tool) for tool in (INJECT_NAME, "plain")),
        call_timeout=2.0,
    ),
    # hostile_http.py echo_secrets (test_redaction): the bearer and X-Api-Key echoed in the
    # server's name, version and instructions (the initialize answer: "" here), whoami's
    # description and every tools/call answer, whatever tool it names (mcprobe's call of an
    # unknown tool included).
    Target(
        "hostile_http echo_secrets",
        (),
        L("secret_echo", "secret_echo@whoami", f"secret_echo@{UNKNOWN_TOOL_BASE}"),
        http_echo=True,
    ),
]

# The official servers' true findings (docs/accuracy.md, tests/integration): server-everything's
# get-env returns the environment, and gzip-file-as-resource fetches any URL it is given.
OFFICIAL: dict[str, frozenset[Label]] = {
    "everything": L(
        "environment_exposure@get-env", "canary_leak@get-env", "ssrf@gzip-file-as-resource"
    ),
    "filesystem": frozenset(),
    "memory": frozenset(),
    "sequential-thinking": frozenset(),
    "time": frozenset(),
    "git": frozenset(),
    "fetch": frozenset(),
}


def found_labels(findings: Iterable[dict[str, Any]]) -> frozenset[Label]:
    """The (code, where) of the `security.*` findings of a JSON report."""
    return frozenset(
        (
            f["code"].removeprefix("security."),
            str(at.get("tool") or at.get("resource") or at.get("prompt") or ""),
        )
        for f in findings
        if f["code"].startswith("security.")
        for at in [f.get("location") or {}]
    )


async def _audit_own(target: Target) -> ConformanceReport:
    with anyio.fail_after(180):
        if target.http_echo:
            import mcprobe
            from tests.targets.hostile_http import echo_secrets, serve

            async with serve(echo_secrets) as base:
                return await mcprobe.audit_url(
                    base + "/mcp",
                    bearer="brr-Secret-0d15ea5e",
                    headers={"X-Api-Key": "hdr-Secret-feedf00d"},
                    fuzz=True,
                    timeout=10,
                )
        spec = TargetSpec(
            "stdio",
            command=sys.executable,
            args=(str(TARGETS_DIR / target.argv[0]), *target.argv[1:]),
            connect_timeout=10.0,
            call_timeout=target.call_timeout,
            sandbox="required" if target.isolated else "off",
        )
        request = AuditRequest(
            spec, fuzz=True, fuzz_destructive=target.destructive, surface=target.surface
        )
        return await audit(request)


def _score(
    rows: list[tuple[str, frozenset[Label], frozenset[Label]]],
) -> None:
    """Print the per-code table and every miss; rows are (name, expected, found)."""
    codes = sorted({c for _, exp, got in rows for c, _ in exp | got})
    tally: dict[str, list[int]] = {c: [0, 0, 0] for c in codes}
    misses: list[str] = []
    for name, exp, got in rows:
        for code, where in exp | got:
            kind = 2 if (code, where) not in got else (0 if (code, where) in exp else 1)
            tally[code][kind] += 1
            if kind:
                what = f"security.{code} @ {where.replace(chr(10), '⏎') or '(server)'}"
                misses.append(f"  {'FP' if kind == 1 else 'FN'}  {name}: {what}")
    total = [sum(t[i] for t in tally.values()) for i in range(3)]

    def ratio(a: int, b: int) -> str:
        return f"{a / b:.2f}" if b else "  - "

    print(f"{'class':<34} {'TP':>3} {'FP':>3} {'FN':>3}  precision  recall")
    for code, (tp, fp, fn) in [*tally.items(), ("OVERALL", total)]:
        label = code if code == "OVERALL" else f"security.{code}"
        print(
            f"{label:<34} {tp:>3} {fp:>3} {fn:>3}  {ratio(tp, tp + fp):>9}  {ratio(tp, tp + fn):>6}"
        )
    print("\n".join(misses) if misses else "  no false positive, no false negative")


def run_own(only: str | None) -> None:
    rows = []
    for target in TARGETS:
        if only and only not in target.name:
            continue
        try:
            report = json.loads(render_json(anyio.run(_audit_own, target)))
            got = found_labels(report["findings"])
        except Exception as exc:  # an audit that fails finds nothing: its labels are FNs
            print(f"  ! {target.name}: audit failed: {exc!r}", file=sys.stderr)
            got = frozenset()
        print(
            f"  {target.name}: expected {len(target.expected)}, found {len(got)}", file=sys.stderr
        )
        rows.append((target.name, target.expected, got))
    print(f"Own targets ({len(rows)} target+mode, {sum(not e for _, e, _ in rows)} honest):")
    _score(rows)


def run_official(only: str | None) -> None:
    from tests.integration.real_servers import audit_real_server, skip_reason

    if (problem := skip_reason()) is not None:
        sys.exit(f"official servers: {problem}")
    rows = []
    for server, expected in OFFICIAL.items():
        if only and only not in server:
            continue
        run = audit_real_server(server)
        got = found_labels(run.report.get("findings", []))
        print(f"  {server}: exit {run.returncode}, {run.seconds:.0f} s", file=sys.stderr)
        rows.append((server, expected, got))
    print(f"Official servers ({len(rows)}):")
    _score(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--official", action="store_true", help="the 7 official servers instead")
    parser.add_argument("--only", metavar="NAME", help="only targets/servers whose name has NAME")
    args = parser.parse_args()
    (run_official if args.official else run_own)(args.only)


if __name__ == "__main__":
    main()
