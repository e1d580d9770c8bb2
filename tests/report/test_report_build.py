"""``build_report``: the ConformanceReport assembled from the pure core's dataclasses."""

from __future__ import annotations

from dataclasses import replace

from mcprobe.core.model import CaseResult, Outcome, Severity
from mcprobe.report.build import (
    build_report,
    critical_lines,
    critical_problems,
    to_result_out,
    unknown_tool_problem,
)
from mcprobe.report.model import ConformanceReport, TargetOut
from tests.support.synthetic_audits import (
    VERSION,
    build,
    clean_audit,
    died_audit,
    finding,
    flawed_audit,
    result,
)


def problem_keys(result: CaseResult) -> list[str]:
    """The verdicts the report stores on ``result`` (detected when it was classified)."""
    return list(to_result_out(result).verdicts)


def test_findings_are_sorted_worst_severity_first_keeping_order_within_a_severity() -> None:
    report = build(flawed_audit())
    assert [(f.severity, f.location.tool, f.location.param) for f in report.findings] == [
        ("error", "greet", None),
        ("warning", "greet", "name"),
        ("warning", "divide", "a"),
        ("warning", "divide", "b"),
        ("warning", "set_mode", None),
        ("warning", None, None),
        ("info", "greet", None),
    ]


def test_findings_keep_code_message_location_and_hint() -> None:
    audit = clean_audit()
    f = finding("param.untyped", Severity.WARNING, "msg", "hint", "t", "p")
    report = build_report(
        audit.snapshot, [f], audit.score, None, mcprobe_version=VERSION, connection_id="c1"
    )
    out = report.findings[0]
    assert (out.code, out.severity, out.message, out.hint) == (
        "param.untyped",
        "warning",
        "msg",
        "hint",
    )
    assert (out.location.tool, out.location.param, out.location.pointer) == ("t", "p", None)
    assert report.connection_id == "c1"


def test_report_without_fuzz_has_no_coverage_no_fuzz_and_nothing_critical() -> None:
    report = build(clean_audit())
    assert report.coverage is None
    assert report.fuzz == [] and report.fuzz_summary is None
    assert report.critical == [] and report.crashed_by is None
    assert report.unknown_tool_probe is None


def test_server_identity_score_and_dimensions_are_copied() -> None:
    report = build(flawed_audit())
    assert (report.server.name, report.server.version, report.server.title) == ("demo", "1.0", None)
    assert report.server.protocol_version == "2025-11-25"
    assert report.server.capabilities == {"tools": {}}
    assert (report.overall, report.grade, report.mcprobe_version) == (54, "D", VERSION)
    assert [(d.key, d.score, d.measured) for d in report.dimensions] == [
        ("metadata", 6.5, True),
        ("schemaQuality", 6.25, True),
        ("errorHandling", 5.0, True),
        ("liveness", 3.3333, True),
    ]
    assert report.dimensions[0].reasons == ["no title"]


def test_unmeasured_dimension_is_reported_as_not_measured_with_no_score() -> None:
    report = build(clean_audit())
    liveness = report.dimensions[3]
    assert (liveness.score, liveness.measured) == (None, False)
    assert liveness.reasons == ["not measured: fuzz was not run"]


def test_coverage_counts_fuzzed_tools_and_names_skipped_ones_with_reasons() -> None:
    coverage = build(flawed_audit()).coverage
    assert coverage is not None
    assert (coverage.total_tools, coverage.fuzzed_tools) == (7, 6)
    assert coverage.fuzzed[0] == "greet"
    assert [(s.tool, s.reason) for s in coverage.skipped] == [
        ("delete_all", "may be destructive (no readOnlyHint)")
    ]


def test_fuzz_summary_counts_every_outcome_and_flag() -> None:
    summary = build(flawed_audit()).fuzz_summary
    assert summary is not None
    assert summary.model_dump() == {
        "cases": 11,
        "sent": 10,
        "not_run": 1,
        "ok": 4,
        "tool_error": 2,
        "protocol_error": 2,
        "timeout": 1,
        "protocol_crash": 1,
        "silently_accepted": 1,
        "empty_success": 1,
        "output_schema_violation": 1,
        "leak": 1,
        "failure_as_success": 0,
        "environment": 0,
        "inconclusive": 0,
        "verdicts": {
            "crash": 1,
            "timeout": 1,
            "silentlyAccepted": 1,
            "outputSchemaViolation": 1,
            "emptySuccess": 1,
            "internalError": 1,
            "leak": 1,
        },
    }


def test_fuzz_results_carry_case_arguments_flags_and_messages_unchanged() -> None:
    report = build(flawed_audit())
    divide = report.fuzz[3]
    assert (divide.name, divide.case, divide.kind, divide.malformed) == (
        "divide",
        "wrong_type:a",
        "wrong_type",
        True,
    )
    assert divide.arguments == {"a": "x", "b": 1}
    assert divide.silently_accepted and not divide.leak
    assert divide.message == "NaN"
    assert report.fuzz[4].error_code == -32603


def test_crashed_by_is_tool_and_case_separated_by_a_space() -> None:
    assert build(flawed_audit()).crashed_by == "boom extra_garbage"
    assert build(died_audit()).crashed_by == "alpha wrong_type:q"


def test_critical_lines_name_each_problem_per_tool_in_priority_order() -> None:
    report = build(flawed_audit())
    assert report.critical == [
        "`boom`: crashed the target (transport lost) (`extra_garbage`)",
        "`opaque`: timed out (`valid`)",
        "`divide`: silently accepts malformed input (`wrong_type:a`)",
        "`well_behaved`: violates its own outputSchema (`valid`)",
        "`greet`: returns an empty success for valid input (`valid`)",
        "the target died during case `boom extra_garbage`; 1 remaining case was not run "
        "(not counted against any tool)",
    ]


def test_death_blames_only_the_killing_case_not_calls_in_flight_or_queued() -> None:
    report = build(died_audit())
    assert report.critical == [
        "`alpha`: crashed the target (transport lost) (`wrong_type:q`)",
        "the target died during case `alpha wrong_type:q`; 3 remaining cases were not run "
        "(not counted against any tool)",
    ]
    assert not any(line.startswith(("`beta", "`gamma")) for line in report.critical)


def test_a_crash_without_a_known_killer_is_blamed_on_the_crashing_case() -> None:
    crashed = result("t", "valid", Outcome.PROTOCOL_CRASH, {})
    assert critical_lines([crashed], None) == ["`t`: crashed the target (transport lost) (`valid`)"]


def test_nothing_critical_gives_no_lines() -> None:
    results = [
        result("t", "valid", Outcome.OK, {}),
        result("t", "wrong_type:a", Outcome.TOOL_ERROR, {"a": 1}),
        result("t", "missing_required:a", Outcome.PROTOCOL_ERROR, {}, error_code=-32603),
        result("t", "null_value:a", Outcome.TOOL_ERROR, {"a": None}, flags={"leak"}),
    ]
    probe = result("nope", "unknown_tool", Outcome.PROTOCOL_ERROR, {}, error_code=-32602)
    assert critical_lines(results, probe) == []


def test_internal_errors_and_leaks_are_problems_but_not_critical() -> None:
    internal = result(
        "t", "wrong_type:a", Outcome.PROTOCOL_ERROR, {}, error_code=-32603, flags={"leak"}
    )
    assert problem_keys(internal) == ["internalError", "leak"]
    assert critical_problems([internal]) == []


def test_a_rejected_valid_call_is_a_problem_to_fix_but_not_critical() -> None:
    rejected = result("t", "valid", Outcome.TOOL_ERROR, {"tz": "example"}, message="bad tz")
    refused = result("t", "valid", Outcome.PROTOCOL_ERROR, {}, error_code=-32601)
    broken = result("t", "valid", Outcome.PROTOCOL_ERROR, {}, error_code=-32603)
    assert problem_keys(rejected) == ["rejectedValid"]
    assert problem_keys(refused) == ["rejectedValid"]
    assert problem_keys(broken) == ["internalErrorValid"]
    assert critical_problems([rejected, refused, broken]) == []


def test_a_rejected_malformed_call_is_no_problem() -> None:
    assert problem_keys(result("t", "wrong_type:a", Outcome.TOOL_ERROR, {"a": 1})) == []


def test_several_cases_of_one_tool_share_one_critical_line() -> None:
    results = [
        result("div", "wrong_type:a", Outcome.OK, {}, flags={"silentlyAccepted"}),
        result("div", "wrong_type:b", Outcome.OK, {}, flags={"silentlyAccepted"}),
    ]
    assert critical_lines(results, None) == [
        "`div`: silently accepts malformed input (`wrong_type:a`, `wrong_type:b`)"
    ]


def test_unknown_tool_probe_is_critical_only_when_not_rejected() -> None:
    def probe(outcome: Outcome, code: int | None = -32602) -> str | None:
        return unknown_tool_problem(result("nope", "unknown_tool", outcome, {}, error_code=code))

    assert probe(Outcome.OK) is not None and "answered as a success" in (probe(Outcome.OK) or "")
    assert probe(Outcome.PROTOCOL_CRASH) is not None
    assert probe(Outcome.TIMEOUT) is not None
    assert probe(Outcome.TOOL_ERROR) is None
    assert probe(Outcome.PROTOCOL_ERROR) is None
    invalid = probe(Outcome.PROTOCOL_ERROR, None)  # an invalid result: no JSON-RPC error code
    assert invalid is not None and "breaks the MCP schema" in invalid
    assert unknown_tool_problem(None) is None


def test_unknown_tool_probe_is_kept_apart_from_the_fuzz_results() -> None:
    report = build(flawed_audit())
    assert report.unknown_tool_probe is not None
    assert report.unknown_tool_probe.case == "unknown_tool"
    assert all(r.case != "unknown_tool" for r in report.fuzz)


def test_notes_keep_caller_notes_then_add_dropped_cases_and_unbuildable_tools() -> None:
    notes = build(flawed_audit()).notes
    assert notes[0] == "stderr tail: boom exited with 1"
    assert "Cases not sent (validated against schema): `set_mode` `wrong_type:mode`." in notes
    assert any("opaque" in n and "unsatisfiable pattern" in n for n in notes)


def test_deadline_stop_is_noted() -> None:
    audit = died_audit()
    assert audit.fuzz is not None
    stopped = replace(audit, fuzz=replace(audit.fuzz, deadline_hit=True, crashed_by=None))
    assert any("deadline" in n for n in build(stopped).notes)


def test_target_description_is_passed_through_and_markdown_left_empty() -> None:
    audit = clean_audit()
    target = TargetOut(transport="stdio", command="python", args=["-m", "srv"], env_names=["K"])
    report = build_report(
        audit.snapshot, (), audit.score, None, mcprobe_version=VERSION, target=target
    )
    assert report.target == target
    assert report.markdown is None


def test_report_round_trips_through_json() -> None:
    report = build(flawed_audit())
    again = ConformanceReport.model_validate_json(report.model_dump_json(by_alias=True))
    assert again == report
