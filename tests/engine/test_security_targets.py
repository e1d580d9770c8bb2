"""Security audit of real target processes over stdio: mcprobe's own poisoned server gets every
static security finding, a Security dimension and grade F; its honest look-alikes get none."""

from __future__ import annotations

import sys

import anyio
import pytest

from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.targets import POISONED


def _audit(mode: str, *, fuzz: bool = False) -> ConformanceReport:
    spec = TargetSpec(
        "stdio", command=sys.executable, args=(str(POISONED), mode), connect_timeout=10.0
    )

    async def run() -> ConformanceReport:
        with anyio.fail_after(60):
            return await audit(AuditRequest(spec, fuzz=fuzz))

    return anyio.run(run)


@pytest.fixture(scope="module")
def poisoned() -> ConformanceReport:
    return _audit("poisoned")


def test_every_poisoning_behaviour_is_found_with_its_evidence(poisoned: ConformanceReport) -> None:
    found = {(f.code, f.location.tool) for f in poisoned.findings if f.code.startswith("security.")}
    assert {
        ("security.hidden_characters", "add"),
        ("security.model_instruction", "add"),
        ("security.exfiltration", "add"),
        ("security.param_contradiction", "add"),
        ("security.shadowing", "daily_quote"),
        ("security.model_instruction", "daily_quote"),
        ("security.exfiltration", "summarize"),
        ("security.environment_exposure", "debug_env"),
        ("security.misleading_annotation", "run_command"),
    } <= found
    hidden = next(f for f in poisoned.findings if f.code == "security.hidden_characters")
    assert "⟨U+200B ×35⟩" in hidden.message


def test_a_poisoned_server_scores_f_with_security_leading_the_critical_callout() -> None:
    fuzzed = _audit("poisoned", fuzz=True)
    assert fuzzed.overall is not None and fuzzed.overall <= 39
    assert fuzzed.grade == "F"
    security = next(d for d in fuzzed.dimensions if d.key == "security")
    assert security.score == 0
    assert fuzzed.critical_problems[0].kind == "securityCritical"
    assert fuzzed.markdown is not None and "## Critical behavior" in fuzzed.markdown
    assert "has a critical security finding" in fuzzed.markdown


def test_a_poisoned_server_audited_without_fuzz_grades_f_and_security_leads(
    poisoned: ConformanceReport,
) -> None:
    # A critical security finding grades F whether or not a tool was called (SPEC §6).
    assert poisoned.grade == "F" and poisoned.overall is not None and poisoned.overall <= 39
    assert poisoned.not_graded is None and poisoned.static is not None
    security = next(d for d in poisoned.dimensions if d.key == "security")
    assert security.score == 0
    assert poisoned.critical_problems[0].kind == "securityCritical"
    assert poisoned.markdown is not None and "has a critical security finding" in poisoned.markdown


def test_honest_look_alikes_produce_no_security_finding_and_a_full_security_score() -> None:
    honest = _audit("honest")
    assert [f.code for f in honest.findings if f.code.startswith("security.")] == []
    security = next(d for d in honest.dimensions if d.key == "security")
    assert security.score == 10
    assert honest.grade != "F"
    assert honest.critical_problems == []


def _fuzzed(mode: str) -> ConformanceReport:
    spec = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(str(POISONED), mode),
        connect_timeout=10.0,
        call_timeout=5.0,
    )

    async def run() -> ConformanceReport:
        with anyio.fail_after(90):
            return await audit(AuditRequest(spec, fuzz=True))

    return anyio.run(run)


def test_the_canary_proves_that_the_env_dump_tool_leaks_the_environment() -> None:
    report = _fuzzed("poisoned")
    leaks = [f for f in report.findings if f.code == "security.canary_leak"]
    assert [f.location.tool for f in leaks] == ["debug_env"]
    assert leaks[0].severity == "critical"
    assert "case `valid`" in leaks[0].message
    note = next(n for n in report.notes if n.startswith("Canary:"))
    value = note.split("=", 1)[1].split("`", 1)[0]
    assert value.startswith("mcprobe-canary-") and value in leaks[0].message  # shown, not scrubbed
    assert report.target is not None  # the canary is no configured variable: not listed
    assert not any(name.startswith("MCPROBE_CANARY_") for name in report.target.env_names)


def test_no_canary_finding_when_no_answer_contains_it() -> None:
    report = _fuzzed("honest")
    assert [f for f in report.findings if f.code.startswith("security.")] == []
    assert any(n.startswith("Canary:") for n in report.notes)


def test_the_cli_plants_the_same_canary_prefix_as_the_core() -> None:
    from mcprobe.cli import audit_args as cli
    from mcprobe.core.target_spec import CANARY_PREFIX

    assert cli.CANARY_PREFIX == CANARY_PREFIX
    name, value = cli.canary_pair()
    assert name.startswith(CANARY_PREFIX) and value.startswith("mcprobe-canary-")
    assert cli.canary_pair() != (name, value)


def test_an_explicit_seed_gives_one_canary_in_cli_and_engine_and_none_a_random_one() -> None:
    from mcprobe.cli import audit_args as cli
    from mcprobe.client.canary import with_canary
    from mcprobe.core.target_spec import seeded_canary, target_spec

    assert cli.canary_pair(7) == seeded_canary(7) == cli.canary_pair(7)
    assert seeded_canary(7) != seeded_canary(8)
    spec = target_spec(transport="stdio", command="python", args=["server.py"])
    assert with_canary(spec, 7).canary() == seeded_canary(7)
    assert with_canary(spec).canary() != with_canary(spec).canary()


def test_an_echoed_bearer_is_critical_and_the_finding_never_contains_it() -> None:
    from mcprobe.core.security.proofs import Observation, echo_findings

    token = "s3cr3t-bearer-value-123"
    seen = [
        Observation("whoami", "valid", f'{{"auth": "Bearer {token}"}}'),
        Observation("ping", "valid", "pong"),
    ]
    found = echo_findings(seen, [("the bearer token", token)])
    assert [(f.code, f.location.tool) for f in found] == [("security.secret_echo", "whoami")]
    assert token not in found[0].message and token not in found[0].hint
    assert echo_findings(seen, [("the bearer token", "never-sent-value")]) == []
