"""Classification of one call's raw observation into an outcome and flags (SPEC §5)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcprobe.core.calls.classify import (
    _LEAK_PATTERNS,
    _MAX_DEPTH,
    _strings,
    classify_call,
    classify_unknown_tool_probe,
    excerpt,
    forget_texts,
    leak_kind,
)
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import JSON, Case, Outcome, RawCall, RawKind

VALID = Case("divide", CaseKind.VALID, "valid", {"a": 1, "b": 2}, malformed=False)
WRONG = Case("divide", CaseKind.WRONG_TYPE, "wrong_type:a", {"a": [], "b": 2}, malformed=True)

PLAIN_TOOL: JSON = {"name": "divide", "inputSchema": {"type": "object"}}
OUT_TOOL: JSON = {
    "name": "divide",
    "inputSchema": {"type": "object"},
    "outputSchema": {
        "type": "object",
        "properties": {"result": {"type": "number"}},
        "required": ["result"],
    },
}
BAD_OUT_TOOL: JSON = {"name": "divide", "outputSchema": {"type": "no-such-type"}}


def text_result(text: str, *, is_error: JSON = None, **extra: JSON) -> JSON:
    result: dict[str, JSON] = {"content": [{"type": "text", "text": text}], **extra}
    if is_error is not None:
        result["isError"] = is_error
    return result


def result(value: JSON, latency: float = 5.0) -> RawCall:
    return RawCall(RawKind.RESULT, latency_ms=latency, result=value)


@dataclass(frozen=True)
class Row:
    case: Case
    raw: RawCall
    tool: JSON
    outcome: Outcome
    flags: frozenset[str] = frozenset()
    rejected: bool = False


def flags_of(res: object) -> frozenset[str]:
    names = ("silently_accepted", "empty_success", "output_schema_violation", "leak")
    return frozenset(n for n in names if getattr(res, n))


TABLE: dict[str, Row] = {
    "valid ok with text": Row(VALID, result(text_result("0.5")), PLAIN_TOOL, Outcome.OK),
    "valid ok with isError false": Row(
        VALID, result(text_result("0.5", is_error=False)), PLAIN_TOOL, Outcome.OK
    ),
    "valid ok with blank text is empty": Row(
        VALID, result(text_result("  \n")), PLAIN_TOOL, Outcome.OK, frozenset({"empty_success"})
    ),
    "valid ok with no content items is empty": Row(
        VALID, result({"content": []}), PLAIN_TOOL, Outcome.OK, frozenset({"empty_success"})
    ),
    "valid ok with only structuredContent is not empty": Row(
        VALID,
        result({"content": [], "structuredContent": {"result": 0.5}}),
        PLAIN_TOOL,
        Outcome.OK,
    ),
    "valid ok with an image is not empty": Row(
        VALID,
        result({"content": [{"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}]}),
        PLAIN_TOOL,
        Outcome.OK,
    ),
    "valid toolError": Row(
        VALID,
        result(text_result("b must not be zero", is_error=True)),
        PLAIN_TOOL,
        Outcome.TOOL_ERROR,
        rejected=True,
    ),
    "malformed ok is silently accepted": Row(
        WRONG,
        result(text_result("NaN")),
        PLAIN_TOOL,
        Outcome.OK,
        frozenset({"silently_accepted"}),
    ),
    "malformed ok with blank text is only silently accepted": Row(
        WRONG, result(text_result("")), PLAIN_TOOL, Outcome.OK, frozenset({"silently_accepted"})
    ),
    "malformed toolError is a clean rejection": Row(
        WRONG,
        result(text_result("Invalid value for a", is_error=True)),
        PLAIN_TOOL,
        Outcome.TOOL_ERROR,
        rejected=True,
    ),
    "malformed toolError with traceback leaks": Row(
        WRONG,
        result(
            text_result(
                'Traceback (most recent call last):\n  File "/srv/x.py", line 3', is_error=True
            )
        ),
        PLAIN_TOOL,
        Outcome.TOOL_ERROR,
        frozenset({"leak"}),
        rejected=True,
    ),
    "malformed invalid-params error is a clean rejection": Row(
        WRONG,
        RawCall(RawKind.JSONRPC_ERROR, 3.0, error_code=-32602, error_message="bad a"),
        PLAIN_TOOL,
        Outcome.PROTOCOL_ERROR,
        rejected=True,
    ),
    "malformed internal error is not a clean rejection": Row(
        WRONG,
        RawCall(RawKind.JSONRPC_ERROR, 3.0, error_code=-32603, error_message="oops"),
        PLAIN_TOOL,
        Outcome.PROTOCOL_ERROR,
    ),
    "internal error with a stack in data leaks": Row(
        WRONG,
        RawCall(
            RawKind.JSONRPC_ERROR,
            3.0,
            error_code=-32603,
            error_message="Internal error",
            error_data={"stack": "TypeError: x is undefined\n    at f (/app/index.js:4:9)"},
        ),
        PLAIN_TOOL,
        Outcome.PROTOCOL_ERROR,
        frozenset({"leak"}),
    ),
    "valid protocol error": Row(
        VALID,
        RawCall(RawKind.JSONRPC_ERROR, 3.0, error_code=-32000, error_message="busy"),
        PLAIN_TOOL,
        Outcome.PROTOCOL_ERROR,
        rejected=True,
    ),
    "valid timeout": Row(VALID, RawCall(RawKind.TIMEOUT, 1000.0), PLAIN_TOOL, Outcome.TIMEOUT),
    "malformed timeout": Row(WRONG, RawCall(RawKind.TIMEOUT, 1000.0), PLAIN_TOOL, Outcome.TIMEOUT),
    "valid transport lost": Row(
        VALID,
        RawCall(RawKind.TRANSPORT_LOST, 4.0, detail="process exited with code 1"),
        PLAIN_TOOL,
        Outcome.PROTOCOL_CRASH,
    ),
    "malformed transport lost": Row(
        WRONG, RawCall(RawKind.TRANSPORT_LOST, 4.0), PLAIN_TOOL, Outcome.PROTOCOL_CRASH
    ),
    "valid not run": Row(
        VALID, RawCall(RawKind.NOT_RUN, detail="target already dead"), PLAIN_TOOL, Outcome.NOT_RUN
    ),
    "malformed not run": Row(WRONG, RawCall(RawKind.NOT_RUN), PLAIN_TOOL, Outcome.NOT_RUN),
    "outputSchema satisfied": Row(
        VALID,
        result(
            {"content": [{"type": "text", "text": "0.5"}], "structuredContent": {"result": 0.5}}
        ),
        OUT_TOOL,
        Outcome.OK,
    ),
    "outputSchema violated by structuredContent": Row(
        VALID,
        result({"content": [{"type": "text", "text": "x"}], "structuredContent": {"result": "x"}}),
        OUT_TOOL,
        Outcome.OK,
        frozenset({"output_schema_violation"}),
    ),
    "outputSchema declared but structuredContent missing": Row(
        VALID,
        result(text_result("0.5")),
        OUT_TOOL,
        Outcome.OK,
        frozenset({"output_schema_violation"}),
    ),
    "outputSchema missing structuredContent and empty": Row(
        VALID,
        result({"content": []}),
        OUT_TOOL,
        Outcome.OK,
        frozenset({"output_schema_violation", "empty_success"}),
    ),
    "outputSchema not checked on a malformed ok": Row(
        WRONG,
        result(text_result("NaN")),
        OUT_TOOL,
        Outcome.OK,
        frozenset({"silently_accepted"}),
    ),
    "outputSchema not required on a toolError": Row(
        VALID,
        result(text_result("nope", is_error=True)),
        OUT_TOOL,
        Outcome.TOOL_ERROR,
        rejected=True,
    ),
    "invalid outputSchema is not held against the content": Row(
        VALID, result({"content": [], "structuredContent": {"result": 1}}), BAD_OUT_TOOL, Outcome.OK
    ),
    "invalid outputSchema still obliges structuredContent": Row(
        VALID,
        result(text_result("1")),
        BAD_OUT_TOOL,
        Outcome.OK,
        frozenset({"output_schema_violation"}),
    ),
    "a result that is not an object is an invalid result": Row(
        VALID, result(["not", "an", "object"]), PLAIN_TOOL, Outcome.PROTOCOL_ERROR
    ),
    "a non-object result to a malformed case is an invalid result, no rejection": Row(
        WRONG, result("garbage"), PLAIN_TOOL, Outcome.PROTOCOL_ERROR
    ),
    "a string isError is an invalid result, neither success nor rejection": Row(
        WRONG, result(text_result("bad", is_error="true")), PLAIN_TOOL, Outcome.PROTOCOL_ERROR
    ),
    "a string isError on a valid case is no clean success": Row(
        VALID, result(text_result("0.5", is_error="false")), PLAIN_TOOL, Outcome.PROTOCOL_ERROR
    ),
    "content that is not a list is an invalid result": Row(
        VALID, result({"content": "0.5"}), PLAIN_TOOL, Outcome.PROTOCOL_ERROR
    ),
    "a missing content is an invalid result": Row(
        VALID, result({"structuredContent": {"a": 1}}), PLAIN_TOOL, Outcome.PROTOCOL_ERROR
    ),
    "a text item without text is an invalid result": Row(
        VALID, result({"content": [{"type": "text"}]}), PLAIN_TOOL, Outcome.PROTOCOL_ERROR
    ),
    "a structuredContent that is not an object is an invalid result": Row(
        VALID,
        result({"content": [], "structuredContent": [1, 2]}),
        PLAIN_TOOL,
        Outcome.PROTOCOL_ERROR,
    ),
    "an oversize reply the I/O layer dropped is not judged for its shape": Row(
        VALID,
        RawCall(RawKind.RESULT, 5.0, result=None, detail="response of 9 bytes exceeds the cap"),
        PLAIN_TOOL,
        Outcome.OK,
        frozenset({"empty_success"}),
    ),
}


@pytest.mark.parametrize("row", TABLE.values(), ids=TABLE.keys())
def test_classifier_table_gives_outcome_flags_and_rejection(row: Row) -> None:
    res = classify_call(row.case, row.raw, row.tool)
    assert res.outcome is row.outcome
    assert flags_of(res) == row.flags
    assert res.rejected is row.rejected
    assert res.tool == row.case.tool
    assert res.label == row.case.label
    assert res.arguments == row.case.arguments
    assert res.latency_ms == row.raw.latency_ms


def test_jsonrpc_error_code_and_message_are_kept() -> None:
    raw = RawCall(RawKind.JSONRPC_ERROR, 2.0, error_code=-32602, error_message="Invalid params: a")
    res = classify_call(WRONG, raw, PLAIN_TOOL)
    assert res.error_code == -32602
    assert res.message == "Invalid params: a"


def test_internal_error_note_explains_it_is_not_a_clean_rejection() -> None:
    raw = RawCall(RawKind.JSONRPC_ERROR, 2.0, error_code=-32603, error_message="Internal error")
    res = classify_call(WRONG, raw, PLAIN_TOOL)
    assert res.note is not None and "-32603" in res.note


def test_output_schema_violation_note_quotes_the_first_validation_error() -> None:
    raw = result({"content": [], "structuredContent": {"result": "x"}})
    res = classify_call(VALID, raw, OUT_TOOL)
    assert res.note is not None and "'x' is not of type 'number'" in res.note


def test_invalid_output_schema_is_explained_in_the_note() -> None:
    res = classify_call(VALID, result({"content": [], "structuredContent": {}}), BAD_OUT_TOOL)
    assert res.note is not None and "not a valid JSON Schema" in res.note


def test_malformed_result_shapes_are_noted_with_the_schema_version_and_field() -> None:
    def note(value: JSON, version: str | None = "2025-11-25") -> str:
        res = classify_call(VALID, result(value), PLAIN_TOOL, protocol_version=version)
        assert res.outcome is Outcome.PROTOCOL_ERROR and res.error_code is None
        assert res.invalid_result and not res.rejected and res.verdicts == ("invalidResult",)
        return res.note or ""

    prefix = "invalid result: breaks the MCP 2025-11-25 CallToolResult schema: "
    assert note(3) == prefix + "the result is a JSON number, not an object"
    assert note({"structuredContent": {"a": 1}}) == prefix + "`content` is missing (required)"
    odd = note({"content": [3, {"type": "text"}]})
    assert "content[0] is a number, not a content object" in odd
    assert "content[1].text is missing, not a string" in odd
    stringy = note(text_result("x", is_error="yes"))
    assert stringy == prefix + "`isError` is a string, not a boolean"
    assert "`content` is a string, not an array" in note({"content": "x"})
    assert note(3, None).startswith(prefix)  # unknown version: the newest known schema
    assert note(3, "1999-01-01").startswith(prefix)


def test_the_result_schema_is_that_of_the_negotiated_version() -> None:
    def outcome(value: JSON, version: str) -> Outcome:
        return classify_call(VALID, result(value), PLAIN_TOOL, protocol_version=version).outcome

    audio = {"content": [{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]}
    link = {"content": [{"type": "resource_link", "uri": "file:///a", "name": "a"}]}
    listy = {"content": [{"type": "text", "text": "x"}], "structuredContent": [1]}
    assert outcome(audio, "2024-11-05") is Outcome.PROTOCOL_ERROR  # audio came in 2025-03-26
    assert outcome(audio, "2025-03-26") is Outcome.OK
    assert outcome(link, "2025-03-26") is Outcome.PROTOCOL_ERROR  # resource_link: 2025-06-18
    assert outcome(link, "2025-06-18") is Outcome.OK
    # structuredContent is an unknown extra field before 2025-06-18, an object from then on.
    assert outcome(listy, "2025-03-26") is Outcome.OK
    assert outcome(listy, "2025-06-18") is Outcome.PROTOCOL_ERROR


def test_an_invalid_result_to_the_unknown_tool_probe_is_no_rejection() -> None:
    res = classify_unknown_tool_probe("zz", result({"content": [], "isError": 1}))
    assert res.outcome is Outcome.PROTOCOL_ERROR and not res.rejected
    assert "`isError` is a number" in (res.note or "")


def test_message_is_a_short_clean_excerpt_of_the_response() -> None:
    long_text = "line one\n\n\tline\x00 two\u202e " + "y" * 500
    res = classify_call(WRONG, result(text_result(long_text, is_error=True)), PLAIN_TOOL)
    assert res.message is not None
    assert len(res.message) <= 200
    assert res.message.startswith("line one line two y")
    assert res.message.endswith("…")
    assert "\x00" not in res.message and "\u202e" not in res.message


def test_ok_message_falls_back_to_structured_content() -> None:
    raw = result({"content": [], "structuredContent": {"result": 0.5}})
    assert classify_call(VALID, raw, PLAIN_TOOL).message == '{"result": 0.5}'


def test_transport_detail_goes_to_the_note_not_the_message() -> None:
    raw = RawCall(RawKind.TRANSPORT_LOST, 1.0, detail="process exited with code 137")
    res = classify_call(VALID, raw, PLAIN_TOOL)
    assert res.message is None
    assert res.note == "process exited with code 137"


def test_silent_acceptance_is_explained() -> None:
    res = classify_call(WRONG, result(text_result("NaN")), PLAIN_TOOL)
    assert res.note is not None and "malformed input was accepted" in res.note
    assert res.message == "NaN"


@pytest.mark.parametrize(
    "text",
    [
        'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>',
        'File "/home/alice/srv/tools.py", line 12, in divide',
        "    at Object.<anonymous> (/srv/app/index.js:10:15)",
        "    at node:internal/modules/cjs/loader:1105:14",
        "java.lang.NullPointerException",
        "\tat com.example.Tools.divide(Tools.java:42)",
        "error in tools.py, line 12",
        "failed in /srv/app/handlers.ts:88",
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for divideArguments",
        "httpx.ConnectError: all connection attempts failed",
        "import failed in site-packages/foo/bar",
        "Cannot load /app/node_modules/zod/lib/index.js",
    ],
)
def test_error_text_with_internals_is_a_leak(text: str) -> None:
    assert leak_kind(text) is not None
    res = classify_call(WRONG, result(text_result(text, is_error=True)), PLAIN_TOOL)
    assert res.leak
    assert res.note is not None and "leaks" in res.note


@pytest.mark.parametrize(
    "text",
    [
        "Invalid value",
        "Error: b must not be zero",
        "Error executing tool divide: 1 validation error for divideArguments\na\n  Input should"
        " be a valid number, unable to parse string as a number [type=float_parsing,"
        " input_value='x', input_type=str]\n    For further information visit"
        " https://errors.pydantic.dev/2.11/v/float_parsing",
        "Unknown tool: mcprobe_nonexistent_tool",
        "see https://example.com/home/docs for the accepted values",
        "missing required argument 'path'",
        "type error: expected a number",
        "rate must be between 0 and 1; got 3/4",
        # a bare exception class name is how many servers phrase a refusal, not internals
        "ValueError: could not convert string to float: 'x'",
        "division by zero (ZeroDivisionError)",
        "TypeError: Cannot read properties of undefined (reading 'length')",
        # data paths the user needs: an allowed directory, a resolved path, an install hint
        "Access denied - path outside allowed directories: /tmp/x/example.txt not in /srv/data",
        "ENOENT: no such file or directory, open '/home/bob/notes/example.txt'",
        "config missing at /home/bob/.config/thing",
        "could not open /usr/lib/python3.11/json/decoder.py",
        "C:\\Users\\bob\\server\\main.py failed",
        "Executable doesn't exist at /root/.cache/ms-playwright/chromium-1091/chrome-linux/chrome",
    ],
)
def test_ordinary_error_text_is_not_a_leak(text: str) -> None:
    assert leak_kind(text) is None
    res = classify_call(WRONG, result(text_result(text, is_error=True)), PLAIN_TOOL)
    assert not res.leak


def test_echoing_our_own_argument_is_not_a_leak() -> None:
    sent = {"path": "/srv/app/x.py:12"}
    case = Case("read", CaseKind.WRONG_TYPE, "wrong_type:path", sent, True)
    echoed = text_result("no such file: /srv/app/x.py:12", is_error=True)
    assert not classify_call(case, result(echoed), PLAIN_TOOL).leak
    other = text_result("failed at /srv/app/server.py:40", is_error=True)
    assert classify_call(case, result(other), PLAIN_TOOL).leak


def test_an_error_text_seen_before_is_judged_for_leaks_against_each_calls_own_arguments() -> None:
    text = "no such file: /srv/app/x.py:12"
    sent = Case("read", CaseKind.WRONG_TYPE, "wrong_type:path", {"path": "/srv/app/x.py:12"}, True)
    other = Case("read", CaseKind.WRONG_TYPE, "wrong_type:mode", {"mode": 3}, True)
    for raw in (
        result(text_result(text, is_error=True)),
        RawCall(RawKind.JSONRPC_ERROR, 1.0, error_code=-32602, error_message=text),
    ):
        echoed = classify_call(sent, raw, PLAIN_TOOL)  # the text is remembered from here on
        leaked = classify_call(other, raw, PLAIN_TOOL)
        assert (echoed.leak, leaked.leak) == (False, True)
        assert echoed.note is None
        assert leaked.note == "the error text leaks a source file path with a line number"
        assert echoed.message == leaked.message == text


def test_a_remembered_error_text_gives_the_same_result_as_a_fresh_one() -> None:
    raw = RawCall(
        RawKind.JSONRPC_ERROR, 1.0, error_code=-32602, error_message="connect  ECONNREFUSED\n x"
    )
    forget_texts()
    fresh = classify_call(WRONG, raw, PLAIN_TOOL)
    assert fresh.environment is not None and fresh.message == "connect ECONNREFUSED x"
    assert classify_call(WRONG, raw, PLAIN_TOOL) == fresh


def test_an_ok_result_is_never_checked_for_leaks() -> None:
    res = classify_call(VALID, result(text_result("listing /home/alice")), PLAIN_TOOL)
    assert not res.leak


def test_unknown_tool_probe_rejected_with_jsonrpc_error() -> None:
    raw = RawCall(RawKind.JSONRPC_ERROR, 1.0, error_code=-32602, error_message="Unknown tool")
    res = classify_unknown_tool_probe("mcprobe_nonexistent_tool", raw)
    assert res.kind is CaseKind.UNKNOWN_TOOL
    assert res.label == "unknown_tool"
    assert res.malformed
    assert res.arguments == {}
    assert res.tool == "mcprobe_nonexistent_tool"
    assert res.rejected
    assert not res.silently_accepted


def test_unknown_tool_probe_rejected_with_is_error() -> None:
    raw = result(text_result("Unknown tool: mcprobe_nonexistent_tool", is_error=True))
    res = classify_unknown_tool_probe("mcprobe_nonexistent_tool", raw)
    assert res.outcome is Outcome.TOOL_ERROR and res.rejected


def test_unknown_tool_probe_that_executes_is_silently_accepted() -> None:
    res = classify_unknown_tool_probe("mcprobe_nonexistent_tool", result(text_result("done")))
    assert res.outcome is Outcome.OK
    assert res.silently_accepted
    assert not res.empty_success
    assert res.note is not None and "does not exist" in res.note


def test_excerpt_keeps_short_text_and_cuts_long_text() -> None:
    assert excerpt("  a \n b  ") == "a b"
    cut = excerpt("word " * 100, limit=20)
    assert len(cut) <= 20 and cut.endswith("…")


# --------------------------------------------------------------------------- fast paths

_LEAKY_PIECES = [
    "Traceback (most recent call last)",
    'File "/srv/app.py", line 3',
    "abc/home/x",
    "zabc/srv/app.py:3",
    "ValueError: bad",
    "pkg.mod.BadError",
    "at a.B(C.java:1)",
    "java.lang.IllegalStateException",
    "C:\\Users",
    "node_modules/x",
    "app.js:1:2",
    "bad",
    "\u200b\x00é\t",
]


def _first_leak_label(text: str, sent: JSON) -> str | None:
    """The reference: echoed strings removed, then the patterns tried one by one in order."""
    for echoed in sorted({s for s in _strings(sent) if len(s) >= 4}, key=len, reverse=True):
        text = text.replace(echoed, " ")
    return next((label for label, p in _LEAK_PATTERNS if p.search(text)), None)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_LEAKY_PIECES) | st.text(max_size=8), max_size=4).map(" ".join),
    st.lists(st.sampled_from(["zabc", "home", "/srv/app.py", "bad value", "x"]), max_size=3),
)
def test_leak_detection_names_the_first_pattern_that_matches_after_echo_removal(
    text: str, sent: list[str]
) -> None:
    assert leak_kind(text, sent) == _first_leak_label(text, sent)


def test_echo_removal_that_uncovers_a_path_still_counts_as_a_leak() -> None:
    # "zabc" is ours; once it is removed, "at a.B(C.java:1)" stands alone: a Java frame.
    assert leak_kind("zabcat a.B(C.java:1)", ["zabc"]) == "a Java stack frame"
    assert leak_kind("zabcat a.B(C.java:1)") is None


def test_strings_are_collected_in_document_order_down_to_the_depth_limit() -> None:
    nested: JSON = "deepest"
    for level in range(_MAX_DEPTH + 5):
        nested = {f"k{level}": [nested, f"v{level}"]}
    found = _strings({"a": "1", "b": ["2", {"c": "3"}], "d": nested})
    assert found[:6] == ["a", "1", "b", "2", "c", "3"]
    assert "deepest" not in found
    assert len(found) < 2 * (_MAX_DEPTH + 5)


def test_excerpt_drops_control_characters_and_keeps_plain_ascii_as_is() -> None:
    assert excerpt("plain  ascii\ttext") == "plain ascii text"
    assert excerpt("a\x00b\x7fc\u200bd é") == "abcd é"
