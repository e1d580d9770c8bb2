"""The recommended-fix plan: every deduction maps to a fix, identical behaviour is one fix, and
protocol-level behaviour is named as such. Reports are built through the real scorer."""

from __future__ import annotations

from mcprobe.core.model import (
    Coverage,
    FuzzRun,
    Outcome,
)
from mcprobe.core.score.dimensions import score_server
from mcprobe.report.build import build_report
from mcprobe.report.fix_plan import deducted, plan_fixes
from mcprobe.report.model import DimensionOut
from tests.support.fix_plan_reports import (
    EVERYTHING_TOOLS,
    audit,
    everything_report,
    rejected_probe,
    server,
    time_server_report,
)
from tests.support.synthetic_audits import result


def test_time_server_report_maps_every_deduction_to_a_fix() -> None:
    report = time_server_report()
    assert {d.key: d.score for d in report.dimensions} == {
        "metadata": 6.0,  # the empty prompts/resources lists are honest answers
        "schemaQuality": 10.0,
        "errorHandling": 10.0,
        "liveness": None,  # two valid calls are too few to score; their fixes stay (below)
        "security": 10.0,
    }
    plan = plan_fixes(report)
    assert report.fixes == plan  # computed once, by build_report, into the report
    assert not plan.empty
    assert plan.uncovered == []
    assert len(plan.metadata) == 2
    assert not any("capability" in fix for fix in plan.metadata)
    assert any("`serverInfo.title`" in fix for fix in plan.metadata)
    assert any("Send `instructions`" in fix for fix in plan.metadata)
    assert [(f.kind, f.tools) for f in plan.behaviour] == [
        ("rejectedValid", ["get_current_time"]),
        ("rejectedValid", ["convert_time"]),
    ]


def test_same_internal_error_from_every_tool_is_one_protocol_level_fix() -> None:
    plan = plan_fixes(everything_report())
    (fix,) = plan.behaviour
    assert fix.kind == "internalError"
    assert fix.tools == list(EVERYTHING_TOOLS)
    assert fix.case_kinds == ["non_object_arguments"]
    assert fix.protocol_level
    assert plan.uncovered == []


def test_a_tool_answering_the_case_differently_makes_it_not_protocol_level() -> None:
    results = [
        result(n, "non_object_arguments", Outcome.PROTOCOL_ERROR, [], error_code=-32603)
        for n in ("a", "b")
    ] + [result("c", "non_object_arguments", Outcome.PROTOCOL_ERROR, [], error_code=-32602)]
    (fix,) = plan_fixes(audit(server(["a", "b", "c"]), results)).behaviour
    assert fix.tools == ["a", "b"]
    assert not fix.protocol_level


def test_one_tool_alone_is_never_called_protocol_level() -> None:
    results = [result("a", "non_object_arguments", Outcome.PROTOCOL_ERROR, [], error_code=-32603)]
    (fix,) = plan_fixes(audit(server(["a"]), results)).behaviour
    assert not fix.protocol_level


def test_tools_failing_in_their_own_words_are_grouped_but_not_protocol_level() -> None:
    results = [
        result(
            n, "wrong_type:x", Outcome.OK, {"x": 1}, flags={"silentlyAccepted"}, message=f"{n} ok"
        )
        for n in ("a", "b")
    ]
    (fix,) = plan_fixes(audit(server(["a", "b"]), results)).behaviour
    assert (fix.kind, fix.tools, fix.protocol_level) == ("silentlyAccepted", ["a", "b"], False)


def test_different_problems_or_case_kinds_stay_separate_fixes() -> None:
    results = [
        result("a", "wrong_type:x", Outcome.OK, {"x": 1}, flags={"silentlyAccepted"}),
        result("b", "null_value:x", Outcome.OK, {"x": None}, flags={"silentlyAccepted"}),
        result("c", "wrong_type:x", Outcome.PROTOCOL_ERROR, {"x": 1}, error_code=-32603),
    ]
    plan = plan_fixes(audit(server(["a", "b", "c"]), results))
    assert [(f.kind, f.tools) for f in plan.behaviour] == [
        ("silentlyAccepted", ["a"]),
        ("silentlyAccepted", ["b"]),
        ("internalError", ["c"]),
    ]


def test_rejected_valid_calls_group_only_when_the_answer_is_identical() -> None:
    refusal = "Tool requires task augmentation"
    same = [result(n, "valid", Outcome.TOOL_ERROR, {}, message=refusal) for n in ("a", "b")]
    other = result("c", "valid", Outcome.TOOL_ERROR, {}, message="bad input")
    plan = plan_fixes(audit(server(["a", "b", "c"]), [*same, other]))
    assert [(f.kind, f.tools, f.protocol_level) for f in plan.behaviour] == [
        ("rejectedValid", ["a", "b"], False),  # c was sent a valid call and answered otherwise
        ("rejectedValid", ["c"], False),
    ]
    (alone,) = plan_fixes(audit(server(["a", "b"]), same)).behaviour
    assert alone.protocol_level


def test_a_clean_fuzzed_server_has_an_empty_plan() -> None:
    results = [result("a", "valid", Outcome.OK, {}, message="fine")]
    report = audit(server(["a"]), results, probe=rejected_probe())
    assert not any(deducted(d) for d in report.dimensions)
    assert plan_fixes(report).empty


def test_latency_penalty_gets_its_own_fix() -> None:
    results = [
        result(n, "valid", Outcome.OK, {}, message="fine", latency_ms=600.0) for n in "abc"
    ]  # three valid calls: enough to measure liveness
    plan = plan_fixes(audit(server(["a", "b", "c"]), results))
    assert plan.other == [
        "Answer valid calls faster: their p50 latency is 600 ms, over the 200 ms budget "
        "(−0.5 per 100 ms over); move slow work off the call path, or cache it."
    ]
    assert plan.uncovered == []


def test_unknown_tool_answered_with_an_internal_error_needs_a_fix() -> None:
    probe = result("nope", "unknown_tool", Outcome.PROTOCOL_ERROR, {}, error_code=-32603)
    report = audit(server(["a"]), [result("a", "valid", Outcome.OK, {}, message="x")], probe=probe)
    plan = plan_fixes(report)
    assert plan.unknown_tool is not None
    assert "internal error (-32603)" in plan.unknown_tool.why
    assert plan.uncovered == []


def test_a_deduction_with_no_known_fix_is_listed_as_uncovered() -> None:
    report = audit(server(["a"]), [result("a", "valid", Outcome.OK, {}, message="x")])
    odd = DimensionOut(key="metadata", name="Metadata", score=9.0, measured=True, reasons=["odd"])
    report = report.model_copy(update={"dimensions": [odd]})
    assert plan_fixes(report).uncovered == ["metadata"]


def test_a_crash_fix_covers_the_calls_that_died_with_the_target() -> None:
    results = [
        result("a", "wrong_type:x", Outcome.PROTOCOL_CRASH, {"x": 1}),
        result("b", "valid", Outcome.PROTOCOL_CRASH, {}),
    ]
    snapshot = server(["a", "b"])
    fuzz = FuzzRun(
        results=tuple(results),
        coverage=Coverage(total_tools=2, fuzzed_tools=("a", "b"), skipped=()),
        crashed_by=("a", "wrong_type:x"),
    )
    report = build_report(
        snapshot, (), score_server(snapshot, (), fuzz), fuzz, mcprobe_version="0.1.0"
    )
    plan = plan_fixes(report)
    assert [(f.kind, f.tools) for f in plan.behaviour] == [("crash", ["a"])]
    assert plan.uncovered == []
