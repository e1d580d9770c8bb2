"""One nesting limit (core.json_depth) and safe report values (core.safe_json), at any depth."""

from __future__ import annotations

import json
from typing import Any

from mcprobe.client.transports.http_cap import visible_lone_surrogates
from mcprobe.core.calls.classify import classify_call
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import Case, RawCall, RawKind
from mcprobe.core.schema.dialect import instance_errors, schema_problems
from mcprobe.core.schema.json_depth import (
    CLIPPED,
    MAX_JSON_DEPTH,
    clip,
    format_path,
    scan_bytes,
    too_deep,
)
from mcprobe.core.schema.safe_json import safe_text, safe_value
from mcprobe.report.model import ServerOut


def nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(depth - 1):
        value = {"a": value}
    return {"a": value} if depth else leaf


def test_a_value_at_the_limit_passes_and_one_level_more_is_named() -> None:
    assert too_deep(nested(MAX_JSON_DEPTH)) is None
    path = too_deep(nested(MAX_JSON_DEPTH + 1))
    assert path == ("a",) * MAX_JSON_DEPTH
    assert too_deep([[1]], 1) == (0,)
    assert too_deep("flat", 0) is None


def test_the_path_names_the_first_deep_branch_wherever_it_is_among_shallow_ones() -> None:
    value = {"flat": [1, {"b": 2}], "deep": [0, (nested(4),)], "later": nested(9)}
    assert too_deep(value, 5) == ("later", "a", "a", "a", "a")
    assert too_deep(value, 6) == ("later", "a", "a", "a", "a", "a")
    assert too_deep(value, 10) is None
    assert too_deep({"x": [0, (nested(5),)]}, 5) == ("x", 1, 0, "a", "a")
    assert too_deep([{"x": "s"}], 1) == (0,)


def test_the_walk_works_far_beyond_the_interpreters_recursion_limit() -> None:
    assert too_deep(nested(50_000)) is not None
    clipped = clip(nested(50_000))
    assert too_deep(clipped) is None
    assert CLIPPED in json.dumps(clipped, ensure_ascii=False)


def test_clip_returns_the_same_object_when_within_the_limit() -> None:
    value = {"a": [1, {"b": 2}]}
    assert clip(value) is value


def test_format_path_shows_the_first_levels_and_counts_the_rest() -> None:
    assert format_path(("result", "tools", 1, "inputSchema")) == "$.result.tools[1].inputSchema"
    long = format_path(("result", *("a",) * 20))
    assert long == "$.result.a.a.a.a.a.a.a… (13 more levels)"
    assert format_path(("we ird",)) == '$["we ird"]'


def test_the_byte_scan_names_the_path_and_the_reply_id_of_text_too_deep_to_parse() -> None:
    deep = '{"jsonrpc":"2.0","id":7,"result":{"tools":[{"n":1},{"s":' + "[" * 5000 + "]" * 5000
    scan = scan_bytes((deep + "}]}}").encode())
    assert scan.request_id == 7
    assert scan.path is not None
    assert format_path(scan.path).startswith("$.result.tools[1].s[0][0][0]")
    assert len(scan.path) == MAX_JSON_DEPTH
    # An "id" deeper inside is not the reply's id; a shallow text has no path.
    inner = scan_bytes(b'{"result":{"id":3},"jsonrpc":"2.0"}')
    assert inner.path is None and inner.request_id is None


def test_lone_surrogates_and_non_finite_numbers_become_visible_safe_values() -> None:
    assert safe_text("half \ud83d") == r"half \ud83d"
    assert safe_text("whole 😀") == "whole 😀"
    value = {"k\udc00": [float("nan"), float("-inf"), 1.5, "x"]}
    assert safe_value(value) == {r"k\udc00": ["NaN", "-Infinity", 1.5, "x"]}
    plain = {"a": [1, "b"]}
    assert safe_value(plain) is plain
    out = ServerOut(name="raw\ud83d", capabilities={"x": float("inf"), "d": nested(5000)})
    dumped = out.model_dump_json()  # strict UTF-8 and strict JSON: no error, no literal
    json.loads(dumped, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    assert out.name == r"raw\ud83d"


def test_core_steps_stay_bounded_on_values_nested_5000_levels_deep() -> None:
    schema: Any = {"type": "string"}
    for _ in range(5000):
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    tool = {"name": "t", "description": "deep", "inputSchema": schema, "outputSchema": schema}
    cases = generate_cases(tool)
    assert not cases.valid_constructible and "nests deeper than 100 levels" in (cases.note or "")
    assert schema_problems(schema)[0].message.startswith("the schema nests deeper than 100 levels")
    assert instance_errors({"type": "object"}, nested(5000))[0].startswith(
        "the value nests deeper than 100 levels (at $.a.a.a"
    )
    valid = Case("t", CaseKind.VALID, "valid", {}, malformed=False)
    raw = RawCall(RawKind.RESULT, result={"content": [], "structuredContent": nested(5000)})
    result = classify_call(valid, raw, {"name": "t"})
    assert result.message is not None and result.message.startswith('{"a": {"a":')


def test_lone_surrogate_escapes_in_http_json_become_visible_text_and_pairs_stay() -> None:
    lone = json.loads(visible_lone_surrogates(b'{"a": "x\\ud83d", "b": "\\udc00y"}'))
    assert lone == {"a": r"x\ud83d", "b": r"\udc00y"}
    pair = b'{"a": "\\ud83d\\ude00"}'
    assert visible_lone_surrogates(pair) is pair
    escaped_backslash = b'{"a": "\\\\ud83d"}'  # a backslash, then the text "ud83d"
    assert visible_lone_surrogates(escaped_backslash) == escaped_backslash
