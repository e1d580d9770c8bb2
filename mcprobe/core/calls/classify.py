"""Turn one call's raw observation into an outcome and flags (SPEC §5).

Pure: no I/O, no clock. Everything read here came from the target and is untrusted: it may have
any shape, so every access is defensive and nothing here raises for what a target sends.

Decisions where the spec is silent:

- A ``RESULT`` that breaks the MCP ``CallToolResult`` schema of the negotiated version (not an
  object, ``content`` missing or not a list, a malformed content item, ``isError`` not a boolean,
  ``structuredContent`` not an object from 2025-06-18 on; ``core.result_shape``) is a protocol
  violation: ``protocolError`` with no error code and an "invalid result" note. It is neither a
  clean success nor a clean rejection (a conforming client cannot read it), and the session goes
  on, so later cases still run.
- Usable content for ``emptySuccess``: non-blank text, a non-null ``structuredContent``, or a
  well-formed non-text item (image/audio with data, an embedded resource, a resource link), so
  an image tool is not called "empty".
- ``outputSchemaViolation``: a declared ``outputSchema`` obliges ``structuredContent`` even when
  the schema itself is not a valid JSON Schema; the content is then not validated and the note
  says why.
- ``leak`` looks only at error text (``toolError`` text content; JSON-RPC error message and every
  string inside ``data``). Strings that mcprobe itself sent as arguments are removed first, so a
  server echoing our input back is not blamed. A framework's standard validation summary such as
  pydantic's ``1 validation error for divideArguments`` is not a leak by itself: it names the
  generated arguments model, not an internal failure.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from mcprobe.core.calls.evidence import RESOURCE_LIMIT, environment_cause, failure_text
from mcprobe.core.calls.result_shape import describe, result_shape_problems
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.isolation import FILE_LIMIT_DEATH
from mcprobe.core.model import (
    INTERNAL_ERROR,
    JSON,
    Case,
    CaseResult,
    Outcome,
    RawCall,
    RawKind,
    is_internal_error,
)
from mcprobe.core.schema.dialect import instance_errors, schema_problems
from mcprobe.core.schema.json_depth import clip
from mcprobe.core.verdicts import call_verdicts

__all__ = [
    "INTERNAL_ERROR",
    "MESSAGE_LIMIT",
    "ResultContent",
    "classify_call",
    "classify_unknown_tool_probe",
    "excerpt",
    "jsonrpc_error_text",
    "leak_kind",
    "output_schema_check",
    "read_result",
    "without_echoes",
]

MESSAGE_LIMIT = 200
_SCAN_LIMIT = 100_000  # characters of error text scanned for leaks (responses are capped anyway)
_MAX_DEPTH = 20  # nesting depth followed when collecting strings from untrusted JSON
_MIN_ECHO = 4  # argument strings at least this long are removed before leak scanning


# --------------------------------------------------------------------------- leak detection

# ``leak`` means internals, not information: a traceback, a stack frame, a source file with a
# line number, an install directory of packages, or a fully qualified (Java-style) exception
# class. A data path the user needs (an allowed directory, a resolved argument path, an install
# hint) and a bare exception class name (``ValueError: bad input``, how many servers phrase a
# refusal) are not internals and are not flagged.
_SOURCE_EXT = r"(?:py|pyw|m?js|cjs|tsx?|jsx|java|kt|rb|go|rs|php|cs|cpp|cc|c|h)"

_LEAK_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a Python traceback", re.compile(r"Traceback \(most recent call last\)")),
    ("a Python stack frame", re.compile(r"File \"[^\"\n]{1,300}\", line \d+|\.py\"?, line \d+")),
    (
        "a JavaScript stack frame",
        re.compile(r"(?:\.(?:m?js|cjs|tsx?|jsx)|node:internal/[\w/]{1,200}):\d+:\d+"),
    ),
    (
        "a Java stack frame",
        re.compile(r"\bat [\w$.]{1,300}\([\w$]{1,100}\.(?:java|kt|scala):\d+\)"),
    ),
    (
        "a Java exception class",
        re.compile(
            r"\b(?:java|javax|jakarta|kotlin|scala|org|com)\.[\w.$]{0,200}(?:Exception|Error)\b"
        ),
    ),
    (
        "a qualified exception class name",
        re.compile(
            r"\b[a-z_][a-z0-9_]{0,100}(?:\.[a-z_][a-z0-9_]{0,100}){0,10}\.[A-Z]\w{0,100}(?:Error|Exception)\b"
        ),
    ),
    (
        "a source file path with a line number",
        re.compile(r"[/\\][\w.@+-]{1,200}\." + _SOURCE_EXT + r":\d+\b"),
    ),
    ("a package directory path", re.compile(r"(?:site-packages|dist-packages|node_modules)[/\\]")),
)


# One pass that matches wherever any leak pattern matches: most error texts are clean, and one
# search costs less than eleven. Which label applies is still decided in ``_LEAK_PATTERNS`` order.
_ANY_LEAK = re.compile("|".join(f"(?:{pattern.pattern})" for _, pattern in _LEAK_PATTERNS))


# A match of each leak pattern holds a run of characters that contains no space: "Traceback";
# "line" (", line 3"); ``:\d`` (the ``:line`` of a JavaScript, Java or source-file frame); a dot
# followed by word characters then "Error" or "Exception" (both exception-class patterns); a
# "packages" or "node_modules" directory. Removing echoed strings replaces each with a space,
# so every run without a space in the text that is scanned stood in the text as it came: a text
# without any of these runs cannot leak whatever is removed from it, and the arguments' strings
# need not be collected at all (most error texts: "Invalid params", "bad value").
_MAY_LEAK = re.compile(
    r"Traceback|line|:\d|\.[\w.$]{0,200}(?:Error|Exception)|packages|node_modules"
)


def leak_kind(text: str, sent: JSON = None) -> str | None:
    """What internal detail ``text`` leaks (e.g. "a Python traceback"), or None.

    Strings that occur in ``sent`` (the arguments mcprobe sent) are removed from the text first,
    so an error that merely echoes our own input is not a leak.
    """
    scanned = text[:_SCAN_LIMIT]
    if _MAY_LEAK.search(scanned) is None:
        return None  # no pattern can match, echoes removed or not (see ``_MAY_LEAK``)
    scanned = without_echoes(scanned, sent)
    if _ANY_LEAK.search(scanned) is None:
        return None
    for label, pattern in _LEAK_PATTERNS:
        if pattern.search(scanned):
            return label
    return None


def without_echoes(text: str, sent: JSON) -> str:
    """``text`` with every string of ``sent`` (the arguments mcprobe sent, keys included) at
    least ``_MIN_ECHO`` characters long replaced by a space, longest first: what the server said
    in its own words, so an error that merely echoes our input is not read as its own."""
    if len(text) < _MIN_ECHO:  # no string of ours is long enough to be removed
        return text
    echoes = {s for s in _strings(sent) if len(s) >= _MIN_ECHO}
    for echoed in sorted(echoes, key=len, reverse=True):
        text = text.replace(echoed, " ")
    return text


# --------------------------------------------------------------------------- text helpers


def excerpt(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` with whitespace collapsed, control/format characters removed, at most ``limit``
    characters (an ellipsis marks a cut)."""
    collapsed = " ".join(text[: limit * 20].split())
    if collapsed.isascii() and collapsed.isprintable():  # no control characters to drop
        cleaned = collapsed
    else:
        # Control and format characters go; lone surrogates (Cs) stay, so the report can show
        # them as escapes (``safe_json``) instead of silently dropping half an emoji.
        cleaned = "".join(ch for ch in collapsed if _kept(unicodedata.category(ch)))
    if len(cleaned) <= limit:
        return cleaned
    return cleaned[: limit - 1].rstrip() + "…"


def _kept(category: str) -> bool:
    return category[0] != "C" or category == "Cs"


def _strings(value: JSON) -> list[str]:
    """Every string inside an untrusted JSON value (keys included), depth-bounded, in document
    order."""
    found: list[str] = []
    _collect_strings(value, 0, found)
    return found


def _collect_strings(value: JSON, depth: int, found: list[str]) -> None:
    """Append the strings of ``value`` (at nesting ``depth``, at most ``_MAX_DEPTH``)."""
    if isinstance(value, str):
        found.append(value)
        return
    deeper = depth + 1 <= _MAX_DEPTH
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                found.append(key)
            if not deeper:
                continue
            if isinstance(item, str):
                found.append(item)
            elif isinstance(item, dict | list | tuple):
                _collect_strings(item, depth + 1, found)
    elif isinstance(value, list | tuple) and deeper:
        for item in value:
            if isinstance(item, str):
                found.append(item)
            elif isinstance(item, dict | list | tuple):
                _collect_strings(item, depth + 1, found)


@dataclass(slots=True)
class ResultContent:
    """What a ``tools/call`` result carries, read defensively (never changed once read; not
    frozen, whose checked attribute setting costs a call per field)."""

    text: str
    has_usable: bool
    has_structured: bool
    structured: JSON
    is_error: bool
    problems: tuple[str, ...]


def _usable_non_text(item: dict[str, JSON]) -> bool:
    kind = item.get("type")
    if kind in ("image", "audio"):
        data = item.get("data")
        return isinstance(data, str) and bool(data)
    if kind == "resource":
        return isinstance(item.get("resource"), dict)
    if kind == "resource_link":
        uri = item.get("uri")
        return isinstance(uri, str) and bool(uri)
    return False


def read_result(result: JSON) -> ResultContent:
    """What a ``tools/call`` result carries (its text items joined, ``isError``, the structured
    content), read defensively; ``problems`` names what breaks the result's shape."""
    if not isinstance(result, dict):
        return ResultContent("", False, False, None, False, ("the result is not a JSON object",))
    problems: list[str] = []
    texts: list[str] = []
    usable = False
    content = result.get("content")
    if "content" not in result:
        problems.append("the result has no `content` list")
    elif not isinstance(content, list):
        problems.append("`content` is not a list")
    else:
        odd = 0
        for item in content:
            if not isinstance(item, dict):
                odd += 1
            elif item.get("type") == "text":
                text = item.get("text")
                if isinstance(text, str):
                    texts.append(text)
                    usable = usable or bool(text.strip())
                else:
                    odd += 1
            elif _usable_non_text(item):
                usable = True
        if odd:
            problems.append(f"{odd} `content` item(s) are malformed")
    raw_error = result.get("isError")
    if raw_error is not None and not isinstance(raw_error, bool):
        problems.append(
            f"`isError` is a {type(raw_error).__name__}, not a boolean; treated as not an error"
        )
    structured = result.get("structuredContent")
    has_structured = structured is not None
    return ResultContent(
        text="\n".join(texts),
        has_usable=usable or has_structured,
        has_structured=has_structured,
        structured=structured,
        is_error=raw_error is True,
        problems=tuple(problems),
    )


def output_schema_check(tool: JSON, content: ResultContent) -> tuple[bool, str | None]:
    """(violation, note) for a successful valid call of ``tool``: a declared ``outputSchema``
    that ``content`` breaks (or leaves without ``structuredContent``)."""
    if not isinstance(tool, dict) or tool.get("outputSchema") is None:
        return False, None
    schema = tool["outputSchema"]
    if not content.has_structured:
        return True, "the tool declares an `outputSchema` but returned no `structuredContent`"
    invalid = _invalid_schema_note(schema)
    if invalid is not None:
        return False, invalid
    errors = instance_errors(schema, content.structured)
    if errors:
        return True, "`structuredContent` violates `outputSchema`: " + excerpt(errors[0], 150)
    return False, None


_SCHEMA_NOTES: dict[int, tuple[JSON, str | None]] = {}
_SCHEMA_NOTES_SIZE = 4096  # output schemas remembered (one audit's tools); then it starts over


def _invalid_schema_note(schema: JSON) -> str | None:
    """The note for an ``outputSchema`` that is no valid JSON Schema, or None when it is one:
    worked out once per schema object (every valid call of the tool asks), keyed on identity
    (the entry keeps the object alive), never on content. Nothing mutates what a target sent."""
    found = _SCHEMA_NOTES.get(id(schema))
    if found is not None and found[0] is schema:
        return found[1]
    problems = schema_problems(schema)
    note = (
        "`outputSchema` is not a valid JSON Schema "
        f"({excerpt(problems[0].message, 120)}); `structuredContent` not checked"
        if problems
        else None
    )
    if len(_SCHEMA_NOTES) >= _SCHEMA_NOTES_SIZE:
        _SCHEMA_NOTES.clear()
    _SCHEMA_NOTES[id(schema)] = (schema, note)
    return note


# A server refuses most malformed cases in the same few words ("Invalid params", "bad value"),
# 35,500 calls at 1,000 tools: what an error text shows, needs and may leak is worked out once
# per text (a pure function of the text alone; whether it does leak also depends on the
# arguments echoed, so a text that may leak is still looked at per call, by ``leak_kind``).
_TEXT_FACTS: dict[str, tuple[str | None, str | None, bool]] = {}
_TEXT_FACTS_SIZE = 4096  # texts remembered; then it starts over
_TEXT_FACTS_LIMIT = 512  # longer texts are not kept


def forget_texts() -> None:
    """Empty the memo of error texts (benchmarks start each run cold with it)."""
    _TEXT_FACTS.clear()


def _text_facts(text: str) -> tuple[str | None, str | None, bool]:
    """What an error ``text`` shows (its ``excerpt``, None when empty), what it needs from the
    machine (``environment_cause``), and whether it may leak (``_MAY_LEAK``: when not,
    ``leak_kind`` is None whatever the arguments)."""
    found = _TEXT_FACTS.get(text)
    if found is None:
        found = (
            excerpt(text) or None,
            environment_cause(text),
            _MAY_LEAK.search(text[:_SCAN_LIMIT]) is not None,
        )
        if len(text) <= _TEXT_FACTS_LIMIT:
            if len(_TEXT_FACTS) >= _TEXT_FACTS_SIZE:
                _TEXT_FACTS.clear()
            _TEXT_FACTS[text] = found
    return found


def _rendered(value: JSON) -> str:
    if value is None:  # no ``data`` (most errors): no strings
        return ""
    return "\n".join(_strings(value))


def jsonrpc_error_text(raw: RawCall) -> str:
    """A JSON-RPC error's words: its message, then every string inside its ``data``."""
    message_text = raw.error_message if isinstance(raw.error_message, str) else ""
    return "\n".join(part for part in (message_text, _rendered(raw.error_data)) if part)


# --------------------------------------------------------------------------- classification


def classify_call(
    case: Case, raw: RawCall, tool: JSON, *, protocol_version: str | None = None
) -> CaseResult:
    """Classify one call of ``case`` (SPEC §5 outcomes and flags).

    ``tool`` is the raw tool definition (read for its ``outputSchema``); ``raw`` is what the I/O
    layer observed; ``protocol_version`` the negotiated one (its ``CallToolResult`` schema is the
    yardstick of a result's shape). Never raises for anything the target sent.
    """
    if raw.kind is RawKind.NOT_RUN:
        return _result(case, raw, Outcome.NOT_RUN, note=_note(raw.detail))
    if raw.kind is RawKind.TIMEOUT:
        detail = raw.detail or "no answer within the per-call timeout"
        return _result(case, raw, Outcome.TIMEOUT, note=_note(detail))
    if raw.kind is RawKind.TRANSPORT_LOST:
        detail = raw.detail or "the transport closed or the reply was not valid JSON-RPC"
        # A death at the sandbox's file-size limit (the I/O layer's own words) is the limit's
        # doing: environment, inconclusive, out of the score.
        limit = f"{RESOURCE_LIMIT} (`SIGXFSZ`)" if FILE_LIMIT_DEATH in detail else None
        return _result(case, raw, Outcome.PROTOCOL_CRASH, note=_note(detail), environment=limit)
    if raw.kind is RawKind.JSONRPC_ERROR:
        return _classify_jsonrpc_error(case, raw)
    content = _plain_text_content(raw.result)
    if content is None:
        invalid = _invalid_result(case, raw, protocol_version)
        if invalid is not None:
            return invalid
        content = read_result(raw.result)
    return _classify_result(case, raw, tool, content)


def _plain_text_content(result: JSON) -> ResultContent | None:
    """The common result read at once: one plain ``text`` item (a string ``text``, no
    ``annotations``), a boolean ``isError`` or none, and nothing else. It conforms to the
    ``CallToolResult`` schema of every version (``result_shape_problems`` finds nothing) and is
    what ``_read_result`` reads of it; None for any other result (the full path)."""
    if type(result) is not dict:
        return None
    content = result.get("content")
    if type(content) is not list or len(content) != 1:
        return None
    is_error = result.get("isError", False)
    if type(is_error) is not bool or len(result) != 1 + ("isError" in result):
        return None
    item = content[0]
    if type(item) is not dict or item.get("type") != "text" or "annotations" in item:
        return None
    text = item.get("text")
    if type(text) is not str:
        return None
    return ResultContent(text, bool(text.strip()), False, None, is_error, ())


def _invalid_result(case: Case, raw: RawCall, protocol_version: str | None) -> CaseResult | None:
    """A result that breaks the MCP result schema: ``protocolError`` with no error code (see
    ``CaseResult.invalid_result``) and a note naming the fields, or None when it conforms.

    Checked before anything else reads the result, so a string ``isError: "true"`` or a
    ``content`` that is not a list is never a clean success (nor a clean rejection). A reply the
    I/O layer dropped on purpose (over the size cap: no result, a detail) is not judged here."""
    if raw.result is None and raw.detail:
        return None
    problems = result_shape_problems(raw.result, protocol_version)
    if not problems:
        return None
    content = read_result(raw.result)
    shown = content.text if content.text.strip() else _rendered_structured(content)
    return _result(
        case,
        raw,
        Outcome.PROTOCOL_ERROR,
        message=excerpt(shown) or None,
        note=_note(describe(problems, protocol_version)),
    )


def _result(case: Case, raw: RawCall, outcome: Outcome, **found: Any) -> CaseResult:
    """The case's result: what was sent, the outcome, the flags and texts ``found``, and the
    verdicts they show (detected here, once: ``verdicts.call_verdicts``, as ``judged`` does;
    built a second time only when there is a verdict to store, most calls show none)."""
    tool, label, kind, malformed, arguments = (
        case.tool,
        case.label,
        case.kind,
        case.malformed,
        case.arguments,
    )
    latency, source = raw.latency_ms, case.source
    result = CaseResult(
        tool, label, kind, malformed, arguments, outcome, latency, source=source, **found
    )
    verdicts = call_verdicts(result)
    if not verdicts:
        return result
    return CaseResult(
        tool,
        label,
        kind,
        malformed,
        arguments,
        outcome,
        latency,
        source=source,
        verdicts=verdicts,
        **found,
    )


def _classify_jsonrpc_error(case: Case, raw: RawCall) -> CaseResult:
    error_text = jsonrpc_error_text(raw)
    # No code: the reply was no JSON-RPC message at all (the I/O layer says why in ``detail``),
    # an invalid result like any (``CaseResult.invalid_result``), never a rejection.
    notes: list[str] = [raw.detail] if raw.error_code is None and raw.detail else []
    if is_internal_error(raw.error_code):
        notes.append("internal error (-32603) is not a clean rejection")
    message, environment, may_leak = _text_facts(error_text)
    leaked = leak_kind(error_text, case.arguments) if may_leak else None
    if leaked:
        notes.append(f"the error text leaks {leaked}")
    return _result(
        case,
        raw,
        Outcome.PROTOCOL_ERROR,
        error_code=raw.error_code,
        flags=_LEAK if leaked is not None else _NO_FLAGS,
        message=message,
        note=_note(*notes),
        environment=environment,
    )


def _classify_result(case: Case, raw: RawCall, tool: JSON, content: ResultContent) -> CaseResult:
    notes = list(content.problems)
    if content.is_error:
        message, environment, may_leak = _text_facts(content.text)
        leaked = leak_kind(content.text, case.arguments) if may_leak else None
        if leaked:
            notes.append(f"the error text leaks {leaked}")
        return _result(
            case,
            raw,
            Outcome.TOOL_ERROR,
            flags=_LEAK if leaked is not None else _NO_FLAGS,
            message=message,
            note=_note(*notes),
            environment=environment,
        )
    silently_accepted = case.malformed
    empty = False
    violation = False
    failed = failure_text(content.text, content.structured, case.arguments)
    environment = environment_cause(content.text) if failed else None
    if silently_accepted:
        if case.kind is CaseKind.UNKNOWN_TOOL and failed:
            notes.insert(
                0,
                "a call to a tool that does not exist was answered with text saying it failed, "
                "but without `isError` (the protocol said success)",
            )
        elif case.kind is CaseKind.UNKNOWN_TOOL:
            notes.insert(
                0, "a call to a tool that does not exist was answered as a success (no `isError`)"
            )
        elif failed:
            notes.insert(
                0,
                f"the refusal was only in the text ({failed}); without `isError` the protocol "
                "said success",
            )
        else:
            notes.insert(0, "malformed input was accepted")
    elif failed:
        notes.insert(
            0,
            f"reports failure as success without `isError` ({failed}): a model will read it "
            "as done",
        )
    else:
        empty = not content.has_usable
        if empty:
            notes.insert(0, "no usable content: no non-blank text and no `structuredContent`")
        violation, schema_note = output_schema_check(tool, content)
        if schema_note:
            notes.append(schema_note)
    shown = content.text if content.text.strip() else _rendered_structured(content)
    return _result(
        case,
        raw,
        Outcome.OK,
        flags=_ok_flags(
            silently_accepted=silently_accepted,
            empty=empty,
            violation=violation,
            failure_as_success=failed is not None and not case.malformed,
        ),
        message=excerpt(shown) or None,
        note=_note(*notes),
        environment=environment,
    )


# The evidence a classified call carries (``CaseResult.flags``): the keys of the verdicts whose
# detectors read it (``core/verdicts.py``).
_NO_FLAGS: frozenset[str] = frozenset()
_LEAK = frozenset({"leak"})


def _ok_flags(
    *, silently_accepted: bool, empty: bool, violation: bool, failure_as_success: bool
) -> frozenset[str]:
    """The flags of a success: what it showed (most successes show none)."""
    if not (silently_accepted or empty or violation or failure_as_success):
        return _NO_FLAGS
    found = (
        ("silentlyAccepted", silently_accepted),
        ("emptySuccess", empty),
        ("outputSchemaViolation", violation),
        ("failureAsSuccess", failure_as_success),
    )
    return frozenset(key for key, shown in found if shown)


def _rendered_structured(content: ResultContent) -> str:
    if not content.has_structured:
        return ""
    try:
        structured = clip(content.structured)  # json.dumps recurses; json_depth bounds it
        return json.dumps(structured, ensure_ascii=False, sort_keys=True)[:4000]
    except (TypeError, ValueError):
        return ""


def _note(*parts: str | None) -> str | None:
    kept = [p for p in parts if p]
    return excerpt("; ".join(kept), 400) if kept else None


def classify_unknown_tool_probe(
    name: str, raw: RawCall, *, protocol_version: str | None = None
) -> CaseResult:
    """Classify the once-per-server call to ``name``, a tool that does not exist.

    It must be rejected (``toolError`` or a JSON-RPC error other than -32603); an ``ok`` means the
    server executed a non-existent tool, which is flagged ``silentlyAccepted``.
    """
    case = Case(
        tool=name, kind=CaseKind.UNKNOWN_TOOL, label="unknown_tool", arguments={}, malformed=True
    )
    return classify_call(case, raw, {}, protocol_version=protocol_version)
