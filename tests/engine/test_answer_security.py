"""The result scan and the attack probes against real target processes over stdio
(tests/targets/hostile_answers.py): each hostile behaviour is found with its evidence, each
honest look-alike stays silent, and the probes are sent only with consent to call every tool."""

from __future__ import annotations

import sys

import anyio
import pytest

from mcprobe.client.transports.sandbox import bwrap_problem
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.targets import HOSTILE_ANSWERS


def _audit(mode: str, *, destructive: bool = False, sandbox: str = "off") -> ConformanceReport:
    spec = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(str(HOSTILE_ANSWERS), mode),
        connect_timeout=10.0,
        sandbox=sandbox,  # type: ignore[arg-type]
    )

    async def run() -> ConformanceReport:
        with anyio.fail_after(90):
            return await audit(
                AuditRequest(spec, fuzz=True, fuzz_destructive=destructive, surface=False)
            )

    return anyio.run(run)


def _security(report: ConformanceReport) -> list[tuple[str, str | None]]:
    return [(f.code, f.location.tool) for f in report.findings if f.code.startswith("security.")]


@pytest.mark.parametrize(
    ("mode", "code", "tool", "evidence"),
    [
        ("order", "security.result_instruction", "get_doc", "[SYSTEM: ignore your previous"),
        ("later", "security.result_instruction", "get_doc", "[SYSTEM: ignore your previous"),
        ("creds", "security.credential_exposed", "get_config", "ghp_… (40 characters)"),
        ("shell", "security.shell_reached", "branch_info", "/bin/sh: 1: cd: can't cd to"),
        ("eval", "security.code_execution", "calc", "NameError: name 'example'"),
    ],
)
def test_a_hostile_answer_is_found_with_its_evidence_and_its_honest_look_alike_is_not(
    mode: str, code: str, tool: str, evidence: str
) -> None:
    hostile = _audit(mode)
    assert _security(hostile) == [(code, tool)]
    finding = next(f for f in hostile.findings if f.code == code)
    assert evidence in finding.message
    if code == "security.credential_exposed":  # the server owns the data: an error, not critical
        assert finding.severity == "error" and hostile.grade != "F"
    else:
        assert finding.severity == "critical" and hostile.grade == "F"
    assert _security(_audit(f"honest-{mode}")) == []


def test_an_answer_that_turns_hostile_on_a_later_call_names_that_call() -> None:
    finding = next(f for f in _audit("later").findings if f.code.startswith("security."))
    assert "to case `valid`" not in finding.message  # the first call was clean


def test_no_credential_value_reaches_the_report() -> None:
    report = _audit("creds")
    text = report.model_dump_json()
    assert "Hunter2Pa55word" not in text
    assert "A1b2C3d4E5f6G7h8I9j0" not in text


# Each attack probe's hole on the hostile target, and what proves it.
PROBED_HOLES = [
    ("inject", {("security.command_injection", "shout")}),
    (
        "traverse",
        {("security.path_traversal", "read_note"), ("security.any_file_read", "read_note")},
    ),
    ("ssrf", {("security.ssrf", "preview")}),
]


@pytest.mark.parametrize(("mode", "found"), PROBED_HOLES)
def test_an_attack_probe_proves_the_hole_and_the_honest_look_alike_stays_silent(
    mode: str, found: set[tuple[str, str]]
) -> None:
    hostile = _audit(mode, destructive=True)
    assert set(_security(hostile)) == found
    probe = next(f for f in hostile.findings if f.code.startswith("security."))
    assert "Probe `probe:" in probe.message and "arguments `{" in probe.message
    assert any(n.startswith("Attack probes (--fuzz-destructive)") for n in hostile.notes)
    assert _security(_audit(f"honest-{mode}", destructive=True)) == []


def test_without_consent_to_call_every_tool_no_probe_is_sent() -> None:
    report = _audit("inject")
    assert _security(report) == []
    assert not any("Attack probes" in n for n in report.notes)
    assert all(not r.case.startswith("probe:") for r in report.fuzz)


@pytest.mark.parametrize(("mode", "found"), PROBED_HOLES)
def test_an_isolated_target_is_probed_with_plain_fuzz_and_each_hole_is_still_proved(
    mode: str, found: set[tuple[str, str]]
) -> None:
    """Consent follows isolation: no --fuzz-destructive. The planted file must be one the
    sandbox shows and the SSRF listener must live in the sandbox's own network namespace, or
    the traversal and SSRF holes would go unseen."""
    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f"isolation needs bubblewrap and namespaces: {problem}")
    hostile = _audit(mode, sandbox="required")
    assert hostile.target is not None and hostile.target.isolation is not None
    assert hostile.target.isolation.isolated
    assert set(_security(hostile)) == found, hostile.notes
    assert any(n.startswith("Attack probes (isolated)") for n in hostile.notes)
    assert _security(_audit(f"honest-{mode}", sandbox="required")) == []


def _resource_security(report: ConformanceReport) -> list[tuple[str, str | None]]:
    return [
        (f.code, f.location.resource) for f in report.findings if f.code.startswith("security.")
    ]


TEMPLATE_HOLES = {
    ("security.path_traversal", "document://{filename}"),
    ("security.any_file_read", "document://{filename}"),
}


@pytest.mark.parametrize("sandbox", ["off", "required"])
def test_a_resource_template_that_joins_its_variable_is_probed_with_resources_read(
    sandbox: str,
) -> None:
    """The template variant of the traversal probe, under the tool probes' consent
    (--fuzz-destructive, or isolation with plain fuzz); the look-alike that resolves the name and
    confines it to its folder stays silent."""
    if sandbox == "required" and (problem := bwrap_problem()) is not None:
        pytest.skip(f"isolation needs bubblewrap and namespaces: {problem}")
    destructive = sandbox == "off"
    hostile = _audit("template", destructive=destructive, sandbox=sandbox)
    assert set(_resource_security(hostile)) == TEMPLATE_HOLES, hostile.notes
    traversal = next(f for f in hostile.findings if f.code == "security.path_traversal")
    assert "`resources/read` of `document://../../" in traversal.message
    assert "mcprobe-file-canary-" in traversal.message
    assert any(
        "`resources/read` traversal probe(s) to 1 resource template" in n for n in hostile.notes
    )
    honest = _audit("honest-template", destructive=destructive, sandbox=sandbox)
    assert _resource_security(honest) == []


def test_without_consent_no_template_is_probed() -> None:
    report = _audit("template")
    assert _resource_security(report) == []
    assert not any("Attack probes" in n for n in report.notes)
