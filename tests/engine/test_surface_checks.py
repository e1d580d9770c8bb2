"""Resource, prompt and protocol checks against a real stdio target (tests/targets/
surface_server.py): conforming by default, and one defect at a time makes exactly its check fail."""

from __future__ import annotations

import sys

import anyio
import pytest

from mcprobe.core.score.dimensions import round_half_up
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.support.paths import TARGETS

pytestmark = pytest.mark.anyio

SERVER = TARGETS / "surface_server.py"


async def _audit(*defects: str, fuzz: bool = False) -> ConformanceReport:
    spec = TargetSpec(
        transport="stdio",
        command=sys.executable,
        args=(str(SERVER), *defects),
        connect_timeout=20,
        call_timeout=10,
    )
    with anyio.fail_after(60):
        return await audit(AuditRequest(spec, fuzz=fuzz, overall_timeout=50))


def _verdicts(report: ConformanceReport) -> dict[tuple[str, str | None], str]:
    assert report.surface is not None
    return {(c.check, c.subject): c.verdict for c in report.surface.checks}


def _failed(report: ConformanceReport) -> set[str]:
    assert report.surface is not None
    return {c.check for c in report.surface.checks if c.verdict == "fail"}


async def test_a_conforming_server_passes_every_check_it_is_given() -> None:
    report = await _audit()
    assert report.surface is not None
    assert _failed(report) == set()
    checks = {c.check for c in report.surface.checks}
    assert {
        "resources.list",
        "resources.templates_list",
        "resources.read",
        "resources.template_read",
        "resources.not_found",
        "resources.not_found_code",
        "resources.subscribe",
        "prompts.list",
        "prompts.get",
        "prompts.missing_argument",
        "prompts.unknown_name",
        "protocol.ping",
        "protocol.unknown_method",
        "protocol.unknown_method_code",
        "protocol.invalid_cursor",
        "protocol.logging",
        "protocol.completion",
        "protocol.version_negotiation",
    } <= checks
    assert (report.surface.resources, report.surface.resource_templates) == (2, 1)
    assert report.surface.prompts == 2
    assert not [f for f in report.findings if f.code.startswith(("resource.", "prompt."))]
    # The template read used the value completion/complete offered ("2"), not a placeholder.
    reads = [c for c in report.surface.checks if c.check == "resources.template_read"]
    assert reads and reads[0].request is not None and "docs://guide/page/2" in reads[0].request


@pytest.mark.parametrize(
    ("defect", "check"),
    [
        ("read_no_uri", "resources.read resources.template_read"),
        ("read_mime", "resources.read_mime"),
        ("not_found_success", "resources.not_found"),
        ("not_found_code", "resources.not_found_code"),
        ("template_internal", "resources.template_read"),
        ("subscribe_missing", "resources.subscribe"),
        ("missing_arg_ok", "prompts.missing_argument"),
        ("unknown_prompt_ok", "prompts.unknown_name"),
        ("prompt_bad_role", "prompts.get"),
        ("ping_error", "protocol.ping"),
        ("unknown_method_code", "protocol.unknown_method_code"),
        ("cursor_ok", "protocol.invalid_cursor"),
        ("logging_missing", "protocol.logging"),
        ("completion_bad", "protocol.completion"),
        ("version_echo", "protocol.version_negotiation"),
        ("version_refuse", "protocol.version_negotiation"),
    ],
)
async def test_each_defect_fails_exactly_its_own_check(defect: str, check: str) -> None:
    report = await _audit(defect)
    assert _failed(report) == set(check.split())


async def test_lint_of_resources_and_prompts_names_each_problem_where_it_is() -> None:
    report = await _audit("lint")
    found = {
        (f.code, f.location.resource or f.location.prompt, f.location.param)
        for f in report.findings
    }
    assert ("resource.invalid_uri", "no-scheme-here", None) in found
    assert ("resource.missing_name", "no-scheme-here", None) in found
    assert ("resource.duplicate_uri", "docs://guide/intro", None) in found
    assert ("resource.invalid_template", "docs://guide/{unclosed", None) in found
    assert ("prompt.missing_description", "undescribed", None) in found
    assert ("prompt.argument_missing_description", "undescribed", "x") in found
    assert ("prompt.invalid_required", "undescribed", "x") in found
    assert "## Resources, prompts and protocol" in (report.markdown or "")


async def test_a_failed_must_check_costs_points_and_a_should_failure_does_not() -> None:
    clean = await _audit()
    must = await _audit("ping_error")
    should = await _audit("cursor_ok")

    def metadata(report: ConformanceReport) -> float | None:
        return next(d.score for d in report.dimensions if d.key == "metadata")

    assert metadata(must) == (metadata(clean) or 0) - 1
    assert metadata(should) == metadata(clean)
    reasons = next(d.reasons for d in must.dimensions if d.key == "metadata")
    assert any("protocol.ping" in r for r in reasons)


async def test_without_fuzz_the_surface_checks_measure_error_handling_alone() -> None:
    report = await _audit("not_found_success")
    error_handling = next(d for d in report.dimensions if d.key == "errorHandling")
    # not_found fails; missing_argument and unknown_name pass: 2 of 3.
    assert error_handling.score == pytest.approx(6.7)


def test_no_surface_on_the_command_line_skips_every_surface_check_and_their_score() -> None:
    import io
    import json

    from mcprobe.cli.commands import EXIT_OK, run

    def audit(*flags: str) -> ConformanceReport:
        out, err = io.StringIO(), io.StringIO()
        argv = ["audit", "--json", "--no-config", *flags, "--", sys.executable, str(SERVER)]
        assert run(argv, out, err) == EXIT_OK, err.getvalue()
        return ConformanceReport.model_validate(json.loads(out.getvalue()))

    def dimension(report: ConformanceReport, key: str) -> float | None:
        return next(d.score for d in report.dimensions if d.key == key)

    full = audit()
    tools_only = audit("--no-surface")
    assert full.surface is not None and full.surface.checks
    assert dimension(full, "errorHandling") is not None  # measured by the checks alone
    assert tools_only.surface is None
    assert not [f for f in tools_only.findings if f.code.startswith(("resource.", "prompt."))]
    # Without fuzz and without the checks nothing measures Error Handling or Liveness.
    assert dimension(tools_only, "errorHandling") is None
    assert dimension(tools_only, "liveness") is None
    assert tools_only.server.eras == [tools_only.server.era]  # no second connection either


async def test_the_library_and_probe_report_take_surface_false_too() -> None:
    from mcprobe import audit_stdio
    from mcprobe.server.models import ReportInput

    with anyio.fail_after(60):
        report = await audit_stdio(sys.executable, [str(SERVER)], timeout=10, surface=False)
    assert report.surface is None
    assert report.server.name  # connected, listed and linted all the same
    assert ReportInput.model_validate({"surface": False}).surface is False
    assert ReportInput.model_validate({}).surface is True


async def test_surface_checks_alone_grade_a_server_whose_tool_was_not_called_as_static() -> None:
    report = await _audit()  # lists `noop`, no --fuzz: the checks measure EH and Liveness
    measured = {d.key for d in report.dimensions if d.measured}
    assert {"errorHandling", "liveness"} <= measured
    # Graded on what was measured (SPEC §6), and it says so: static, tools not called.
    assert report.not_graded is None and report.overall is not None and report.grade != "-"
    assert report.static is not None and "the audit ran without fuzz" in report.static
    assert "(static: tools not called)" in (report.markdown or "")


async def test_a_server_without_tools_is_graded_from_its_resource_and_prompt_checks() -> None:
    report = await _audit("no_tools")
    assert report.not_graded is None
    measured = [d.score for d in report.dimensions if d.score is not None]
    assert len(measured) == 5  # Error Handling and Liveness measured by the checks alone
    assert report.overall is not None and report.grade != "-"
    assert report.overall == round_half_up(10 * sum(measured) / len(measured))


async def test_the_same_server_with_its_tool_called_is_graded() -> None:
    report = await _audit(fuzz=True)
    assert report.not_graded is None and report.overall is not None


async def test_an_unimplemented_optional_templates_list_is_not_applicable_not_a_failure() -> None:
    """Issue 23 item 4: no normative sentence asks for resources/templates/list; -32601 is the
    right answer of a server without templates."""
    report = await _audit("no_templates")
    assert report.surface is not None
    (templates,) = [c for c in report.surface.checks if c.check == "resources.templates_list"]
    assert templates.verdict == "notApplicable" and "-32601" in templates.message
    assert _failed(report) == set()


async def test_failed_should_checks_are_one_advice_line_not_a_fix_item_each() -> None:
    """Issue 23 item 4: protocol.invalid_cursor fails on reference servers too: advice."""
    report = await _audit("cursor_ok", "unknown_method_code")
    assert report.markdown is not None
    fixes = report.markdown.split("## Recommended fixes", 1)[1]
    (advice,) = [line for line in fixes.splitlines() if line.startswith("**Advice**")]
    assert "`protocol.invalid_cursor`" in advice and "`protocol.unknown_method_code`" in advice
    assert not any(line[:1].isdigit() and "invalid_cursor" in line for line in fixes.splitlines())
