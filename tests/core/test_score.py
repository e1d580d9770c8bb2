"""Scoring: four dimensions, overall, grade, reason lines (SPEC §6)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.cases.selection import (
    NOT_REQUESTED,
    UNKNOWN_REQUESTED,
    needs_destructive,
    needs_writes,
)
from mcprobe.core.knobs import FrontEnd
from mcprobe.core.model import (
    CaseResult,
    Coverage,
    Finding,
    FuzzRun,
    Location,
    Outcome,
    ServerSnapshot,
    Severity,
    SkipCause,
    SkippedTool,
    ToolCases,
)
from mcprobe.core.score.dimensions import grade_for, round_half_up, score_server
from mcprobe.core.verdicts import VERDICTS_BY_KEY, deduction_fix, deduction_reason
from tests.support import builders
from tests.support.synthetic_audits import clean_audit

LONG_INSTRUCTIONS = "Call divide with two numbers; set_mode switches the rounding mode."


def snapshot(
    tools: int | list[str] = 1,
    *,
    name: str | None = "calc",
    version: str | None = "1.0.0",
    title: str | None = "Calculator",
    instructions: str | None = LONG_INSTRUCTIONS,
    capabilities: dict[str, object] | None = None,
    prompts_count: int | None = None,
    resources_count: int | None = None,
    listing_findings: tuple[Finding, ...] = (),
) -> ServerSnapshot:
    names = tools if isinstance(tools, list) else [f"t{i}" for i in range(tools)]
    return builders.snapshot(
        [builders.tool(n) for n in names],
        name=name,
        version=version,
        title=title,
        protocol_version="2025-06-18",
        instructions=instructions,
        capabilities={"tools": {}} if capabilities is None else capabilities,
        prompts_count=prompts_count,
        resources_count=resources_count,
        listing_findings=listing_findings,
    )


def finding(code: str, severity: Severity, tool: str | None) -> Finding:
    return builders.finding(code, severity, tool)


def case(
    tool: str,
    label: str,
    outcome: Outcome,
    *,
    latency: float = 10.0,
    error_code: int | None = None,
    empty: bool = False,
    violation: bool = False,
) -> CaseResult:
    malformed = CaseKind(label.split(":")[0]) is not CaseKind.VALID
    return builders.case_result(
        tool,
        label,
        outcome,
        latency_ms=latency,
        flags={
            key
            for key, shown in (
                ("silentlyAccepted", malformed and outcome is Outcome.OK),
                ("emptySuccess", empty),
                ("outputSchemaViolation", violation),
            )
            if shown
        },
        error_code=error_code,
    )


def run(
    results: list[CaseResult],
    *,
    probe: CaseResult | None = None,
    fuzzed: tuple[str, ...] | None = None,
    tool_cases: tuple[ToolCases, ...] = (),
) -> FuzzRun:
    names = fuzzed if fuzzed is not None else tuple(dict.fromkeys(r.tool for r in results))
    return FuzzRun(
        results=tuple(results),
        coverage=Coverage(total_tools=len(names), fuzzed_tools=names, skipped=()),
        tool_cases=tool_cases,
        unknown_tool_probe=probe,
    )


def valid_calls(n: int = 3, *, latency: float = 10.0) -> list[CaseResult]:
    """``n`` clean valid calls, one per tool t0…: enough to measure liveness (3 or more)."""
    return [case(f"t{i}", "valid", Outcome.OK, latency=latency) for i in range(n)]


def scores(snap: ServerSnapshot, findings: list[Finding], fuzz: FuzzRun | None) -> list[object]:
    return [d.score for d in score_server(snap, findings, fuzz).dimensions]


def test_fully_worked_example_scores_every_dimension_exactly() -> None:
    """A four-tool calculator, scored by hand.

    Metadata: name and version present; no title (−1); instructions "Use divide." are 11
    characters, under 40 (−1); `prompts` advertised but `prompts/list` failed (−0.5).
    10 − 2.5 = **7.5**.

    Schema Quality: greet has an error (1) + two warnings (0.5 + 0.5) + an info (0.25) = 2.25,
    capped at 2; divide has two warnings + an info = 1.25; set_mode one warning = 0.5;
    well_behaved nothing. Σ capped = 3.75 over 4 tools = 0.9375. The listing found one server-wide
    warning (0.5). 10 − 10 × min(1, (0.9375 + 0.5) / 2) = 10 − 7.1875 = 2.8125 → **2.8**.

    Error Handling: malformed cases sent = divide wrong_type:a (ok: silently accepted),
    divide wrong_type:b (toolError: rejected), set_mode out_of_enum:mode (-32602: rejected),
    well_behaved missing_required:x (-32603: not a clean rejection), plus the unknown-tool probe
    (-32601: rejected); well_behaved wrong_type:x was not run and does not count.
    10 × 3/5 = **6.0**.

    Liveness: valid calls sent = divide (ok, 100 ms), greet (ok but empty, 300 ms), set_mode (ok,
    500 ms), well_behaved (ok, 250 ms). Clean = 3 of 4 → 7.5. p50 of 100/250/300/500 = 275 ms,
    75 ms over 200 → −0.5 × 0.75 = −0.375. 7.125 → **7.1** (half-up).

    Security: one warning (security.unannotated_capability on divide) costs 1 → **9**; it does
    not enter Schema Quality.

    Overall = 10 × (7.5 + 2.8 + 6.0 + 7.1 + 9) / 5 = 64.8 → 65 (half-up) → grade **C**.
    """
    warning_from_listing = finding("server.garbage_stdout", Severity.WARNING, None)
    snap = snapshot(
        ["divide", "greet", "set_mode", "well_behaved"],
        title=None,
        instructions="Use divide.",
        capabilities={"tools": {}, "prompts": {}},
        prompts_count=None,  # advertised, and prompts/list failed
        listing_findings=(warning_from_listing,),
    )
    findings = [
        finding("tool.missing_description", Severity.ERROR, "greet"),
        finding("param.untyped", Severity.WARNING, "greet"),
        finding("param.missing_description", Severity.WARNING, "greet"),
        finding("tool.no_annotations", Severity.INFO, "greet"),
        finding("param.untyped", Severity.WARNING, "divide"),
        finding("param.untyped", Severity.WARNING, "divide"),
        finding("tool.no_annotations", Severity.INFO, "divide"),
        finding("tool.thin_description", Severity.WARNING, "set_mode"),
        finding("security.unannotated_capability", Severity.WARNING, "divide"),
    ]
    fuzz = run(
        [
            case("divide", "valid", Outcome.OK, latency=100),
            case("divide", "wrong_type:a", Outcome.OK),
            case("divide", "wrong_type:b", Outcome.TOOL_ERROR),
            case("greet", "valid", Outcome.OK, latency=300, empty=True),
            case("set_mode", "valid", Outcome.OK, latency=500),
            case("set_mode", "out_of_enum:mode", Outcome.PROTOCOL_ERROR, error_code=-32602),
            case("well_behaved", "valid", Outcome.OK, latency=250),
            case("well_behaved", "missing_required:x", Outcome.PROTOCOL_ERROR, error_code=-32603),
            case("well_behaved", "wrong_type:x", Outcome.NOT_RUN),
        ],
        probe=case(
            "mcprobe_nonexistent_tool", "unknown_tool", Outcome.PROTOCOL_ERROR, error_code=-32601
        ),
    )

    score = score_server(snap, findings, fuzz)

    by_key = {d.key: d for d in score.dimensions}
    assert [d.key for d in score.dimensions] == [
        "metadata",
        "schemaQuality",
        "errorHandling",
        "liveness",
        "security",
    ]
    assert [d.name for d in score.dimensions] == [
        "Metadata & Documentation",
        "Schema Quality",
        "Error Handling",
        "Liveness & Performance",
        "Security",
    ]
    assert by_key["metadata"].score == 7.5
    assert by_key["schemaQuality"].score == 2.8
    assert by_key["errorHandling"].score == 6.0
    assert by_key["liveness"].score == 7.1
    assert by_key["security"].score == 9.0
    assert by_key["security"].reasons[1] == (
        "−1: warning security.unannotated_capability (`divide`)"
    )
    assert score.overall == 65
    assert score.grade == "C"

    assert by_key["metadata"].reasons == (
        "−1: no human-readable `title` in serverInfo",
        "−1: `instructions` are only 11 characters (< 40)",
        "−0.5: advertises the `prompts` capability but `prompts/list` fails",
    )
    schema_reasons = by_key["schemaQuality"].reasons
    assert schema_reasons[0].startswith(
        "10 − 10 × min(1, (3.75 / 4 tools + 0.5 server-wide) / 2) = 2.8"
    )
    assert schema_reasons[1:] == (
        "`greet`: 2 (capped from 2.25) from 1 error, 2 warning, 1 info",
        "`divide`: 1.25 from 2 warning, 1 info",
        "`set_mode`: 0.5 from 1 warning",
        "server-wide: 0.5 from server.garbage_stdout ×1",
    )
    assert by_key["errorHandling"].reasons == (
        "3 of 5 malformed cases rejected cleanly (including the unknown-tool probe): 10 × 3/5 = 6",
        "−2: internal error -32603 (1): `well_behaved missing_required:x`",
        "−2: silently accepted (1): `divide wrong_type:a`",
    )
    assert by_key["liveness"].reasons == (
        "3 of 4 valid calls succeeded cleanly: 10 × 3/4 = 7.5",
        "−2.5: empty success (1): `greet valid`",
        "−0.375: valid-call p50 latency 275 ms exceeds 200 ms (0.5 per 100 ms over)",
    )


def test_fifty_tools_with_one_nit_each_score_the_same_as_five() -> None:
    def schema_score(n: int) -> object:
        snap = snapshot(n)
        nits = [finding("tool.thin_description", Severity.WARNING, f"t{i}") for i in range(n)]
        return scores(snap, nits, None)[1]

    assert schema_score(5) == schema_score(50) == 7.5


def test_one_bad_tool_among_many_costs_less_than_among_few() -> None:
    def schema_score(n: int) -> object:
        bad = [finding("tool.missing_description", Severity.ERROR, "t0")] * 3
        return scores(snapshot(n), bad, None)[1]

    assert schema_score(2) == 5.0  # 2 capped / 2 tools = 1 → 10 − 5
    assert schema_score(20) == 9.5  # 2 / 20 = 0.1 → 10 − 0.5


def test_server_wide_findings_are_capped_at_two_and_can_zero_the_dimension() -> None:
    errors = [finding("server.broken_pagination", Severity.ERROR, None)] * 5
    assert scores(snapshot(3), errors, None)[1] == 0.0
    reasons = score_server(snapshot(3), errors, None).dimensions[1].reasons
    assert "server-wide: 2 (capped from 5) from server.broken_pagination ×5" in reasons


def test_listing_findings_already_among_findings_are_not_counted_twice() -> None:
    wide = finding("server.garbage_stdout", Severity.ERROR, None)
    snap = snapshot(1, listing_findings=(wide,))
    assert scores(snap, [wide], None)[1] == 5.0
    assert scores(snap, [], None)[1] == 5.0


def test_zero_tools_leave_only_the_server_wide_term() -> None:
    no_tools = finding("server.no_tools", Severity.WARNING, None)
    assert scores(snapshot(0), [no_tools], None)[1] == 7.5


def test_no_findings_is_a_perfect_schema_score_with_a_reason() -> None:
    dim = score_server(snapshot(3), [], None).dimensions[1]
    assert dim.score == 10.0
    assert dim.reasons == ("no lint findings",)


def test_not_measured_dimensions_are_left_out_of_the_mean() -> None:
    snap = snapshot(2, title=None)  # metadata 9
    nit = [finding("tool.thin_description", Severity.WARNING, "t0")]  # 10 − 10 × 0.25/2 = 8.75
    score = score_server(snap, nit, run(valid_calls(2)))  # both tools called: two valid calls
    metadata, schema, errors, liveness, _security = score.dimensions
    assert (metadata.score, schema.score) == (9.0, 8.8)
    assert errors.score is None and not errors.measured
    assert liveness.score is None and not liveness.measured
    assert errors.reasons == ("not measured: no malformed case was sent",)
    assert _security.score == 10.0  # always measured
    assert score.overall == 93  # 10 × (9.0 + 8.8 + 10) / 3, not diluted by zeros
    assert score.grade == "A" and score.not_graded is None


def test_a_server_with_tools_audited_without_fuzz_is_not_graded_but_its_dimensions_are_scored() -> (
    None
):
    snap = snapshot(2, title=None)
    nit = [finding("tool.thin_description", Severity.WARNING, "t0")]
    score = score_server(snap, nit, None)
    assert (score.overall, score.grade) == (None, "-")
    assert score.not_graded == (
        "no tool was called (the audit ran without fuzz), so Error Handling and Liveness of the "
        "tools were not measured; run with --fuzz"
    )
    metadata, schema, errors, liveness, security = score.dimensions
    assert (metadata.score, schema.score, security.score) == (9.0, 8.8, 10.0)
    assert errors.reasons == ("not measured: no fuzz run (enable fuzz)",)
    assert liveness.score is None


def test_a_server_without_tools_audited_without_fuzz_is_graded_from_what_was_measured() -> None:
    score = score_server(snapshot(0, title=None), [], None)
    assert score.not_graded is None
    assert (score.overall, score.grade) == (97, "A")  # 10 × (9 + 10 + 10) / 3


def test_a_listing_of_only_malformed_tool_entries_counts_as_no_tools_for_the_grade() -> None:
    garbage = replace(snapshot(0), tools=("not a tool", {"description": "no name"}))
    assert score_server(garbage, [], None).not_graded is None
    named = replace(snapshot(0), tools=("not a tool", {"name": "real"}))
    assert score_server(named, [], None).not_graded is not None


def test_one_call_to_one_listed_tool_is_enough_to_grade_and_the_probes_alone_are_not() -> None:
    probe = case("mcprobe_nonexistent_tool", "unknown_tool", Outcome.PROTOCOL_ERROR)
    only_probe = run([], fuzzed=("t0",), probe=probe)
    assert score_server(snapshot(3), [], only_probe).overall is None
    one_call = run([case("t0", "valid", Outcome.OK)], probe=probe)
    assert score_server(snapshot(3), [], one_call).overall == 100
    not_run = run([case("t0", "valid", Outcome.NOT_RUN)])
    assert score_server(snapshot(3), [], not_run).overall is None


def test_every_tool_skipped_means_fuzz_dimensions_are_not_measured() -> None:
    fuzz = run([], fuzzed=())
    errors, liveness = score_server(snapshot(2), [], fuzz).dimensions[2:4]
    assert errors.score is None and liveness.score is None
    assert "every tool was skipped" in errors.reasons[0]
    assert "every tool was skipped" in liveness.reasons[0]


def test_the_unknown_tool_probe_alone_is_too_few_cases_to_measure_error_handling() -> None:
    probe = case("mcprobe_nonexistent_tool", "unknown_tool", Outcome.OK)
    errors = score_server(snapshot(1), [], run([], fuzzed=(), probe=probe)).dimensions[2]
    assert errors.score is None
    assert errors.reasons == ("not measured (only 1 conclusive case; at least 3 needed)",)


def test_a_behavioural_dimension_needs_three_conclusive_cases_and_stays_out_of_the_overall() -> (
    None
):
    two = run([*valid_calls(2), case("t0", "wrong_type:a", Outcome.OK)])
    score = score_server(snapshot(2), [], two)
    _, _, errors, liveness, _ = score.dimensions
    assert liveness.score is None and not liveness.measured
    assert liveness.reasons == ("not measured (only 2 conclusive cases; at least 3 needed)",)
    assert errors.score is None  # one silently accepted case is no rate
    assert score.overall == 100  # the static dimensions only: 10 × (10 + 10 + 10) / 3
    three = run([*valid_calls(3), *(case("t0", f"wrong_type:{p}", Outcome.OK) for p in "abc")])
    _, _, errors, liveness, _ = score_server(snapshot(3), [], three).dimensions
    assert (errors.score, liveness.score) == (0.0, 10.0)  # from 3 cases on: measured


def test_no_constructible_valid_case_leaves_liveness_not_measured() -> None:
    fuzz = run(
        [case("t0", f"wrong_type:{p}", Outcome.TOOL_ERROR) for p in "abc"],
        tool_cases=(ToolCases("t0", (), valid_constructible=False),),
    )
    _, _, errors, liveness, _ = score_server(snapshot(1), [], fuzz).dimensions
    assert errors.score == 10.0
    assert liveness.score is None
    assert "no valid arguments could be built for `t0`" in liveness.reasons[0]


def test_cases_not_run_are_not_counted() -> None:
    fuzz = run(
        [
            *valid_calls(3),
            *(case("t0", f"wrong_type:{p}", Outcome.TOOL_ERROR) for p in "abc"),
            case("t3", "valid", Outcome.NOT_RUN),
            case("t3", "wrong_type:a", Outcome.NOT_RUN),
        ]
    )
    assert scores(snapshot(4), [], fuzz)[2:4] == [10.0, 10.0]


def test_output_schema_violations_and_empty_successes_are_not_clean() -> None:
    fuzz = run(
        [
            case("a", "valid", Outcome.OK),
            case("b", "valid", Outcome.OK, violation=True),
            case("c", "valid", Outcome.OK, empty=True),
            case("d", "valid", Outcome.TOOL_ERROR),
        ]
    )
    liveness = score_server(snapshot(4), [], fuzz).dimensions[3]
    assert liveness.score == 2.5
    assert "−2.5: output-schema violation (1): `b valid`" in liveness.reasons
    assert any(
        r.startswith("−2.5: valid call rejected (toolError) (1): `d valid`")
        for r in liveness.reasons
    )


def test_rejected_valid_example_costs_liveness_and_says_to_accept_or_correct_it() -> None:
    fuzz = run(
        [
            case("a", "valid", Outcome.TOOL_ERROR),
            case("b", "valid", Outcome.PROTOCOL_ERROR, error_code=-32602),
            case("c", "valid", Outcome.OK),
        ]
    )
    liveness = score_server(snapshot(3), [], fuzz).dimensions[3]
    assert liveness.score == 3.3
    rejected = [r for r in liveness.reasons if "valid call rejected" in r]
    assert [r.split(" — ")[0] for r in rejected] == [
        "−3.3333: valid call rejected (protocolError -32602) (1): `b valid`",
        "−3.3333: valid call rejected (toolError) (1): `a valid`",
    ]
    for reason in rejected:
        assert "validates" in reason and "the schema's own example" in reason
        assert "accept it, or correct the example" in reason


def test_internal_error_on_a_valid_call_blames_the_handler_not_the_schema() -> None:
    fuzz = run([case(t, "valid", Outcome.PROTOCOL_ERROR, error_code=-32603) for t in "abc"])
    (reason,) = score_server(snapshot(3), [], fuzz).dimensions[3].reasons[1:]
    assert reason.startswith("−10: internal error -32603 on a valid call (3): `a valid`, `b valid`")
    assert "fix the handler" in reason and "examples" not in reason


def test_every_metadata_and_latency_deduction_maps_to_a_fix() -> None:
    bare = snapshot(
        0,
        name=None,
        version=None,
        title=None,
        instructions=None,
        capabilities={"tools": {}, "prompts": {}, "resources": {}},
        prompts_count=None,  # advertised, and both lists failed
        resources_count=None,
    )
    short = snapshot(3, instructions="Hi.", capabilities={})
    slow = run(valid_calls(3, latency=450))
    dimensions = [
        *score_server(bare, [], None).dimensions,
        *score_server(short, [], slow).dimensions,
    ]
    deductions = [
        deduction
        for d in dimensions
        if d.key in ("metadata", "liveness")
        for deduction in d.deductions
    ]
    assert len(deductions) == 9
    lines = [r for d in dimensions for r in d.reasons if r.startswith("−")]
    assert [deduction_reason(d) for d in deductions] == lines
    fixes = [deduction_fix(d.cause, d.params) for d in deductions]
    assert all(fixes)
    assert "Answer `prompts/list` (an empty list is fine), or stop advertising" in " ".join(fixes)
    assert "p50 latency is 450 ms" in " ".join(fixes)


def test_a_deduction_names_its_verdict_and_carries_the_parameters_of_its_texts() -> None:
    short = score_server(snapshot(1, instructions="Hi."), [], None).dimensions[0]
    (deduction,) = [d for d in short.deductions if d.cause == "shortInstructions"]
    assert deduction.dimension == "metadata"
    assert dict(deduction.params) == {"length": "3", "minimum": "40"}
    assert deduction_reason(deduction) == "−1: `instructions` are only 3 characters (< 40)"
    assert deduction_fix(deduction.cause, deduction.params).startswith(
        "Expand `instructions` to at least 40 characters"
    )
    assert set(VERDICTS_BY_KEY) >= {d.cause for d in short.deductions}
    with pytest.raises(KeyError):
        deduction_fix("noSuchVerdict")


def test_fuzz_deductions_list_their_cases_and_tools() -> None:
    fuzz = run(
        [
            case("a", "wrong_type:x", Outcome.OK),
            case("b", "missing_required:y", Outcome.OK),
            case("b", "wrong_type:y", Outcome.OK),
        ]
    )
    errors = score_server(snapshot(2), [], fuzz).dimensions[2]
    (deduction,) = errors.deductions
    assert (deduction.cause, deduction.amount) == ("silentlyAccepted", 10.0)
    assert deduction.cases == ("a wrong_type:x", "b missing_required:y", "b wrong_type:y")
    assert deduction.tools == ("a", "b")


@pytest.mark.parametrize(
    ("latency", "expected"),
    [
        (150.0, 10.0),
        (200.0, 10.0),
        (250.0, 9.8),  # 10 − 0.25 = 9.75 → 9.8
        (450.0, 8.8),  # 10 − 1.25 = 8.75 → 8.8
        (1200.0, 5.0),  # 10 − 5
        (5000.0, 0.0),  # clamped
    ],
)
def test_latency_penalty_is_half_a_point_per_100ms_over_200ms(
    latency: float, expected: float
) -> None:
    fuzz = run(valid_calls(3, latency=latency))
    assert scores(snapshot(3), [], fuzz)[3] == expected


def test_p50_latency_ignores_timeouts_which_already_count_as_failures() -> None:
    fuzz = run(
        [
            *valid_calls(2, latency=100),
            case("t2", "valid", Outcome.TIMEOUT, latency=30_000),
        ]
    )
    liveness = score_server(snapshot(3), [], fuzz).dimensions[3]
    assert liveness.score == 6.7
    assert not any("latency" in r for r in liveness.reasons)


def test_metadata_tells_a_rich_server_from_a_bare_one() -> None:
    rich = score_server(snapshot(2), [], None).dimensions[0]
    bare = score_server(
        snapshot(2, version=None, title=None, instructions=None), [], None
    ).dimensions[0]
    assert rich.score == 10.0
    assert rich.reasons == ("name, version, title, instructions and capabilities are all in order",)
    assert bare.score == 4.0
    assert bare.reasons == (
        "−2: no server `version` in serverInfo",
        "−1: no human-readable `title` in serverInfo",
        "−3: no `instructions` in initialize",
    )


def test_metadata_judges_capability_honesty() -> None:
    def metadata(snap: ServerSnapshot) -> object:
        return score_server(snap, [], None).dimensions[0].score

    assert metadata(snapshot(2, capabilities={})) == 9.0  # tools served, not advertised
    # An empty tools list is the lint warning server.no_tools, not a Metadata deduction.
    assert metadata(snapshot(0)) == 10.0
    # Advertised and the list failed (the connection leaves the count None only then).
    assert metadata(snapshot(1, capabilities={"tools": {}, "resources": {}})) == 9.5
    both_failed = snapshot(1, capabilities={"tools": {}, "resources": {}, "prompts": {}})
    assert metadata(both_failed) == 9.0
    both_empty = snapshot(
        1,
        capabilities={"tools": {}, "resources": {}, "prompts": {}},
        resources_count=0,
        prompts_count=0,
    )
    assert metadata(both_empty) == 10.0  # an empty list is an honest answer
    assert metadata(snapshot(1, name="  ", instructions="   ")) == 5.0  # blank counts as absent


@pytest.mark.parametrize(
    ("overall", "grade"),
    [
        (100, "A"),
        (90, "A"),
        (89, "B"),
        (75, "B"),
        (74, "C"),
        (60, "C"),
        (59, "D"),
        (40, "D"),
        (39, "F"),
        (0, "F"),
    ],
)
def test_grade_boundaries(overall: int, grade: str) -> None:
    assert grade_for(overall) == grade


def test_rounding_is_half_up_not_bankers() -> None:
    assert round_half_up(89.5) == 90
    assert round_half_up(88.5) == 89  # Python's round(88.5) would give 88
    assert round_half_up(7.125, 1) == 7.1
    assert round_half_up(8.75, 1) == 8.8
    assert round_half_up(0.05, 1) == 0.1


@pytest.mark.parametrize(("p50", "overall", "grade"), [(1040.0, 90, "A"), (1060.0, 89, "B")])
def test_overall_rounds_at_the_grade_boundary(p50: float, overall: int, grade: str) -> None:
    """Metadata 9 (no title), schema 10, error handling 10, security 10, liveness 10 − 0.5 ×
    (p50 − 200)/100: 1040 ms → 5.8, sum 44.8, mean 8.96 → 89.6 → 90 (A); 1060 ms → 5.7, sum
    44.7 → 89.4 → 89 (B). (With five one-decimal dimensions the mean never ends in .5; half-up
    rounding itself is test_rounding_is_half_up_not_bankers.)"""
    fuzz = run(
        [
            *valid_calls(3, latency=p50),
            *(case("t0", f"wrong_type:{p}", Outcome.TOOL_ERROR) for p in "abc"),
        ]
    )
    score = score_server(snapshot(3, title=None), [], fuzz)
    assert [d.score for d in score.dimensions][:3] == [9.0, 10.0, 10.0]
    assert score.overall == overall
    assert score.grade == grade


def test_an_unsupported_protocol_version_costs_metadata_and_keeps_a_server_out_of_grade_a() -> None:
    audit = clean_audit()
    called = run(valid_calls(1))
    assert score_server(audit.snapshot, (), called).grade == "A"  # the control
    odd = replace(audit.snapshot, protocol_version="1999-01-01")
    score = score_server(odd, (), called)
    metadata = next(d for d in score.dimensions if d.key == "metadata")
    assert metadata.score == 6.0
    assert '−4: unsupported protocol version `"1999-01-01"` negotiated' in metadata.reasons
    assert score.grade != "A"
    (deduction,) = [d for d in metadata.deductions if d.cause == "unsupportedProtocolVersion"]
    assert deduction_fix(deduction.cause, deduction.params).startswith("Answer initialize")
    supported = replace(audit.snapshot, protocol_version="2024-11-05")
    assert score_server(supported, (), called).grade == "A"


def test_a_critical_security_finding_caps_the_overall_score_in_the_f_band() -> None:
    snap = snapshot(["add"], title="T", instructions="Adds numbers for the user, precisely.")
    called = run([case("add", "valid", Outcome.OK)])
    honest = score_server(snap, [], called)
    poisoned = score_server(
        snap, [finding("security.model_instruction", Severity.CRITICAL, "add")], called
    )
    assert honest.overall is not None and honest.overall > 39
    security = next(d for d in poisoned.dimensions if d.key == "security")
    assert security.score == 5.0
    assert poisoned.overall == 39 and poisoned.grade == "F"
    error_only = score_server(snap, [finding("security.homoglyph", Severity.ERROR, "add")], called)
    assert error_only.overall is not None and error_only.overall > 39  # only critical caps


@pytest.mark.parametrize(
    ("cause", "changes"),
    [
        ("noServerName", {"name": None}),
        ("noServerVersion", {"version": None}),
        ("noServerTitle", {"title": None}),
        ("noInstructions", {"instructions": None}),
        ("shortInstructions", {"instructions": "Hi."}),
        ("capabilityNotServed", {"capabilities": {"tools": {}, "prompts": {}}}),
        ("toolsNotAdvertised", {"capabilities": {}}),
    ],
)
def test_each_metadata_verdict_is_deducted_exactly_when_its_shortcoming_is_there(
    cause: str, changes: dict[str, Any]
) -> None:
    clean = score_server(snapshot(1), [], None).dimensions[0]
    assert cause not in {d.cause for d in clean.deductions}
    flawed = score_server(snapshot(1, **changes), [], None).dimensions[0]
    assert cause in {d.cause for d in flawed.deductions}


@pytest.mark.parametrize("key", ["prompts", "resources"])
def test_an_advertised_capability_that_answers_with_an_empty_list_costs_no_metadata(
    key: str,
) -> None:
    caps: dict[str, object] = {"tools": {}, key: {}}

    def counted(count: int | None) -> ServerSnapshot:
        if key == "prompts":
            return snapshot(1, capabilities=caps, prompts_count=count)
        return snapshot(1, capabilities=caps, resources_count=count)

    empty = score_server(counted(0), [], None)
    assert empty.dimensions[0].deductions == ()
    assert empty.dimensions[0].score == 10.0
    failed = score_server(counted(None), [], None)
    (deduction,) = failed.dimensions[0].deductions
    assert (deduction.cause, dict(deduction.params)["capability"]) == ("capabilityNotServed", key)


def test_slow_valid_calls_and_lint_findings_are_deductions_of_their_own_verdicts() -> None:
    slow = score_server(snapshot(3), [], run(valid_calls(3, latency=450)))
    assert [d.cause for d in slow.dimensions[3].deductions] == ["slowValidCalls"]
    fast = score_server(snapshot(3), [], run(valid_calls(3, latency=50)))
    assert fast.dimensions[3].deductions == ()
    lint = [Finding("param.untyped", Severity.WARNING, "m", Location("t0", "a"), "h")]
    (deduction,) = score_server(snapshot(1), lint, None).dimensions[1].deductions
    assert (deduction.cause, deduction.tools) == ("lintFindings", ("t0",))
    lost = 10 - (score_server(snapshot(1), lint, None).dimensions[1].score or 0.0)
    assert deduction.amount == pytest.approx(lost, abs=0.05)
    assert score_server(snapshot(1), [], None).dimensions[1].deductions == ()


def test_a_security_finding_is_a_security_deduction_and_a_clean_server_has_none() -> None:
    snap = snapshot(["add"], title="T", instructions="Adds numbers for the user, precisely.")
    flagged = score_server(snap, [finding("security.homoglyph", Severity.ERROR, "add")], None)
    security = next(d for d in flagged.dimensions if d.key == "security")
    (deduction,) = security.deductions
    assert (deduction.cause, deduction.tools) == ("securityFinding", ("add",))
    assert dict(deduction.params)["code"] == "security.homoglyph"
    clean = next(d for d in score_server(snap, [], None).dimensions if d.key == "security")
    assert clean.deductions == ()


def test_inconclusive_results_count_in_no_dimension() -> None:
    from dataclasses import replace

    refused = replace(case("a", "valid", Outcome.TOOL_ERROR), inconclusive="placeholder refused")
    rejection = replace(
        case("a", "wrong_type:x", Outcome.TOOL_ERROR), inconclusive="control did not work"
    )
    fuzz = run(
        [
            refused,
            rejection,
            *valid_calls(3),
            *(case("t0", f"wrong_type:{p}", Outcome.TOOL_ERROR) for p in "xyz"),
        ]
    )
    dims = score_server(snapshot(4), [], fuzz).dimensions
    assert dims[2].reasons[0].startswith("3 of 3 malformed cases rejected cleanly")
    assert dims[3].reasons[0].startswith("3 of 3 valid calls succeeded cleanly")
    conclusive = run([replace(refused, inconclusive=None), *valid_calls(3)])
    assert score_server(snapshot(4), [], conclusive).dimensions[3].score == 7.5


def test_a_run_whose_every_valid_call_is_inconclusive_leaves_liveness_not_measured() -> None:
    from dataclasses import replace

    refused = replace(case("a", "valid", Outcome.TOOL_ERROR), inconclusive="placeholder refused")
    liveness = score_server(snapshot(1), [], run([refused])).dimensions[3]
    assert liveness.score is None
    assert "inconclusive" in liveness.reasons[0]


NEEDS_WRITES, NEEDS_DESTRUCTIVE = SkipCause.NEEDS_WRITES, SkipCause.NEEDS_DESTRUCTIVE
UNKNOWN = SkipCause.UNKNOWN_REQUESTED
_TEXTS = {
    NEEDS_WRITES: needs_writes(),
    NEEDS_DESTRUCTIVE: needs_destructive(),
    SkipCause.NOT_REQUESTED: NOT_REQUESTED,
    UNKNOWN: UNKNOWN_REQUESTED,
}


def _skipped(*pairs: tuple[str, SkipCause]) -> FuzzRun:
    skipped = tuple(SkippedTool(tool, _TEXTS[cause], cause) for tool, cause in pairs)
    return FuzzRun(results=(), coverage=Coverage(len(pairs), (), skipped))


NO_CALL_RUNS = {
    "no fuzz": None,
    "consent": _skipped(("t0", NEEDS_WRITES), ("t1", NEEDS_DESTRUCTIVE), ("t2", NEEDS_DESTRUCTIVE)),
    "tools filter": _skipped(
        ("t0", SkipCause.NOT_REQUESTED),
        ("t1", SkipCause.NOT_REQUESTED),
        ("t2", SkipCause.NOT_REQUESTED),
        ("raed", UNKNOWN),
    ),
    "unbuildable": FuzzRun(
        results=(),
        coverage=Coverage(3, ("t0", "t1", "t2"), ()),
        tool_cases=tuple(ToolCases(f"t{i}", (), valid_constructible=False) for i in range(3)),
    ),
    "deadline": FuzzRun(
        results=tuple(case(f"t{i}", "valid", Outcome.NOT_RUN) for i in range(3)),
        coverage=Coverage(3, ("t0", "t1", "t2"), ()),
        deadline_hit=True,
    ),
}


@pytest.mark.parametrize("cause", sorted(NO_CALL_RUNS))
@pytest.mark.parametrize("title", [None, "Calculator"])
def test_a_run_that_called_no_tool_never_scores_above_the_same_server_fully_fuzzed(
    cause: str, title: str | None
) -> None:
    """The lead's rule (#10 item 8): without a call, the static mean (here 10 × (9|10 + 9.4 +
    10) / 3 ≈ 95) would beat the same server fuzzed and caught silently accepting garbage; so a
    server with tools that had none called gets no overall at all."""
    snap = snapshot(3, title=title)
    nit = [finding("tool.thin_description", Severity.WARNING, "t0")]
    unfuzzed = score_server(snap, nit, NO_CALL_RUNS[cause])
    faulty = run([*valid_calls(3), *(case("t0", f"wrong_type:{p}", Outcome.OK) for p in "abc")])
    clean = run(
        [*valid_calls(3), *(case("t0", f"wrong_type:{p}", Outcome.TOOL_ERROR) for p in "abc")]
    )
    fully = [score_server(snap, nit, fuzz) for fuzz in (faulty, clean)]
    static_dims = [d.score for d in unfuzzed.dimensions if d.score is not None]
    static_mean = round_half_up(10 * sum(static_dims) / len(static_dims))
    assert fully[0].overall is not None and static_mean > fully[0].overall  # the rule matters
    assert unfuzzed.overall is None and unfuzzed.grade == "-"
    assert unfuzzed.not_graded is not None
    assert unfuzzed.not_graded.startswith("no tool was called (")
    assert all(s.overall is not None and s.grade != "-" for s in fully)


@pytest.mark.parametrize(
    ("cause", "says"),
    [
        ("no fuzz", ["the audit ran without fuzz", "run with --fuzz"]),
        (
            "consent",
            [
                "3 tools need consent: 1 additive-write, 2 possibly destructive",
                "pass --fuzz-writes or --fuzz-destructive against a disposable instance",
            ],
        ),
        (
            "tools filter",
            [
                "the --tools filter matched no tool that could be called: no listed tool is "
                "named 'raed'",
                "check --tools",
            ],
        ),
        ("unbuildable", ["no case could be built for any selected tool", "--examples"]),
        (
            "deadline",
            ["every case was not run: the overall audit deadline", "raise --overall-timeout"],
        ),
    ],
)
def test_the_not_graded_reason_names_the_real_cause_and_what_to_pass(
    cause: str, says: list[str]
) -> None:
    reason = score_server(snapshot(3), [], NO_CALL_RUNS[cause]).not_graded
    assert reason is not None
    assert "Error Handling and Liveness of the tools were not measured" in reason
    for text in says:
        assert text in reason
    others = [t for c, texts in _REASON_WORDS.items() if c != cause for t in texts]
    assert not any(text in reason for text in others)  # no cause it does not have


_REASON_WORDS = {
    "no fuzz": ["without fuzz"],
    "consent": ["need consent", "--fuzz-writes"],
    "tools filter": ["--tools"],
    "unbuildable": ["no case could be built"],
    "deadline": ["deadline"],
}


def test_a_tools_filter_that_matched_a_tool_skipped_for_consent_is_not_blamed() -> None:
    """Issue 23 item 5: ``--tools t0`` matched ``t0``; it was consent that kept it uncalled."""
    matched = _skipped(
        ("t0", NEEDS_WRITES), ("t1", SkipCause.NOT_REQUESTED), ("t2", SkipCause.NOT_REQUESTED)
    )
    reason = score_server(snapshot(3), [], matched).not_graded
    assert reason is not None and "1 tool needs consent: 1 additive-write" in reason
    assert "--tools" not in reason


# What each front-end's advice must never contain: another front-end's spelling of a knob.
_FOREIGN: dict[str, tuple[str, ...]] = {
    "cli": (
        "tool input",
        "probe_report",
        "fuzzWrites",
        "fuzzDestructive",
        "maxTools",
        ": true",
        "fuzz_",
        "=True",
    ),
    "tool": ("--", "CLI", "fuzz_", "=True"),
    "library": ("--", "CLI", "tool input", "fuzzWrites", "fuzzDestructive", ": true"),
}
_OWN: dict[str, tuple[str, ...]] = {
    "cli": ("--fuzz-writes or --fuzz-destructive", "--sandbox auto"),
    "tool": ("fuzzWrites: true or fuzzDestructive: true", 'sandbox: "auto" on probe_connect'),
    "library": ("fuzz_writes=True or fuzz_destructive=True", "sandbox='auto'"),
}


@pytest.mark.parametrize("words", sorted(_FOREIGN))
@pytest.mark.parametrize("cause", sorted(NO_CALL_RUNS))
def test_the_not_graded_reason_speaks_only_the_words_of_the_front_end_that_asked(
    cause: str, words: FrontEnd
) -> None:
    """Issue 20 item 4, issue 23 item 5: the CLI never says "(probe_report: fuzz: true)" or
    "(tool input fuzzDestructive: true)", the MCP server never names a flag."""
    reason = score_server(snapshot(3), [], NO_CALL_RUNS[cause], words=words).not_graded
    assert reason is not None
    assert not [w for w in _FOREIGN[words] if w in reason], reason
    if cause == "consent":
        assert all(own in reason for own in _OWN[words]), reason


@pytest.mark.parametrize("words", sorted(_FOREIGN))
def test_the_all_inconclusive_reason_speaks_only_the_words_of_the_front_end_that_asked(
    words: FrontEnd,
) -> None:
    refused = replace(case("a", "valid", Outcome.TOOL_ERROR), inconclusive="placeholder refused")
    reason = score_server(snapshot(1), [], run([refused]), words=words).not_graded
    assert reason is not None and reason.startswith("every call was inconclusive")
    assert not [w for w in _FOREIGN[words] if w in reason], reason
    assert {"cli": "--examples FILE", "tool": "examples", "library": "examples"}[words] in reason
