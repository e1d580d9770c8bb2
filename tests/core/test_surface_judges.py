"""Pure judges of the resource, prompt and protocol checks: each verdict in both directions."""

from __future__ import annotations

from mcprobe.core.checks.catalogue import CHECKS
from mcprobe.core.checks.prompts import PromptRef, judge_get, messages_problems
from mcprobe.core.checks.protocol import judge_unknown_method, judge_unknown_method_code
from mcprobe.core.checks.records import Verdict
from mcprobe.core.checks.resources import (
    ResourceRef,
    absent_uri,
    contents_problems,
    expand_template,
    judge_not_found,
    judge_read,
    template_problem,
    template_variables,
)
from mcprobe.core.model import Dimension, RawCall, RawKind, Score
from mcprobe.core.score.surface import apply_surface


def _result(result: object) -> RawCall:
    return RawCall(RawKind.RESULT, result=result)


def _error(code: int) -> RawCall:
    return RawCall(RawKind.JSONRPC_ERROR, error_code=code, error_message="no")


def test_rfc6570_expansion_follows_each_operator() -> None:
    values = {"a": "1", "b": "2"}
    assert expand_template("x://{a}/{+b}", values) == "x://1/2"
    assert expand_template("x://p{/a,b}", values) == "x://p/1/2"
    assert expand_template("x://p{?a,b}", values) == "x://p?a=1&b=2"
    assert expand_template("x://p{#a}", values) == "x://p#1"
    assert template_variables("x://{a}/{b*}{?a}") == ["a", "b"]


def test_an_invalid_template_is_named_and_not_expanded() -> None:
    assert template_problem("x://{a") == "an unclosed `{`"
    assert template_problem("x://{}") == "an empty expression `{}`"
    assert template_problem("x://{a b}") is not None
    assert template_problem("x://{a}") is None
    assert expand_template("x://{a", {"a": "1"}) is None


def test_the_absent_uri_avoids_listed_uris_and_every_template() -> None:
    assert absent_uri([], ["docs://{page}"]) == "mcprobe-absent://nonexistent/resource-0"
    assert absent_uri([], ["{+anything}"]) is None


def test_read_contents_need_a_uri_and_exactly_one_of_text_or_base64_blob() -> None:
    assert contents_problems({"contents": [{"uri": "a:b", "text": "t"}]}, "a:b") == []
    assert contents_problems({"contents": [{"uri": "a:b", "blob": "aGk="}]}, "a:b") == []
    assert contents_problems({"contents": [{"uri": "a:b", "blob": "%%"}]}, "a:b") != []
    assert contents_problems({"contents": [{"uri": "a:b", "text": "t", "blob": "aGk="}]}, "a:b")
    assert contents_problems({"contents": [{"text": "t"}]}, "a:b") != []
    assert contents_problems({}, "a:b") == ["the result has no `contents` array"]


def test_a_listed_resource_refused_is_inconclusive_but_an_internal_error_fails() -> None:
    ref = ResourceRef("a:b", None)
    assert judge_read(ref, _error(-32002), "r")[0].verdict is Verdict.INCONCLUSIVE
    assert judge_read(ref, _error(-32603), "r")[0].verdict is Verdict.FAIL
    assert judge_read(ref, RawCall(RawKind.TIMEOUT), "r")[0].verdict is Verdict.FAIL


def test_a_mime_mismatch_is_advice_and_parameters_are_ignored() -> None:
    ref = ResourceRef("a:b", "text/plain")
    same = _result(
        {"contents": [{"uri": "a:b", "mimeType": "text/plain; charset=utf-8", "text": ""}]}
    )
    other = _result({"contents": [{"uri": "a:b", "mimeType": "text/html", "text": ""}]})
    assert [r.check for r in judge_read(ref, same, "r")] == ["resources.read"]
    mime = judge_read(ref, other, "r")[1]
    assert mime.check == "resources.read_mime" and mime.verdict is Verdict.FAIL
    assert not mime.scored_failure  # a SHOULD: reported, never scored


def test_an_unknown_uri_must_be_an_error_and_both_codes_of_both_eras_pass() -> None:
    assert [r.verdict for r in judge_not_found("u", _error(-32002), "r")] == [Verdict.PASS] * 2
    assert [r.verdict for r in judge_not_found("u", _error(-32602), "r")] == [Verdict.PASS] * 2
    assert [r.verdict for r in judge_not_found("u", _error(-32000), "r")] == [
        Verdict.PASS,
        Verdict.FAIL,
    ]
    assert judge_not_found("u", _result({"contents": []}), "r")[0].verdict is Verdict.FAIL
    assert judge_not_found("u", _error(-32603), "r")[0].verdict is Verdict.FAIL


def test_a_placeholder_argument_refused_even_internally_is_inconclusive() -> None:
    with_args = PromptRef("p", ("topic",), ("topic",))
    no_args = PromptRef("q", (), ())
    assert judge_get(with_args, _error(-32603), "r").verdict is Verdict.INCONCLUSIVE
    assert judge_get(no_args, _error(-32603), "r").verdict is Verdict.FAIL
    assert judge_get(with_args, RawCall(RawKind.TIMEOUT), "r").verdict is Verdict.FAIL


def test_prompt_messages_need_a_user_or_assistant_role_and_a_known_content_block() -> None:
    good = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}
    assert messages_problems(good) == []
    bad = {"messages": [{"role": "system", "content": {"type": "video"}}]}
    assert len(messages_problems(bad)) == 2


def test_every_check_cites_a_clause_and_a_fix() -> None:
    for spec in CHECKS.values():
        assert spec.clause and spec.hint and spec.title, spec.check


def _score(*dims: Dimension) -> Score:
    return Score(overall=None, grade="-", dimensions=dims)


def test_surface_failures_deduct_from_a_measured_dimension_up_to_the_cap() -> None:
    score = _score(Dimension("metadata", "Metadata", 10.0, ()))
    fails = [CHECKS["protocol.ping"].result(Verdict.FAIL, "x")] * 5
    after = apply_surface(score, fails)
    assert after.dimensions[0].score == 7.0
    assert [d.cause for d in after.dimensions[0].deductions] == ["surfaceCheck"]
    assert after.overall == 70


def test_without_fuzz_three_conclusive_checks_measure_a_dimension_and_two_do_not() -> None:
    dim = Dimension("errorHandling", "Error Handling", None, ("not measured",))
    two = [
        CHECKS["prompts.unknown_name"].result(Verdict.PASS, "x"),
        CHECKS["resources.not_found"].result(Verdict.FAIL, "x"),
    ]
    too_few = apply_surface(_score(dim), two).dimensions[0]
    assert too_few.score is None
    # mcprobe's own reason line: no "<" that the Markdown escaper would turn into "&lt;"
    assert too_few.reasons[-1] == (
        "only 2 conclusive resource/prompt checks (at least 3 needed): not measured by them either"
    )
    three = [*two, CHECKS["prompts.missing_argument"].result(Verdict.PASS, "x")]
    assert apply_surface(_score(dim), three).dimensions[0].score == 6.7


def test_checks_that_measure_error_handling_never_grade_a_server_whose_tools_were_not_called() -> (
    None
):
    dims = (
        Dimension("metadata", "Metadata", 10.0, ()),
        Dimension("errorHandling", "Error Handling", None, ("not measured",)),
    )
    checks = [
        CHECKS["prompts.unknown_name"].result(Verdict.PASS, "x"),
        CHECKS["resources.not_found"].result(Verdict.PASS, "x"),
        CHECKS["prompts.missing_argument"].result(Verdict.PASS, "x"),
    ]
    ungraded = Score(overall=None, grade="-", dimensions=dims, not_graded="no tool was called")
    after = apply_surface(ungraded, checks)
    assert after.dimensions[1].score == 10.0  # the dimension is still measured and shown
    assert (after.overall, after.grade, after.not_graded) == (None, "-", "no tool was called")
    no_tools = apply_surface(Score(overall=100, grade="A", dimensions=dims), checks)
    assert (no_tools.overall, no_tools.grade, no_tools.not_graded) == (100, "A", None)


def test_version_negotiation_fails_on_an_echo_or_a_refusal_and_is_inconclusive_when_lost() -> None:
    from mcprobe.core.checks.protocol import UNKNOWN_VERSION, judge_version_negotiation

    known = ("2025-06-18", "2025-11-25")

    def verdict(answered: object, refused: str | None = None, lost: str | None = None) -> Verdict:
        return judge_version_negotiation(answered, known, "r", refused=refused, lost=lost).verdict

    assert verdict("2025-11-25") is Verdict.PASS
    assert verdict(UNKNOWN_VERSION) is Verdict.FAIL
    assert (
        verdict(None, refused="initialize was rejected with JSON-RPC error -32602") is Verdict.FAIL
    )
    assert verdict(None, lost="target exited with code 1") is Verdict.INCONCLUSIVE
    assert verdict("1999-01-01") is Verdict.INCONCLUSIVE


def test_an_unknown_method_rejected_with_any_code_meets_the_must_and_the_code_is_advice() -> None:
    """Issue 23 item 4: the mcp Python SDK 1.x answers -32602; a wrong code is an SDK-level
    detail (no points, like the TypeScript SDK's -32603 for ``arguments: []``), and the note
    says which release fixes it."""
    sent = "mcprobe/nonexistent_method {}"
    sdk1 = _error(-32602)
    assert judge_unknown_method(sdk1, sent).verdict is Verdict.PASS
    code = judge_unknown_method_code(sdk1, sent)
    assert code is not None and code.verdict is Verdict.FAIL and not code.scored_failure
    assert "mcp 2.x answers -32601" in code.message
    clean = judge_unknown_method_code(_error(-32601), sent)
    assert clean is not None and clean.verdict is Verdict.PASS
    # a result, or no answer, is still the MUST failure (and no code to judge)
    answered = _result({"ok": True})
    assert judge_unknown_method(answered, sent).scored_failure
    assert judge_unknown_method_code(answered, sent) is None
