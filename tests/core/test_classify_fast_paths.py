"""The shortcuts of classification give exactly what the plain loops they skip give.

``environment_cause`` tries a pattern only when the (case-folded) text holds one of its literal
needles, ``leak_kind`` collects the arguments' strings only when the text holds a run that some
leak pattern needs, ``result_shape_problems`` passes a plain text block at once, and
``instance_errors`` answers ``()`` at once where the quick check proves an instance valid. The
references below are the code as it was before the shortcuts, run over every string literal of
the test suite (the hostile targets' answers included), hypothesis-made texts built from the
evidence each pattern looks for (in mixed case, with the non-ASCII characters that match ASCII
letters), hostile results, every case of the schema corpus and hypothesis-made structured
content.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from referencing import Registry

from mcprobe.core.calls import evidence
from mcprobe.core.calls.classify import (
    _LEAK_PATTERNS,
    _MIN_ECHO,
    _plain_text_content,
    _strings,
    leak_kind,
    read_result,
)
from mcprobe.core.calls.evidence import _ASCII_FOLDS, _ENVIRONMENT, environment_cause
from mcprobe.core.calls.result_shape import (
    KNOWN_VERSIONS,
    _at_least,
    _content_types,
    _item_problems,
    _json_type,
    _version,
    result_shape_problems,
)
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.model import JSON
from mcprobe.core.schema import dialect
from mcprobe.core.schema.json_depth import MAX_JSON_DEPTH, format_path, too_deep
from tests.support.schema_corpus import CORPUS
from tests.support.suite_literals import suite_strings
from tests.support.synthetic_listing import rich_tool

# The parsed form of a pattern (the proof below reads it; typeshed has no stubs for these).
_parser: Any = importlib.import_module("re._parser")
_constants: Any = importlib.import_module("re._constants")


# --------------------------------------------------------------------------- environment


def environment_by_loop(text: str) -> str | None:
    scanned = text[:100_000]
    for what, pattern in _ENVIRONMENT:
        match = pattern.search(scanned)
        if match is not None:
            evidence_text = " ".join(match.group(0).split())[:80]
            return f"{what} (`{evidence_text}`)"
    return None


_EVIDENCE = [
    "[Errno 30] Read-only file system: '/x'",
    "EROFS: read-only",
    "BlockingIOError: [Errno 11] Resource temporarily unavailable (fork failed)",
    "Error: spawn EAGAIN",
    "thread start: EAGAIN",
    "Cannot fork",
    "can't start new thread",
    "OSError: [Errno 27] File too large",
    "EFBIG",
    "File size limit exceeded",
    "getaddrinfo EAI_AGAIN api.github.com",
    "getaddrinfo ENOTFOUND x.dev",
    "connect ENETUNREACH 2606:50c0::153:443",
    "EHOSTUNREACH",
    "TypeError: fetch failed",
    "[Errno -2] Name or service not known",
    "[Errno -3] Temporary failure in name resolution",
    "nodename nor servname provided",
    "No address associated with hostname",
    "Network is unreachable",
    "No route to host",
    "Could not resolve host: x",
    "Failed to resolve 'x'",
    "due to a connection issue",
    "All connection attempts failed",
    "httpx.ConnectError",
    "could not reach the server",
    "unable to connect to db",
    "couldn't be contacted",
    "failed to establish a connection",
    "could not sync data after 3 retries",
    "unable to upload it after 2 attempts",
    "Max retries exceeded with url",
    "ETIMEDOUT",
    "ECONNRESET",
    "Connection timed out",
    "Connection reset by peer",
    "service is unreachable",
    "connect ECONNREFUSED 140.82.112.3:443",
    "connect ECONNREFUSED 127.0.0.1:6379",
    "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed",
    "self-signed certificate in chain",
    "unable to get local issuer certificate",
    "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    "Executable doesn't exist at /root/.cache/ms-playwright",
    "spawn git ENOENT",
    "sh: rg: command not found",
    "chromium not found at /opt/x\nPlease run npx playwright install",
    "pandoc is not installed.\nInstall it with: apt-get install pandoc",
    "browser binary not found; try: npx playwright install",
    "Please run the following command to download new browsers",
    "No module named 'readabilipy'",
    "Cannot find module 'sharp'",
    "PDF conversion requires the optional 'pdf' extra.\nInstall it with: pip install 'x[pdf]'",
    "pip install x[pdf]",
    "uv pip install 'x[all]'",
]
_FOLDS = {"i": "\u0130\u0131", "s": "\u017f", "k": "\u212a"}


def _mutated(text: str, seed: int) -> str:
    """``text`` with letters switched in case or replaced by a non-ASCII character that a
    case-insensitive pattern matches to them, as ``seed`` picks."""
    out = []
    for index, ch in enumerate(text):
        pick = (seed >> (index % 24)) & 3
        if pick == 1:
            ch = ch.swapcase()
        elif pick == 2 and ch.lower() in _FOLDS:
            folds = _FOLDS[ch.lower()]
            ch = folds[index % len(folds)]
        out.append(ch)
    return "".join(out)


def test_the_folds_are_every_non_ascii_character_a_case_insensitive_pattern_takes_for_ascii() -> (
    None
):
    everything = "".join(
        chr(cp) for cp in range(128, sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF
    )
    folding = set(re.findall(r"[\x00-\x7f]", everything, re.IGNORECASE))
    assert folding == {chr(cp) for cp in _ASCII_FOLDS}
    for cp, ascii_ch in _ASCII_FOLDS.items():
        assert isinstance(ascii_ch, str)
        assert re.fullmatch(ascii_ch, chr(cp), re.IGNORECASE)


def test_every_needle_set_has_a_gate_and_every_gate_matches_exactly_its_needles() -> None:
    assert len(evidence._ENVIRONMENT_NEEDLES) == len(_ENVIRONMENT)
    for needles, gate in zip(
        evidence._ENVIRONMENT_NEEDLES, evidence._ENVIRONMENT_GATES, strict=True
    ):
        for needle in needles:
            assert needle == needle.lower()
            assert gate.fullmatch(needle)
            assert gate.search("x" + needle + "x")
        assert gate.search("x" * 40) is None


def test_the_evidence_examples_are_environment() -> None:
    local = "connect ECONNREFUSED 127.0.0.1:6379"
    assert [text for text in _EVIDENCE if environment_by_loop(text) is None] == [local]


def test_environment_cause_matches_the_plain_loop_on_every_string_of_the_test_suite() -> None:
    for text in (*suite_strings(), *_EVIDENCE):
        assert environment_cause(text) == environment_by_loop(text), text


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_EVIDENCE) | st.text(max_size=12), max_size=4).map(" ".join),
    st.integers(min_value=0, max_value=2**24),
)
def test_environment_cause_matches_the_plain_loop_on_mixed_case_and_folded_texts(
    text: str, seed: int
) -> None:
    for variant in (text, _mutated(text, seed), text.upper(), text.swapcase()):
        assert environment_cause(variant) == environment_by_loop(variant)


# --------------------------------------------------------------------------- leaks


def leak_by_loop(text: str, sent: JSON = None) -> str | None:
    scanned = text[:100_000]
    if len(scanned) >= _MIN_ECHO:
        echoes = {s for s in _strings(sent) if len(s) >= _MIN_ECHO}
        for echoed in sorted(echoes, key=len, reverse=True):
            scanned = scanned.replace(echoed, " ")
    return next((label for label, p in _LEAK_PATTERNS if p.search(scanned)), None)


_LEAKS = [
    "Traceback (most recent call last)",
    'File "/srv/app.py", line 3',
    '/srv/app.py", line 12',
    "zabc/srv/app.py:3",
    "at Object.<anonymous> (/srv/app.js:10:5)",
    "node:internal/modules/cjs/loader:1080:15",
    "at a.B(C.java:1)",
    "java.lang.IllegalStateException",
    "pydantic_core._pydantic_core.ValidationError",
    "requests.exceptions.ConnectionError",
    "/usr/lib/python3/site-packages/x",
    "node_modules/x",
    "ValueError: bad",
    "bad",
]
_SENT = ["zabc", "home", "/srv/app.py", "bad value", "x", "line", ":3", ".B(C", "Error", "ne 3"]


def test_leak_kind_matches_the_plain_loop_on_every_string_of_the_test_suite() -> None:
    for text in (*suite_strings(), *_LEAKS):
        assert leak_kind(text) == leak_by_loop(text), text
        assert leak_kind(text, _SENT) == leak_by_loop(text, _SENT), text


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(_LEAKS) | st.sampled_from(_SENT) | st.text(max_size=8), max_size=5
    ).map("".join),
    st.lists(st.sampled_from(_SENT) | st.text(min_size=4, max_size=6), max_size=3),
)
def test_leak_kind_matches_the_plain_loop_when_echoes_are_removed(
    text: str, sent: list[str]
) -> None:
    assert leak_kind(text, sent) == leak_by_loop(text, {"a": sent, "b": {"c": sent}})
    assert leak_kind(text, {"a": sent, "b": {"c": sent}}) == leak_by_loop(text, sent)


# --------------------------------------------------------------------------- result shape


def shape_by_loop(result: JSON, protocol_version: str | None) -> tuple[str, ...]:
    version = _version(protocol_version)
    if not isinstance(result, dict):
        return (f"the result is a JSON {_json_type(result)}, not an object",)
    problems: list[str] = []
    if "content" not in result:
        problems.append("`content` is missing (required)")
    elif not isinstance(result["content"], list):
        problems.append(f"`content` is a {_json_type(result['content'])}, not an array")
    else:
        types = _content_types(version)
        for index, item in enumerate(result["content"]):
            problems += _item_problems(item, f"content[{index}]", types)
            if len(problems) > 50:
                break
    if "isError" in result and not isinstance(result["isError"], bool):
        problems.append(f"`isError` is a {_json_type(result['isError'])}, not a boolean")
    if (
        _at_least(version, "2025-06-18")
        and "structuredContent" in result
        and not isinstance(result["structuredContent"], dict)
    ):
        problems.append(
            f"`structuredContent` is a {_json_type(result['structuredContent'])}, not an object"
        )
    if "_meta" in result and not isinstance(result["_meta"], dict):
        problems.append(f"`_meta` is a {_json_type(result['_meta'])}, not an object")
    return tuple(problems)


_ITEMS = st.one_of(
    st.just({"type": "text", "text": "ok"}),
    st.just({"type": "text", "text": 3}),
    st.just({"type": "text"}),
    st.just({"type": "text", "text": "a", "annotations": []}),
    st.just({"type": "text", "text": "a", "annotations": {}}),
    st.just({"type": "image", "data": "x", "mimeType": "image/png"}),
    st.just({"type": "audio", "data": "x"}),
    st.just({"type": "resource_link", "uri": "u", "name": "n"}),
    st.just({"type": "resource", "resource": {"uri": "u", "text": "t"}}),
    st.just({"type": "resource", "resource": []}),
    st.just({"type": "bogus"}),
    st.just({"type": 7}),
    st.just("text"),
    st.just(None),
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_ITEMS, max_size=60),
    st.sampled_from([None, True, "true", 1]),
    st.sampled_from([None, {}, [], "x"]),
    st.sampled_from([None, *KNOWN_VERSIONS, "1999-01-01"]),
)
def test_result_shape_problems_match_the_plain_loop(
    items: list[JSON], is_error: JSON, structured: JSON, version: str | None
) -> None:
    result: dict[str, JSON] = {"content": items}
    if is_error is not None:
        result["isError"] = is_error
    if structured is not None:
        result["structuredContent"] = structured
    assert result_shape_problems(result, version) == shape_by_loop(result, version)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_ITEMS, max_size=2),
    st.sampled_from(["absent", None, True, False, "true", 1]),
    st.sampled_from(["absent", None, {}, [], "x"]),
    st.sampled_from(["absent", None, {}, "m"]),
    st.sampled_from(["", " ", "ok", "bad\nvalue"]),
)
def test_the_plain_text_result_read_at_once_is_what_the_full_path_reads_of_it(
    items: list[JSON], is_error: JSON, structured: JSON, meta: JSON, text: str
) -> None:
    result: dict[str, JSON] = {
        "content": [{**i, "text": text} if i == _PLAIN else i for i in items]
    }
    for key, value in (("isError", is_error), ("structuredContent", structured), ("_meta", meta)):
        if value != "absent":
            result[key] = value
    fast = _plain_text_content(result)
    full = read_result(result)
    if fast is None:  # the full path then decides (and ``_plain_text_content`` must not miss
        # the one shape it exists for)
        plain = items == [_PLAIN] and (is_error == "absent" or type(is_error) is bool)
        assert not (plain and structured == meta == "absent")
        return
    assert fast == full
    assert all(result_shape_problems(result, version) == () for version in KNOWN_VERSIONS)


_PLAIN: JSON = {"type": "text", "text": "ok"}


# --------------------------------------------------------------------------- instance errors


def instance_errors_by_validator(schema: Any, instance: Any) -> tuple[str, ...]:
    if isinstance(schema, bool):
        return () if schema else ("false schema rejects everything",)
    cls = dialect.validator_class_for(schema)
    if cls is None:
        return ("unknown $schema dialect",)
    for what, value in (("schema", schema), ("value", instance)):
        path = too_deep(value)
        if path is not None:
            return (
                f"the {what} nests deeper than {MAX_JSON_DEPTH} levels (at {format_path(path)})",
            )
    validator = cls(schema, registry=Registry(), format_checker=dialect._FORMAT_CHECKER)
    try:
        return tuple(
            err.message
            for err in sorted(validator.iter_errors(instance), key=lambda e: str(e.path))
        )
    except RecursionError:
        return ("schema recursion too deep",)
    except Exception as exc:
        return (f"schema cannot be applied: {type(exc).__name__}",)


def _schemas_and_instances() -> Iterator[tuple[Any, Any]]:
    tools = [entry.tool for entry in CORPUS] + [rich_tool(i) for i in range(12)]
    for tool in tools:
        schema = tool.get("inputSchema") if isinstance(tool, dict) else None
        if not isinstance(schema, dict | bool) or dialect.schema_problems(schema):
            continue
        for case in generate_cases(tool).cases:
            yield schema, case.arguments
        yield schema, [1]
        yield schema, {"deep": _nested(MAX_JSON_DEPTH + 2)}


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def test_instance_errors_match_the_validator_on_every_case_of_the_corpus() -> None:
    checked = 0
    for schema, instance in _schemas_and_instances():
        assert dialect.instance_errors(schema, instance) == instance_errors_by_validator(
            schema, instance
        )
        checked += 1
    assert checked > 500


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-5, 300) | st.floats(-2, 2) | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(["items", "x", "n", "error"]), inner, max_size=3)
        ),
        max_leaves=8,
    ),
    st.sampled_from(
        [
            {"type": "object", "properties": {"items": {"type": "array"}}},
            {"type": "object", "properties": {"items": {"type": "array"}}, "required": ["items"]},
            {"type": "object", "additionalProperties": False},
            {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}},
            {"type": "object", "properties": {"x": {"type": "string", "format": "date"}}},
            {"$ref": "#/$defs/o", "$defs": {"o": {"type": "object", "required": ["n"]}}},
            {"$ref": "#/$defs/missing"},
            {"$ref": "https://example.com/remote.json"},
            {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
            {"anyOf": [{"type": "array"}, {"type": "object", "minProperties": 1}]},
            {"type": "object", "properties": {"items": {"uniqueItems": True}}},
        ]
    ),
)
def test_instance_errors_match_the_validator_on_structured_content(
    instance: Any, schema: dict[str, Any]
) -> None:
    for value in (instance, {"items": instance}, {"n": instance, "x": instance}):
        assert dialect.instance_errors(schema, value) == instance_errors_by_validator(schema, value)


def _guaranteed(items: Any, needles: tuple[str, ...]) -> bool:
    """Whether every match of the parsed sequence ``items`` holds one of ``needles`` (lowercase)
    as a run of literal characters: conservative (False when unsure)."""
    run = ""
    for op, arg in items:
        if op is _constants.LITERAL:
            run += chr(arg).lower()
            if any(needle in run for needle in needles):
                return True
            continue
        if op is _constants.AT:  # \b, ^, \A: zero-width, the literals on each side still touch
            continue
        run = ""
        if op is _constants.SUBPATTERN and _guaranteed(arg[-1], needles):
            return True
        if op is _constants.BRANCH and all(_guaranteed(alt, needles) for alt in arg[1]):
            return True
        repeated = op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT) and arg[0] >= 1
        if repeated and _guaranteed(arg[2], needles):
            return True
    return False


def test_every_match_of_each_environment_pattern_holds_one_of_its_needles() -> None:
    # A proof over the parsed patterns, so an edited pattern fails here until its needles agree.
    for (what, pattern), needles in zip(_ENVIRONMENT, evidence._ENVIRONMENT_NEEDLES, strict=True):
        parsed = _parser.parse(pattern.pattern, pattern.flags)
        assert _guaranteed(list(parsed), needles), what
