"""The oracles of deep fuzzing (issue 25 item 3): each edge's answer judged against the base and
against the field's other edges. Every oracle has a positive case and an honest look-alike that
must stay silent. Answers are ``RawCall`` values built by hand."""

from __future__ import annotations

import cProfile
import pstats

import pytest

from mcprobe.core.deep.model import DeepAnswer, DeepFinding, DeepPlan, Edge, Oracle
from mcprobe.core.deep.oracles import judge_corruption, judge_tool
from mcprobe.core.model import JSON, CaseSource, RawCall, RawKind

BASE: dict[str, JSON] = {"name": "ada", "query": "rivers"}
PROPS: dict[str, JSON] = {
    "name": {"type": "string"},
    "query": {"type": "string", "description": "what to look for"},
    "path": {"type": "string"},
    "limit": {"type": "integer"},
    "timeoutMs": {"type": "integer"},
    "budget": {"type": "integer", "description": "How long to wait, in seconds"},
}


def _tool(output_schema: JSON = None) -> dict[str, JSON]:
    tool: dict[str, JSON] = {
        "name": "lookup",
        "inputSchema": {"type": "object", "properties": PROPS},
    }
    if output_schema is not None:
        tool["outputSchema"] = output_schema
    return tool


def _edge(field: str, edge: str, value: JSON) -> Edge:
    return Edge(
        tool="lookup",
        field=field,
        edge=edge,
        value=value,
        arguments={**BASE, field: value},
        label=f"deep:{field}:{edge}",
    )


def _ok(text: str = "3 rows", structured: JSON = None, latency: float = 5.0) -> RawCall:
    result: dict[str, JSON] = {"content": [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    return RawCall(RawKind.RESULT, latency, result=result)


def _refused(text: str) -> RawCall:
    return RawCall(
        RawKind.RESULT, 5.0, result={"content": [{"type": "text", "text": text}], "isError": True}
    )


def _rpc(code: int, message: str) -> RawCall:
    return RawCall(RawKind.JSONRPC_ERROR, 5.0, error_code=code, error_message=message)


TIMEOUT = RawCall(RawKind.TIMEOUT, 10_000.0, detail="no answer within 10 s")
LOST = RawCall(RawKind.TRANSPORT_LOST, 3.0, detail="the process exited (code 1)")


def _judge(
    *answers: tuple[Edge, RawCall] | DeepAnswer,
    base: RawCall | None = None,
    tool: dict[str, JSON] | None = None,
) -> tuple[DeepFinding, ...]:
    deep = [a if isinstance(a, DeepAnswer) else DeepAnswer(a[0], a[1]) for a in answers]
    plan = DeepPlan(
        tool="lookup", base=BASE, base_source=CaseSource.USER, edges=tuple(a.edge for a in deep)
    )
    return judge_tool(tool or _tool(), plan, base or _ok(), deep, call_timeout=10.0)


def _oracles(findings: tuple[DeepFinding, ...]) -> list[tuple[str, Oracle]]:
    return [(f.field, f.oracle) for f in findings]


# --------------------------------------------------------------------------- runtime error


def test_a_javascript_type_error_on_one_edge_is_a_runtime_error_with_its_evidence() -> None:
    edge = _edge("name", "nul", "\x00")
    findings = _judge(
        (_edge("name", "emptyString", ""), _ok()),
        (edge, _refused("TypeError: Cannot read properties of undefined (reading 'trim')")),
    )
    assert _oracles(findings) == [("name", Oracle.RUNTIME_ERROR)]
    (finding,) = findings
    assert finding.arguments == {**BASE, "name": "\x00"}
    assert finding.base == BASE
    assert finding.label == edge.label
    assert "Cannot read properties of undefined" in finding.answer
    assert "JavaScript runtime error" in finding.why


def test_an_internal_error_with_python_exception_text_is_a_runtime_error() -> None:
    findings = _judge(
        (_edge("name", "nonAscii", "é"), _rpc(-32603, "'ascii' codec can't encode character")),
        (_edge("name", "emptyString", ""), _refused("name must not be empty")),
    )
    assert _oracles(findings) == [("name", Oracle.RUNTIME_ERROR)]
    assert findings[0].answer.startswith("JSON-RPC error -32603")


def test_a_reasonless_error_executing_tool_is_a_runtime_error() -> None:
    findings = _judge(
        (_edge("name", "protoKey", "__proto__"), _refused("Error executing tool lookup"))
    )
    assert _oracles(findings) == [("name", Oracle.RUNTIME_ERROR)]


@pytest.mark.parametrize(
    "words",
    [
        "'NoneType' object has no attribute 'lower'",
        "x.map is not a function",
        "Cannot read property 'length' of undefined",
        "undefined is not an object (evaluating 'a.b')",
        "'utf-8' codec can't decode byte 0xff in position 0",
        "KeyError: 'ada'",
        "list index out of range",
        "invalid literal for int() with base 10: 'x'",
        "ValueError: embedded null byte",
        "RangeError: Invalid array length",
        "Maximum call stack size exceeded",
        'Traceback (most recent call last):\n  File "app.py", line 3, in run',
        "An unexpected error occurred, see the server log for details",
        "Error executing tool lookup: ",
    ],
)
def test_each_runtime_signature_is_a_runtime_error(words: str) -> None:
    findings = _judge(
        (_edge("name", "nul", "\x00"), _refused(words)),
        (_edge("name", "emptyString", ""), _refused("name must not be empty")),
    )
    assert _oracles(findings) == [("name", Oracle.RUNTIME_ERROR)]


def test_an_argument_that_contains_type_error_echoed_back_is_no_runtime_error() -> None:
    echoed = "TypeError: x.map is not a function"
    findings = _judge(
        (_edge("name", "nonAscii", echoed), _refused(f"No person is called {echoed}")),
        (_edge("name", "emptyString", ""), _refused("No person is called ''")),
    )
    assert findings == ()


def test_enoent_on_the_path_that_was_sent_is_a_proper_refusal() -> None:
    path = "/data/reports/missing.txt"
    traceback = (
        'Traceback (most recent call last):\n  File "server.py", line 9\n'
        f"FileNotFoundError: [Errno 2] No such file or directory: '{path}'"
    )
    findings = _judge(
        (_edge("path", "nonAscii", path), _refused(traceback)),
        (_edge("path", "emptyString", ""), _refused("path must not be empty")),
    )
    assert findings == ()


def test_the_same_exception_text_on_every_edge_of_a_field_is_validation() -> None:
    words = "TypeError: name must be a non-empty string"
    findings = _judge(
        (_edge("name", "emptyString", ""), _refused(words)),
        (_edge("name", "whitespace", "   "), _refused(words)),
        (_edge("name", "nul", "\x00"), _refused(words)),
    )
    assert findings == ()


def test_the_same_exception_class_with_an_authors_reason_on_every_refused_edge_is_validation() -> (
    None
):
    words = "TypeError: name must be a non-empty string"
    findings = _judge(
        (_edge("name", "emptyString", ""), _refused(words)),
        (_edge("name", "whitespace", "   "), _refused(words)),
        (_edge("name", "oneChar", "a"), _ok()),
    )
    assert findings == ()


def test_a_runtime_message_on_every_refused_edge_is_still_a_runtime_error() -> None:
    words = "TypeError: Cannot read properties of undefined (reading 'trim')"
    findings = _judge(
        (_edge("name", "emptyString", ""), _refused(words)),
        (_edge("name", "whitespace", "   "), _refused(words)),
        (_edge("name", "oneChar", "a"), _ok()),
    )
    assert _oracles(findings) == [("name", Oracle.RUNTIME_ERROR)]


def test_a_field_failing_on_many_edges_is_one_finding_naming_the_first_edge_and_the_count() -> None:
    crash = "AttributeError: 'NoneType' object has no attribute 'strip'"
    first, second, third = (
        _edge("name", "emptyString", ""),
        _edge("name", "whitespace", " "),
        _edge("name", "nul", "\x00"),
    )
    deep = [DeepAnswer(e, _refused(crash)) for e in (third, first, second)]  # sent out of order
    deep.append(DeepAnswer(_edge("name", "oneChar", "a"), _ok()))
    plan = DeepPlan(
        tool="lookup",
        base=BASE,
        base_source=CaseSource.SCHEMA,
        edges=(first, second, third, deep[-1].edge),
    )
    findings = judge_tool(_tool(), plan, _ok(), deep, call_timeout=10.0)
    assert _oracles(findings) == [("name", Oracle.RUNTIME_ERROR)]
    assert findings[0].label == first.label
    assert "2 more edges" in findings[0].why


# --------------------------------------------------------------------------- differential


def test_an_internal_error_where_the_fields_other_edges_get_clean_refusals_is_a_differential() -> (
    None
):
    findings = _judge(
        (_edge("name", "emptyString", ""), _refused("name must not be empty")),
        (_edge("name", "whitespace", " "), _refused("name must not be blank")),
        (_edge("name", "nul", "\x00"), _rpc(-32603, "Internal error")),
    )
    assert _oracles(findings) == [("name", Oracle.DIFFERENTIAL)]
    assert findings[0].edge == "nul"
    assert "JSON-RPC error -32603" in findings[0].why


def test_an_internal_error_where_the_fields_other_edges_succeed_is_a_differential() -> None:
    findings = _judge(
        (_edge("query", "emptyString", ""), _ok("0 rows")),
        (_edge("query", "jsonLooking", "{}"), _rpc(-32603, "Internal error")),
    )
    assert _oracles(findings) == [("query", Oracle.DIFFERENTIAL)]


def test_an_unrelated_error_class_among_clean_refusals_is_a_differential() -> None:
    findings = _judge(
        (_edge("query", "emptyString", ""), _refused("query must not be empty")),
        (
            _edge("query", "nonAscii", "ümlaut"),
            _refused("PermissionError: [Errno 13] Permission denied: '/var/cache/idx'"),
        ),
    )
    assert _oracles(findings) == [("query", Oracle.DIFFERENTIAL)]


def test_clean_refusals_of_one_kind_on_every_edge_are_no_differential() -> None:
    findings = _judge(
        (_edge("name", "emptyString", ""), _refused("name must not be empty")),
        (_edge("name", "whitespace", " "), _refused("name must contain a letter")),
        (_edge("limit", "zero", 0), _rpc(-32602, "Invalid params: limit must be positive")),
        (_edge("limit", "minusOne", -1), _rpc(-32602, "Invalid params: limit out of range")),
    )
    assert findings == ()


def test_enoent_on_the_sent_path_among_other_refusals_is_no_differential() -> None:
    path = "/srv/data/report.txt"
    findings = _judge(
        (_edge("path", "emptyString", ""), _refused("path is required")),
        (
            _edge("path", "nested", path),
            _refused(f"Error: ENOENT: no such file or directory, open '{path}'"),
        ),
    )
    assert findings == ()


def test_enoent_on_a_short_sent_path_resolved_under_the_root_is_no_differential() -> None:
    findings = _judge(
        (_edge("path", "emptyString", ""), _refused("path is required")),
        (
            _edge("path", "whitespace", "   "),
            _refused("Error: ENOENT: no such file or directory, open '/srv/data/   '"),
        ),
    )
    assert findings == ()


# --------------------------------------------------------------------------- error as success


def test_an_ok_result_reporting_a_database_error_is_an_error_as_success() -> None:
    findings = _judge(
        (
            _edge("query", "protoKey", "constructor"),
            _ok('{"success": false, "error": "Database error: no such column"}'),
        ),
    )
    assert _oracles(findings) == [("query", Oracle.ERROR_AS_SUCCESS)]
    assert "Database error" in findings[0].answer


def test_a_base_that_always_reports_success_false_makes_no_error_as_success() -> None:
    talk = '{"success": false, "error": "nothing matched"}'
    findings = _judge((_edge("query", "protoKey", "constructor"), _ok(talk)), base=_ok(talk))
    assert findings == ()


def test_an_environment_message_in_an_answer_is_no_finding() -> None:
    findings = _judge(
        (_edge("query", "emptyString", ""), _ok("Error: getaddrinfo ENOTFOUND api.example.com")),
        (
            _edge("name", "nul", "\x00"),
            _rpc(-32603, "fetch failed: getaddrinfo ENOTFOUND api.example.com"),
        ),
    )
    assert findings == ()


def test_an_environment_message_the_base_also_got_does_not_excuse_the_edge() -> None:
    noise = "warning: getaddrinfo ENOTFOUND telemetry.example.com"
    findings = _judge(
        (_edge("name", "nul", "\x00"), _refused(f"{noise}\nTypeError: s.trim is not a function")),
        base=_ok(f"{noise}\n3 rows"),
    )
    assert _oracles(findings) == [("name", Oracle.RUNTIME_ERROR)]


# --------------------------------------------------------------------------- schema contradiction


def test_a_json_looking_string_refused_as_not_a_list_is_a_schema_contradiction() -> None:
    findings = _judge(
        (
            _edge("name", "jsonLooking", "[]"),
            _refused("1 validation error for call[lookup]\nname\n  Input should be a valid list"),
        ),
        (_edge("query", "jsonLooking", "{}"), _rpc(-32602, "Expected object, received string")),
    )
    assert _oracles(findings) == [
        ("name", Oracle.SCHEMA_CONTRADICTION),
        ("query", Oracle.SCHEMA_CONTRADICTION),
    ]
    assert "`array`" in findings[0].why and "`string`" in findings[0].why


def test_a_string_the_validator_says_it_received_as_a_list_is_a_schema_contradiction() -> None:
    pydantic = (
        "1 validation error for lookupArguments\nname\n  Input should be a valid string "
        "[type=string_type, input_value=[], input_type=list]"
    )
    findings = _judge(
        (_edge("name", "jsonLooking", "[]"), _refused(pydantic)),
        (_edge("query", "jsonLooking", "null"), _refused("Expected string, received null")),
    )
    assert _oracles(findings) == [
        ("name", Oracle.SCHEMA_CONTRADICTION),
        ("query", Oracle.SCHEMA_CONTRADICTION),
    ]
    assert "`array`" in findings[0].why


def test_a_type_error_naming_a_type_the_schema_allows_is_no_schema_contradiction() -> None:
    findings = _judge(
        (_edge("name", "jsonLooking", "null"), _refused("name must be a string of letters")),
        (_edge("limit", "int53", 2**53 + 1), _refused("limit must be a number below 1000")),
        (_edge("path", "emptyString", ""), _refused("Expected a path, received string ''")),
    )
    assert findings == ()


# --------------------------------------------------------------------------- hang


def test_a_timeout_where_the_base_answered_fast_is_a_hang() -> None:
    findings = _judge((_edge("query", "nul", "\x00"), TIMEOUT), base=_ok(latency=20.0))
    assert _oracles(findings) == [("query", Oracle.HANG)]
    assert "20 ms" in findings[0].why


def test_a_timeout_after_a_slow_base_is_no_hang() -> None:
    assert _judge((_edge("query", "nul", "\x00"), TIMEOUT), base=_ok(latency=2_000.0)) == ()


def test_a_timeout_on_a_duration_field_is_no_hang() -> None:
    findings = _judge(
        (_edge("timeoutMs", "int32", 2**31), TIMEOUT),
        (_edge("budget", "int32", 2**31), TIMEOUT),  # duration-like by its description
    )
    assert findings == ()


def test_a_timeout_when_a_count_field_is_raised_to_a_large_number_is_no_hang() -> None:
    assert _judge((_edge("limit", "int32", 2**31), TIMEOUT)) == ()
    assert _oracles(_judge((_edge("limit", "zero", 0), TIMEOUT))) == [("limit", Oracle.HANG)]


# --------------------------------------------------------------------------- crash


def test_a_death_that_reproduced_when_replayed_alone_is_a_crash() -> None:
    answer = DeepAnswer(
        _edge("name", "nul", "\x00"), LOST, stderr="Segmentation fault", replayed=True
    )
    findings = _judge(answer)
    assert _oracles(findings) == [("name", Oracle.CRASH)]
    assert findings[0].stderr == "Segmentation fault"


def test_a_death_that_was_not_replayed_is_no_crash() -> None:
    assert _judge(DeepAnswer(_edge("name", "nul", "\x00"), LOST, replayed=False)) == ()


# --------------------------------------------------------------------------- output schema

OUTPUT = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}


def test_structured_content_breaking_the_output_schema_on_an_edge_is_an_output_schema_finding() -> (
    None
):
    findings = _judge(
        (_edge("query", "emptyString", ""), _ok("many", {"count": "many"})),
        base=_ok("1", {"count": 1}),
        tool=_tool(OUTPUT),
    )
    assert _oracles(findings) == [("query", Oracle.OUTPUT_SCHEMA)]


def test_an_output_schema_violation_the_base_shows_too_is_no_finding() -> None:
    findings = _judge(
        (_edge("query", "emptyString", ""), _ok("many", {"count": "many"})),
        base=_ok("one", {"count": "one"}),
        tool=_tool(OUTPUT),
    )
    assert findings == ()


# --------------------------------------------------------------------------- read after write

WRITE = _edge("name", "nul", "\x00")


def _corruption(before: RawCall, after: RawCall) -> DeepFinding | None:
    return judge_corruption(
        DeepAnswer(WRITE, _ok("saved")), "read_rows", {"table": "people"}, before, after, BASE
    )


def test_a_read_that_fails_after_an_ok_write_is_a_corruption() -> None:
    finding = _corruption(_ok("3 rows"), _refused("Database error: file is not a database"))
    assert finding is not None
    assert finding.oracle is Oracle.CORRUPTION
    assert (finding.tool, finding.field, finding.label) == ("lookup", "name", WRITE.label)
    assert "read_rows" in finding.why and "3 rows" in finding.why
    assert "file is not a database" in finding.answer


def test_a_read_that_kills_the_target_after_an_ok_write_is_a_corruption() -> None:
    assert _corruption(_ok("3 rows"), LOST) is not None


def test_a_read_that_failed_before_the_write_already_is_no_corruption() -> None:
    assert _corruption(_refused("no such table"), _refused("no such table")) is None
    assert _corruption(_ok('{"success": false, "error": "locked"}'), _refused("locked")) is None


def test_a_read_failing_for_the_environment_after_a_write_is_no_corruption() -> None:
    assert _corruption(_ok("3 rows"), _refused("Network is unreachable")) is None


# --------------------------------------------------------------------------- linear work


def _calls(n: int) -> dict[tuple[str, int, str], int]:
    """How often each function was called judging ``n`` answers over ten fields: refusals,
    internal errors with exception text and successes."""
    answers = []
    for i in range(n):
        field = f"f{i % 10}"
        raw = (
            _refused(f"value {i} refused")
            if i % 3 == 0
            else _rpc(-32603, "TypeError: x is not a function")
            if i % 3 == 1
            else _ok(f"{i} rows")
        )
        answers.append(DeepAnswer(_edge(field, f"e{i}", f"v{i}"), raw))
    profile = cProfile.Profile()
    profile.enable()
    _judge(*answers)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return {key: row[1] for key, row in stats.items()}


def _pattern_work(n: int) -> int:
    """Regex searches (and compilations) made judging ``n`` answers."""
    return sum(c for (_, _, f), c in _calls(n).items() if f == "_compile" or "re.Pattern" in f)


def test_judging_searches_as_many_patterns_per_answer_for_10_and_for_1000_answers() -> None:
    small, large = _pattern_work(10) / 10, _pattern_work(1000) / 1000
    assert small > 0
    assert large <= 1.05 * small, (small, large)


def test_no_function_is_called_more_per_answer_for_1000_answers_than_for_10() -> None:
    small, large = _calls(10), _calls(1000)
    grown = [
        f"{key[2]} ({key[0]}:{key[1]}): {small.get(key, 0) / 10:.1f} -> {calls / 1000:.1f}"
        for key, calls in large.items()
        if calls / 1000 > 1.3 * small.get(key, 0) / 10 + 0.5
    ]
    assert grown == []


def test_nothing_a_target_sends_makes_judging_raise() -> None:
    odd: list[RawCall] = [
        RawCall(RawKind.RESULT, result="not an object"),
        RawCall(RawKind.RESULT, result={"content": "nope", "isError": "true"}),
        RawCall(RawKind.RESULT, result={"content": [7, {"type": "text", "text": 3}]}),
        RawCall(RawKind.RESULT, result=None, detail="over the size cap"),
        RawCall(RawKind.JSONRPC_ERROR, error_code=None, detail="not JSON-RPC"),
        RawCall(RawKind.JSONRPC_ERROR, error_code=-32603, error_message=None, error_data=[{}]),
        RawCall(RawKind.NOT_RUN, detail="the deadline"),
    ]
    answers = [DeepAnswer(_edge("name", f"odd{n}", n), raw) for n, raw in enumerate(odd)]
    findings = _judge(*answers, base=RawCall(RawKind.RESULT, result=[]), tool={"name": 3})
    assert {f.oracle for f in findings} <= {Oracle.DIFFERENTIAL}


# --------------------------------------------------------------------------- real-server lessons


def test_a_runtime_message_the_author_framed_with_the_field_name_is_a_refusal() -> None:
    # mcp-server-time: `timezone: "UTC\u0000"` answers "Invalid timezone: embedded null byte":
    # caught, and the author said which value was wrong
    findings = _judge(
        (
            _edge("name", "nul", "ada\x00"),
            _refused("Error executing tool lookup: Invalid name: embedded null byte"),
        ),
        (
            _edge("name", "emptyString", ""),
            _refused("Error executing tool lookup: Invalid name: ''"),
        ),
    )
    assert findings == ()


@pytest.mark.parametrize(
    "words",
    [
        # mcp-server-git: the SDK's frame alone, even where the tool's name holds the field's
        "Error executing tool name_lookup: embedded null byte",
        # server-sequential-thinking: the field named in code before the message, no reason
        '{"error": "this.branches[input.name].push is not a function", "status": "failed"}',
        # an author's clause that names another field
        "Invalid query: embedded null byte",
    ],
)
def test_a_runtime_message_without_an_authors_reason_naming_the_field_is_a_runtime_error(
    words: str,
) -> None:
    findings = _judge(
        (_edge("name", "nul", "ada\x00"), _refused(words)),
        (_edge("name", "emptyString", ""), _ok()),
    )
    assert _oracles(findings) == [("name", Oracle.RUNTIME_ERROR)]


def test_any_errno_on_a_path_like_field_is_the_systems_refusal_not_a_differential() -> None:
    # server-filesystem: `path: ""` resolves to the allowed directory, and reading it is EISDIR
    findings = _judge(
        (
            _edge("path", "emptyString", ""),
            _refused("EISDIR: illegal operation on a directory, read"),
        ),
        (
            _edge("path", "nonAscii", "a\u00e9"),
            _refused("ENOENT: no such file or directory, open '/srv/data/a\u00e9'"),
        ),
        (
            _edge("path", "nul", "a\x00"),
            _refused("Access denied - path outside allowed directories"),
        ),
    )
    assert findings == ()


def _combined(first: str, second: str, edge: str, values: list[JSON]) -> Edge:
    field = f"{first}+{second}"
    arguments = {**BASE, first: values[0], second: values[1]}
    return Edge("lookup", field, edge, values, arguments, f"deep:{field}:{edge}")


def test_a_combination_that_only_repeats_a_single_fields_finding_is_no_second_finding() -> None:
    crash = "Error executing tool lookup: embedded null byte"
    findings = _judge(
        (_edge("name", "nul", "ada\x00"), _refused(crash)),
        (_edge("name", "emptyString", ""), _ok()),
        (_combined("name", "query", "nul+emptyString", ["ada\x00", ""]), _refused(crash)),
    )
    assert _oracles(findings) == [("name", Oracle.RUNTIME_ERROR)]


def test_a_combination_with_words_of_its_own_is_its_own_finding() -> None:
    findings = _judge(
        (
            _edge("name", "nul", "ada\x00"),
            _refused("Error executing tool lookup: embedded null byte"),
        ),
        (_edge("name", "emptyString", ""), _ok()),
        (_edge("query", "emptyString", ""), _ok()),
        (
            _combined("name", "query", "emptyString+emptyString", ["", ""]),
            _refused("TypeError: Cannot read properties of undefined (reading 'trim')"),
        ),
    )
    assert _oracles(findings) == [
        ("name", Oracle.RUNTIME_ERROR),
        ("name+query", Oracle.RUNTIME_ERROR),
    ]
