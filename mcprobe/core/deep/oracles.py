"""Judge the answers of one tool's deep calls against its base (issue 25 item 3). Pure.

Each edge is read once (``_read``: what the server said, in its own words once mcprobe's
argument strings are removed), the edges of one field are compared with each other
(``_FieldView``), and each edge gets at most one oracle, the most telling first: a crash, a
hang, then for a refusal a schema contradiction, a runtime error or a differential, for an ok
answer an error dressed as success or an output-schema violation. What never counts:

- an answer ``environment_cause`` explains (network, a missing binary…), unless the base said
  the same (then the message is the tool's background, not what the edge did);
- an errno on the path that was sent (``ENOENT … 'the/path'``): a refusal the user can act on;
  on a path-like field any errno (``EISDIR`` for ``""``, which resolves to a directory): the
  operating system's answer about the path the field names;
- for a runtime error, text identical on every edge of the field (that is validation), or a
  runtime message the author framed with the field's name (``Invalid timezone: embedded null
  byte``: caught and said which value was wrong);
- for a differential, refusals all of one kind;
- a death that did not reproduce when replayed alone.

A field that fails on 12 edges is one defect: one finding per (tool, field, oracle), the first
edge in plan order with the count of the others in ``why``. A combination (``a+b``) whose
finding only repeats one of its single fields' (the same oracle, the same words from the
server) is that field's defect again and no finding of its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from mcprobe.core.calls.answers import describe
from mcprobe.core.calls.classify import (
    ResultContent,
    excerpt,
    jsonrpc_error_text,
    output_schema_check,
    read_result,
    without_echoes,
)
from mcprobe.core.calls.evidence import environment_cause, failure_text
from mcprobe.core.deep.edges import is_path_like
from mcprobe.core.deep.model import DeepAnswer, DeepFinding, DeepPlan, Edge, Oracle
from mcprobe.core.deep.signatures import (
    count_like,
    duration_like,
    errno_failure,
    errno_on_sent_path,
    exception_class,
    framed_by_field,
    named_types,
    received_types,
    runtime_class,
    runtime_message,
)
from mcprobe.core.isolation import FILE_LIMIT_DEATH
from mcprobe.core.model import INVALID_PARAMS, JSON, RawCall, RawKind
from mcprobe.core.quoting import quoted
from mcprobe.core.schema.view import json_type

__all__ = ["judge_corruption", "judge_tool"]

_FAST_SHARE = 0.1  # the base answered within this share of the call timeout: "fast"
_LARGE_COUNT = 1000  # a count-like field raised to at least this may rightly be slow
_LARGE_EDGES = frozenset({"int32", "int53"})
_STDERR_LIMIT = 160
_OK, _REFUSED, _TIMEOUT, _LOST, _OTHER = "ok", "refused", "timeout", "lost", "other"


@dataclass(frozen=True, slots=True)
class _Reading:
    """One answer read once: its status, the server's words as sent (``text``) and without
    mcprobe's argument strings (``own``), the JSON-RPC code, the result content."""

    answer: DeepAnswer
    status: str
    text: str = ""
    own: str = ""
    code: int | None = None
    content: ResultContent | None = None
    failure: str | None = None  # an ok result's failure text (``failure_text``)
    environment: str | None = None
    errno_path: bool = False
    cls: str = ""  # the exception class or errno the server's own words name
    kind: str = ""  # a refusal's channel and class: what a field's refusals are compared by

    @property
    def edge(self) -> Edge:
        return self.answer.edge


def _words(raw: RawCall) -> tuple[str, int | None, ResultContent | None]:
    if raw.kind is RawKind.JSONRPC_ERROR:
        return jsonrpc_error_text(raw), raw.error_code, None
    content = read_result(raw.result)
    return content.text, None, content


def _status(raw: RawCall, content: ResultContent | None) -> str:
    if raw.kind is RawKind.JSONRPC_ERROR:
        return _REFUSED if raw.error_code is not None else _OTHER
    if raw.kind is RawKind.TIMEOUT:
        return _TIMEOUT
    if raw.kind is RawKind.TRANSPORT_LOST:
        return _LOST
    if raw.kind is not RawKind.RESULT or raw.result is None or content is None:
        return _OTHER  # not sent, or a reply the I/O layer dropped (over the size cap)
    return _REFUSED if content.is_error else _OK


def _read(answer: DeepAnswer) -> _Reading:
    raw = answer.raw
    if raw.kind not in (RawKind.RESULT, RawKind.JSONRPC_ERROR):
        return _Reading(answer, _status(raw, None))
    text, code, content = _words(raw)
    status = _status(raw, content)
    own = without_echoes(text, answer.edge.arguments)
    failure = None
    if status == _OK and content is not None:
        failure = failure_text(text, content.structured, answer.edge.arguments)
    environment = environment_cause(text) if status == _REFUSED or failure else None
    errno_path = status == _REFUSED and errno_on_sent_path(text, own, answer.edge.value)
    cls = exception_class(own) if status == _REFUSED else ""
    channel = "a tool error" if code is None else f"JSON-RPC error {code}"
    kind = f"{channel} ({cls})" if cls else channel
    return _Reading(
        answer, status, text, own, code, content, failure, environment, errno_path, cls, kind
    )


# --------------------------------------------------------------------------- the base


@dataclass(frozen=True, slots=True)
class _Base:
    """What the base answer says, for comparing every edge with it."""

    ok: bool
    latency_ms: float
    failure: str | None
    environment: str | None
    violation: bool


def _base(tool: JSON, raw: RawCall, arguments: JSON) -> _Base:
    if raw.kind is not RawKind.RESULT or raw.result is None:
        text = jsonrpc_error_text(raw) if raw.kind is RawKind.JSONRPC_ERROR else ""
        return _Base(False, raw.latency_ms, None, environment_cause(text), False)
    content = read_result(raw.result)
    failure = failure_text(content.text, content.structured, arguments)
    violation = not content.is_error and output_schema_check(tool, content)[0]
    return _Base(
        not content.is_error and failure is None,
        raw.latency_ms,
        failure,
        environment_cause(content.text),
        violation,
    )


# --------------------------------------------------------------------------- the fields


def _field_schema(tool: JSON, path: str) -> dict[str, JSON] | None:
    """The input schema of the dotted ``path`` (``opts.limit``), or None when it cannot be
    followed through plain ``properties``."""
    schema = tool.get("inputSchema") if isinstance(tool, dict) else None
    for name in path.split("."):
        props = schema.get("properties") if isinstance(schema, dict) else None
        schema = props.get(name) if isinstance(props, dict) else None
    return schema if isinstance(schema, dict) else None


def _types(schema: dict[str, JSON]) -> set[str]:
    """The JSON types ``schema`` names (its ``type`` and its ``anyOf``/``oneOf`` branches')."""
    found: set[str] = set()
    declared = schema.get("type")
    if isinstance(declared, str):
        found.add(declared)
    elif isinstance(declared, list):
        found.update(t for t in declared if isinstance(t, str))
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for branch in branches:
                if isinstance(branch, dict):
                    found |= _types(branch)
    return found


@dataclass(frozen=True, slots=True)
class _FieldFacts:
    """What the schema says of a changed field (``a+b``: of each part)."""

    allowed: frozenset[str] | None  # None: some part's types are unknown
    duration: bool
    count: bool
    path: bool  # some part is path-like (``edges.is_path_like``)


def _field_facts(tool: JSON, field: str) -> _FieldFacts:
    allowed: set[str] | None = set()
    duration = count = path_like = False
    for path in field.split("+"):
        schema = _field_schema(tool, path)
        name = path.rsplit(".", 1)[-1]
        description = schema.get("description") if schema else None
        duration = duration or duration_like(
            name, description if isinstance(description, str) else ""
        )
        count = count or count_like(name)
        path_like = path_like or is_path_like(name, description)
        types = _types(schema) if schema else set()
        allowed = allowed | types if allowed is not None and types else None
    frozen = frozenset(allowed) if allowed is not None else None
    return _FieldFacts(frozen, duration, count, path_like)


@dataclass(frozen=True, slots=True)
class _FieldView:
    """The answers of one field's edges, side by side (counted once per field)."""

    facts: _FieldFacts
    judged: int  # readings that count (answered, not excused by the environment)
    refusals: int
    kinds: dict[str, int]
    same_text: bool  # every judged edge refused with the same words
    same_refusals: bool  # at least two refusals, all with the same words


def _field_view(facts: _FieldFacts, readings: list[_Reading]) -> _FieldView:
    refusals = [r for r in readings if r.status == _REFUSED]
    kinds: dict[str, int] = {}
    for reading in refusals:
        kinds[reading.kind] = kinds.get(reading.kind, 0) + 1
    texts = {" ".join(r.own.split()) for r in refusals}
    same = len(refusals) >= 2 and len(texts) == 1
    every = same and len(refusals) == len(readings)
    return _FieldView(facts, len(readings), len(refusals), kinds, every, same)


# --------------------------------------------------------------------------- the oracles


def _large(value: JSON, depth: int = 0) -> bool:
    """Whether ``value`` holds a number of at least ``_LARGE_COUNT`` (a few levels down: a
    combination's values, a one-element array)."""
    if isinstance(value, bool) or depth > 3:
        return False
    if isinstance(value, int | float):
        return abs(value) >= _LARGE_COUNT
    items = (
        value
        if isinstance(value, list)
        else list(value.values())
        if isinstance(value, dict)
        else []
    )
    return any(_large(v, depth + 1) for v in items[:100])


def _hang(reading: _Reading, view: _FieldView, base: _Base, call_timeout: float) -> str | None:
    if base.latency_ms >= _FAST_SHARE * call_timeout * 1000:
        return None
    if view.facts.duration:
        return None
    if view.facts.count and (reading.edge.edge in _LARGE_EDGES or _large(reading.edge.value)):
        return None
    return (
        f"no answer within the {call_timeout:g} s call timeout, where the base answered in "
        f"{base.latency_ms:.0f} ms; {quoted(reading.edge.field)} is no duration-like field and was "
        "not raised to a large count"
    )


def _crash(reading: _Reading) -> str | None:
    if not reading.answer.replayed or FILE_LIMIT_DEATH in (reading.answer.raw.detail or ""):
        return None
    return (
        "the target died on this edge and died again when the edge was replayed alone; "
        "it had answered the base call"
    )


def _other_type(named: str, allowed: frozenset[str] | set[str]) -> bool:
    """Whether ``named`` is none of ``allowed`` (an integer is a number)."""
    return named not in allowed and not (named == "number" and "integer" in allowed)


def _contradiction(reading: _Reading, view: _FieldView) -> str | None:
    """A refusal that asks for a type the schema does not allow, or says it was given another
    type than the one sent (read on the words as sent: ``received null`` after ``"null"``)."""
    allowed = view.facts.allowed
    if not allowed:
        return None
    field = quoted(reading.edge.field)
    wrong = {t for t in named_types(reading.text) if _other_type(t, allowed)}
    if wrong:
        return (
            f"{field} allows {_listed(allowed)} and the value sent is one, yet the refusal asks "
            f"for {_listed(wrong)}: the value was read as another type (a JSON-looking string "
            "parsed before the tool saw it?)"
        )
    sent = json_type(reading.edge.value) if "+" not in reading.edge.field else "unknown"
    if sent == "unknown":
        return None
    seen = {t for t in received_types(reading.text) if _other_type(t, {sent})}
    if not seen:
        return None
    return (
        f"{field} allows {_listed(allowed)} and a {quoted(sent)} was sent, yet the refusal "
        f"says it was given {_listed(seen)}: the value was parsed into another type before it "
        "was validated"
    )


def _runtime(reading: _Reading, view: _FieldView) -> str | None:
    if view.same_text:
        return None  # the same words on every edge of the field: validation
    signature = runtime_message(reading.own)
    if signature is None and not view.same_refusals:
        # a bare class name (``TypeError: name must be a string``) counts only where the
        # field's refusals differ: the same words on each refused edge are the author's check
        signature = runtime_class(reading.own)
    if signature is None or framed_by_field(reading.text, reading.edge.field):
        return None  # none, or the author caught it and named the field: a refusal
    return (
        f"{reading.kind} shows {signature} in the server's own words (mcprobe's argument "
        "strings removed), where the base call succeeded"
    )


def _differential(reading: _Reading, view: _FieldView, base: _Base) -> str | None:
    if not base.ok:
        return None
    kind = reading.kind
    consistent = view.judged >= 2 and view.kinds.get(kind, 0) == view.judged
    if consistent:
        return None  # the field's every edge got this refusal: its validation
    others = ", ".join(k for k in view.kinds if k != kind) or "success"
    if reading.code is not None and reading.code != INVALID_PARAMS:
        return (
            f"the base call succeeded and this edge got {kind}, unlike the field's other "
            f"answers ({others})"
        )
    field_named = reading.edge.field.rsplit(".", 1)[-1].lower() in reading.text.lower()
    if (
        reading.code is None
        and reading.cls
        and view.refusals > view.kinds[kind]
        and not field_named
    ):
        return (
            f"the base call succeeded and this edge got {kind}, an error class none of the "
            f"field's other refusals show ({others})"
        )
    return None


def _error_as_success(reading: _Reading, base: _Base) -> str | None:
    if reading.failure is None or base.failure is not None:
        return None  # no failure reported, or the base talks like that too: how the tool answers
    return (
        f"an ok result (no `isError`) that reports failure: {reading.failure}; the base's did not"
    )


def _output_schema(tool: JSON, reading: _Reading, base: _Base) -> str | None:
    if reading.content is None or base.violation or not base.ok:
        return None
    violation, note = output_schema_check(tool, reading.content)
    if not violation:
        return None
    return f"{note}; the base's result met it"


def _verdict(
    tool: JSON, reading: _Reading, view: _FieldView, base: _Base, call_timeout: float
) -> tuple[Oracle, str] | None:
    status = reading.status
    if status == _LOST:
        why = _crash(reading)
        return (Oracle.CRASH, why) if why else None
    if status == _TIMEOUT:
        why = _hang(reading, view, base, call_timeout)
        return (Oracle.HANG, why) if why else None
    if status == _REFUSED:
        if reading.errno_path or (view.facts.path and errno_failure(reading.text)):
            return None  # the operating system's answer about the path: a refusal
        for oracle, why in (
            (Oracle.SCHEMA_CONTRADICTION, _contradiction(reading, view)),
            (Oracle.RUNTIME_ERROR, _runtime(reading, view)),
            (Oracle.DIFFERENTIAL, _differential(reading, view, base)),
        ):
            if why:
                return oracle, why
        return None
    if status == _OK:
        why = _error_as_success(reading, base)
        if why:
            return Oracle.ERROR_AS_SUCCESS, why
        why = _output_schema(tool, reading, base)
        return (Oracle.OUTPUT_SCHEMA, why) if why else None
    return None


# --------------------------------------------------------------------------- judging


def _excused(reading: _Reading, base: _Base) -> bool:
    """The machine, not the edge: an environment message the base did not show."""
    return reading.environment is not None and reading.environment != base.environment


def _answer_text(reading: _Reading) -> str:
    if reading.status in (_REFUSED, _OK) and reading.text.strip():
        if reading.code is not None:
            return excerpt(f"JSON-RPC error {reading.code}: {reading.text}")
        return excerpt(reading.text)
    return excerpt(describe(reading.answer.raw))


def _listed(types: frozenset[str] | set[str]) -> str:
    return " or ".join(quoted(t) for t in sorted(types))


def _finding(plan: DeepPlan, reading: _Reading, oracle: Oracle, why: str, more: int) -> DeepFinding:
    edge = reading.edge
    if more:
        plural = "s" if more > 1 else ""
        why += f" ({more} more edge{plural} of {quoted(edge.field)} showed the same)"
    return DeepFinding(
        tool=plan.tool,
        oracle=oracle,
        field=edge.field,
        edge=edge.edge,
        arguments=edge.arguments,
        base=plan.base,
        answer=_answer_text(reading),
        why=why,
        label=edge.label,
        stderr=excerpt(reading.answer.stderr, _STDERR_LIMIT),
    )


def _in_plan_order(plan: DeepPlan, answers: Sequence[DeepAnswer]) -> list[DeepAnswer]:
    order = {edge.label: n for n, edge in enumerate(plan.edges)}
    last = len(order)
    return sorted(answers, key=lambda a: order.get(a.edge.label, last))  # stable: ties keep order


def judge_tool(
    tool: JSON,
    plan: DeepPlan,
    base: RawCall,
    answers: Sequence[DeepAnswer],
    *,
    call_timeout: float,
) -> tuple[DeepFinding, ...]:
    """The findings of one tool's deep pass: ``base`` is the answer to ``plan.base`` sent in
    this pass (it succeeded: the plan exists only then), ``answers`` one per sent edge.
    Linear in the answers: each is read once, each field's answers are counted once."""
    judged_base = _base(tool, base, plan.base)
    fields: dict[str, list[_Reading]] = {}
    for answer in _in_plan_order(plan, answers):
        reading = _read(answer)
        if reading.status != _OTHER and not _excused(reading, judged_base):
            fields.setdefault(answer.edge.field, []).append(reading)
    found: dict[tuple[str, Oracle], list[tuple[_Reading, str]]] = {}
    for field, readings in fields.items():
        view = _field_view(_field_facts(tool, field), readings)
        for reading in readings:
            verdict = _verdict(tool, reading, view, judged_base, call_timeout)
            if verdict is not None:
                found.setdefault((field, verdict[0]), []).append((reading, verdict[1]))
    return tuple(
        _finding(plan, shown[0][0], oracle, shown[0][1], len(shown) - 1)
        for (field, oracle), shown in found.items()
        if not _repeats_a_part(field, oracle, shown, found)
    )


def _said(reading: _Reading) -> str:
    return " ".join(reading.own.split())


def _repeats_a_part(
    field: str,
    oracle: Oracle,
    shown: list[tuple[_Reading, str]],
    found: dict[tuple[str, Oracle], list[tuple[_Reading, str]]],
) -> bool:
    """Whether a combination's finding (``a+b``) only repeats what a single field of it already
    showed: every edge of the combination got the same oracle and the same words as some edge
    of ``a`` or ``b`` alone (their minimal reproduction is the single field's)."""
    if "+" not in field:
        return False
    singles = {
        _said(reading) for part in field.split("+") for reading, _ in found.get((part, oracle), ())
    }
    return bool(singles) and all(_said(reading) in singles for reading, _ in shown)


# --------------------------------------------------------------------------- read-after-write


def _read_failure(raw: RawCall, arguments: JSON) -> tuple[str, str | None] | None:
    """(what the failure was, its environment cause) when a read failed, else None."""
    if raw.kind is RawKind.TRANSPORT_LOST:
        return "the connection was lost", None
    if raw.kind is RawKind.JSONRPC_ERROR:
        text = jsonrpc_error_text(raw)
        return f"JSON-RPC error {raw.error_code}", environment_cause(text)
    if raw.kind is not RawKind.RESULT or raw.result is None:
        return None
    content = read_result(raw.result)
    if content.is_error:
        return "a tool error", environment_cause(content.text)
    failed = failure_text(content.text, content.structured, arguments)
    if failed is not None:
        return f"an ok result that reports failure ({failed})", environment_cause(content.text)
    return None


def _read_ok(raw: RawCall, arguments: JSON) -> bool:
    return (
        raw.kind is RawKind.RESULT
        and raw.result is not None
        and _read_failure(raw, arguments) is None
    )


def judge_corruption(
    writer: DeepAnswer,
    read_tool: str,
    read_arguments: JSON,
    before: RawCall,
    after: RawCall,
    base: JSON,
) -> DeepFinding | None:
    """Read-after-write: ``writer`` (an edge of a writing tool) answered ok; the server's own
    read-only tool ``read_tool`` answered ``before`` on ``read_arguments`` before it and
    ``after`` after it. A read that worked before and fails now is a corruption."""
    if not _read_ok(writer.raw, writer.edge.arguments) or not _read_ok(before, read_arguments):
        return None
    failure = _read_failure(after, read_arguments)
    if failure is None or failure[1] is not None:
        return None  # still readable, or the machine is the cause
    edge = writer.edge
    after_words = _raw_excerpt(after)
    return DeepFinding(
        tool=edge.tool,
        oracle=Oracle.CORRUPTION,
        field=edge.field,
        edge=edge.edge,
        arguments=edge.arguments,
        base=base,
        answer=after_words,
        why=(
            f"{quoted(edge.tool)} answered ok on this edge; then the read-only tool "
            f"{quoted(read_tool)} on {quoted(excerpt(_compact(read_arguments), 120))} got "
            f"{failure[0]}, where before the write it had answered "
            f"{quoted(_raw_excerpt(before))}"
        ),
        label=edge.label,
        stderr=excerpt(writer.stderr, _STDERR_LIMIT),
    )


def _compact(arguments: JSON) -> str:
    try:
        return json.dumps(arguments, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(arguments)


def _raw_excerpt(raw: RawCall) -> str:
    if raw.kind is RawKind.JSONRPC_ERROR:
        return excerpt(f"JSON-RPC error {raw.error_code}: {jsonrpc_error_text(raw)}")
    if raw.kind is RawKind.RESULT and raw.result is not None:
        text = read_result(raw.result).text
        if text.strip():
            return excerpt(text)
    return excerpt(describe(raw))
