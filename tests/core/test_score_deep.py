"""The deep pass in the score (issue 25 item 5): a separate deduction inside Error Handling and
Liveness, −1 per distinct finding (tool, verdict, field), at most −4 per dimension."""

from __future__ import annotations

from mcprobe.core.deep.describe import deep_dimension, deep_verdict_key
from mcprobe.core.deep.model import DeepRun, Oracle
from mcprobe.core.model import CaseResult, Coverage, Dimension, FuzzRun, Outcome, ServerSnapshot
from mcprobe.core.score.dimensions import score_server
from mcprobe.core.verdicts import VERDICTS_BY_KEY, deduction_fix, deduction_reason
from tests.support import builders, deep_runs


def _run(results: list[CaseResult]) -> FuzzRun:
    names = tuple(dict.fromkeys(r.tool for r in results))
    return FuzzRun(
        results=tuple(results),
        coverage=Coverage(total_tools=len(names), fuzzed_tools=names, skipped=()),
    )


def _fuzz() -> FuzzRun:
    """Three tools, each with a clean valid call and a cleanly refused malformed one: 10/10."""
    results = []
    for name in ("greet", "divide", "echo"):
        results.append(builders.case_result(name, "valid", Outcome.OK))
        results.append(builders.case_result(name, "wrong_type:x", Outcome.TOOL_ERROR))
    return _run(results)


def _snapshot() -> ServerSnapshot:
    return builders.snapshot(
        [builders.tool(n) for n in ("greet", "divide", "echo")],
        name="demo",
        version="1",
        title="Demo",
        instructions="Three tools that greet, divide and echo; all read-only.",
        capabilities={"tools": {}},
    )


_DEFAULT_FUZZ = object()


def _dimension(key: str, deep: DeepRun | None = None, fuzz: object = _DEFAULT_FUZZ) -> Dimension:
    run = _fuzz() if fuzz is _DEFAULT_FUZZ else fuzz
    assert run is None or isinstance(run, FuzzRun)
    score = score_server(_snapshot(), [], run, deep=deep)
    return next(d for d in score.dimensions if d.key == key)


def test_every_oracle_has_its_deep_verdict_in_the_catalogue() -> None:
    keys = [deep_verdict_key(o) for o in Oracle]
    assert keys == [
        "deepCrash",
        "deepHang",
        "deepRuntimeError",
        "deepErrorAsSuccess",
        "deepSchemaContradiction",
        "deepDifferential",
        "deepOutputSchema",
        "deepCorruption",
    ]
    for oracle in Oracle:
        kind = VERDICTS_BY_KEY[deep_verdict_key(oracle)]
        assert kind.dimensions == frozenset({deep_dimension(oracle)})
        assert kind.sarif_id == f"deep.{oracle.value}"


def test_crash_and_hang_cost_liveness_and_the_other_oracles_cost_error_handling() -> None:
    assert {o for o in Oracle if deep_dimension(o) == "liveness"} == {Oracle.CRASH, Oracle.HANG}


def test_a_runtime_error_on_a_valid_edge_costs_error_handling_one_point() -> None:
    found = deep_runs.finding("greet", Oracle.RUNTIME_ERROR, "name", "emptyString")
    deep = deep_runs.run(deep_runs.tool("greet", found))
    before = _dimension("errorHandling")
    after = _dimension("errorHandling", deep)
    assert before.score == 10.0
    assert after.score == 9.0
    [deduction] = [d for d in after.deductions if d.cause == "deepRuntimeError"]
    assert deduction.amount == 1.0
    assert deduction.tools == ("greet",)
    assert dict(deduction.params)["field"] == "name"
    assert dict(deduction.params)["edge"] == "emptyString"
    assert "−1: deep runtime error: `greet` threw on `name` = an empty string" in after.reasons
    assert _dimension("liveness", deep).score == 10.0


def test_a_deep_fix_says_what_to_validate_with_the_deductions_field_and_edge() -> None:
    found = deep_runs.finding("greet", Oracle.RUNTIME_ERROR, "name", "emptyString")
    deep = deep_runs.run(deep_runs.tool("greet", found))
    [deduction] = [d for d in _dimension("errorHandling", deep).deductions]
    fix = deduction_fix(deduction.cause, deduction.params)
    assert fix.startswith("Validate `name` of `greet` before use: an empty string is schema-valid")


def test_a_crash_on_a_valid_edge_costs_liveness_not_error_handling() -> None:
    found = deep_runs.finding("divide", Oracle.CRASH, "b", "negativeZero")
    deep = deep_runs.run(deep_runs.tool("divide", found))
    assert _dimension("liveness", deep).score == 9.0
    assert _dimension("errorHandling", deep).score == 10.0
    assert [d.cause for d in _dimension("liveness", deep).deductions] == ["deepCrash"]


def test_edges_of_one_field_showing_one_oracle_are_one_finding_naming_the_others() -> None:
    findings = [
        deep_runs.finding("greet", Oracle.RUNTIME_ERROR, "name", edge)
        for edge in ("emptyString", "whitespace", "nul")
    ]
    deep = deep_runs.run(deep_runs.tool("greet", *findings))
    dimension = _dimension("errorHandling", deep)
    assert dimension.score == 9.0
    [deduction] = dimension.deductions
    assert dict(deduction.params)["more"] == " (and 2 more: whitespace, nul)"


def test_deep_deductions_stop_at_four_points_per_dimension_with_a_reason_for_the_rest() -> None:
    findings = [
        deep_runs.finding("greet", Oracle.RUNTIME_ERROR, f"f{n}", "emptyString") for n in range(6)
    ]
    deep = deep_runs.run(deep_runs.tool("greet", *findings))
    dimension = _dimension("errorHandling", deep)
    assert dimension.score == 6.0
    assert sum(d.amount for d in dimension.deductions) == 4.0
    capped = [r for r in dimension.reasons if r.endswith("the −4 deep cap is already reached")]
    assert len(capped) == 2
    assert "6 findings, −1 each, at most −4" in " ".join(dimension.reasons)


def test_the_deep_deduction_comes_after_the_malformed_case_rate_and_does_not_change_it() -> None:
    results = [builders.case_result(n, "valid", Outcome.OK) for n in ("greet", "divide", "echo")]
    results += [
        builders.case_result("greet", "wrong_type:x", Outcome.OK, flags={"silentlyAccepted"})
    ]
    results += [builders.case_result(n, "wrong_type:x", Outcome.TOOL_ERROR) for n in ("a", "b")]
    fuzz = _run(results)
    found = deep_runs.finding("greet", Oracle.DIFFERENTIAL, "name", "zero")
    deep = deep_runs.run(deep_runs.tool("greet", found))
    before = _dimension("errorHandling", fuzz=fuzz)
    after = _dimension("errorHandling", deep, fuzz=fuzz)
    assert before.reasons[0] == after.reasons[0]  # "2 of 3 malformed cases rejected cleanly"
    assert before.score is not None and after.score == before.score - 1.0


def test_a_dimension_not_measured_stays_not_measured_whatever_the_deep_pass_found() -> None:
    found = deep_runs.finding("greet", Oracle.RUNTIME_ERROR, "name", "emptyString")
    deep = deep_runs.run(deep_runs.tool("greet", found))
    dimension = _dimension("errorHandling", deep, fuzz=None)
    assert dimension.score is None
    assert not dimension.deductions
    assert "not scored (the dimension is not measured" in dimension.reasons[-1]


def test_a_deep_run_without_findings_changes_nothing_but_a_reason_line_counting_its_calls() -> None:
    deep = deep_runs.run(deep_runs.tool("greet", planned=5), deep_runs.tool("echo", planned=3))
    for key in ("errorHandling", "liveness"):
        before, after = _dimension(key), _dimension(key, deep)
        assert after.score == before.score
        assert after.deductions == before.deductions
        assert after.reasons == (
            *before.reasons,
            "deep pass (seed 0): 8 schema-valid edge calls judged on 2 tools, no finding",
        )


def test_without_a_deep_run_the_score_is_what_it_always_was() -> None:
    assert _dimension("errorHandling", None) == _dimension("errorHandling")


def test_every_deep_verdict_has_a_reason_and_a_fix_formatted_from_its_params() -> None:
    for oracle in Oracle:
        found = deep_runs.finding("t", oracle, "f", "zero")
        deep = deep_runs.run(deep_runs.tool("t", found))
        dimension = _dimension(deep_dimension(oracle), deep)
        [deduction] = dimension.deductions
        assert deduction.cause == deep_verdict_key(oracle)
        assert "`t`" in deduction_reason(deduction) and "zero" in deduction_reason(deduction)
        fix = deduction_fix(deduction.cause, deduction.params)
        assert "`f`" in fix and "{" not in fix
