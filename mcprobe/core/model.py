"""Plain data that flows through the pure core.

Frozen dataclasses and enums only: no I/O, no pydantic (pydantic lives at the boundaries, see
``report_model``). Every module of the pure core (``lint``, ``cases``, ``classify``, ``score``,
``render_markdown``) speaks these types, and so does the I/O layer when it hands the core what a
target sent.

JSON values coming from a target are kept as ``Any``-typed plain Python (dicts, lists, str, ...):
they are untrusted and may have any shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

JSON = Any
"""A JSON value exactly as decoded from the wire (untrusted, any shape)."""


class Severity(StrEnum):
    CRITICAL = "critical"  # security findings that prove or plant harm (SPEC §5.2, §6)
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """0 for the worst severity, so that sorting by rank puts critical ones first."""
        return {"critical": 0, "error": 1, "warning": 2, "info": 3}[self.value]


@dataclass(frozen=True, slots=True)
class Location:
    """Where a finding points: a tool, optionally a parameter, optionally a JSON pointer
    into the tool definition (RFC 6901, e.g. ``/inputSchema/properties/a``)."""

    tool: str | None = None
    param: str | None = None
    pointer: str | None = None
    resource: str | None = None  # a resource URI or template (resource.* findings)
    prompt: str | None = None  # a prompt name (prompt.* findings)


@dataclass(frozen=True, slots=True)
class Finding:
    """One static (lint) or server-level observation about the target."""

    code: str
    severity: Severity
    message: str
    location: Location
    hint: str


# --------------------------------------------------------------------------- server snapshot


@dataclass(frozen=True)
class ServerSnapshot:
    """What the target said about itself, raw.

    ``tools`` holds every tool definition as the target sent it (raw dicts, possibly malformed:
    a tool may lack ``inputSchema`` or not even be an object). ``capabilities`` is the raw
    ``capabilities`` object from ``initialize``. ``listing_findings`` are server-level findings
    that the I/O layer observed while listing (pagination loops, malformed pages, garbage on
    stdout, ...); they count towards Schema Quality's server-wide part.
    """

    name: str | None
    version: str | None
    title: str | None
    protocol_version: str | None
    instructions: str | None
    capabilities: dict[str, JSON]
    tools: tuple[JSON, ...]
    resources_count: int | None = None
    prompts_count: int | None = None
    server_info: dict[str, JSON] = field(default_factory=dict)
    listing_findings: tuple[Finding, ...] = ()
    era: str = "handshake"  # "modern": reached through server/discover (2026-07-28), no initialize


# --------------------------------------------------------------------------- fuzz cases


class CaseSource(StrEnum):
    """Where a case's argument values came from (its provenance).

    ``user``: an example the user gave (``--examples``, the ``examples`` input). ``schema``: every
    value the case sends is the schema's own word (``default``, ``const``, ``examples``, a
    one-value ``enum``), and it sends at least one.
    ``synthesized``: at least one value is mcprobe's guess (a placeholder such as
    ``"example.txt"``), or the case uses no word of the schema at all (``{}`` for a tool whose
    properties are all optional is mcprobe's choice, not an example the author wrote). A tool
    that refuses a synthesized valid call proves nothing about the tool; refusing a user or
    schema example is a real failure.
    """

    USER = "user"
    SCHEMA = "schema"
    SYNTHESIZED = "synthesized"


@dataclass(frozen=True, slots=True)
class Case:
    """One call to make: the exact ``arguments`` to send and why.

    ``malformed`` is True for every kind but ``valid``; it has been checked against the tool's
    input schema with a real validator before the case was emitted, so a malformed case truly
    does not validate and a valid case truly does. ``source``: the provenance of the values the
    case is built on (for a malformed case: of its valid base).
    """

    tool: str
    kind: str  # a ``core.cases.kinds.CaseKind``
    label: str
    arguments: JSON
    malformed: bool
    source: CaseSource = CaseSource.SYNTHESIZED


@dataclass(frozen=True, slots=True)
class DroppedCase:
    """A case the generator built but did not emit, and why (e.g. it validated although it was
    meant to be malformed)."""

    tool: str
    label: str
    reason: str


@dataclass(frozen=True)
class ToolCases:
    """All cases for one tool. ``valid_constructible`` is False when no valid argument object
    could be built; liveness is then "not measured" for this tool, never failed."""

    tool: str
    cases: tuple[Case, ...]
    dropped: tuple[DroppedCase, ...] = ()
    valid_constructible: bool = True
    note: str | None = None


# --------------------------------------------------------------------------- call outcomes


class RawKind(StrEnum):
    """What the I/O layer observed for one call, before classification."""

    RESULT = "result"  # a JSON-RPC result object arrived (kept raw in ``result``)
    JSONRPC_ERROR = "jsonrpcError"  # a JSON-RPC error reply arrived
    TIMEOUT = "timeout"  # nothing within the per-call timeout
    TRANSPORT_LOST = "transportLost"  # process died / stream closed / invalid JSON-RPC reply
    NOT_RUN = "notRun"  # never sent


@dataclass(frozen=True)
class RawCall:
    """One call's raw observation, produced by the I/O layer and consumed by ``classify``."""

    kind: RawKind
    latency_ms: float = 0.0
    result: JSON = None
    error_code: int | None = None
    error_message: str | None = None
    error_data: JSON = None
    detail: str | None = None  # free text from the I/O layer (why not run, what closed, ...)


# The JSON-RPC 2.0 error codes mcprobe reads or sends, each written once (a test keeps every
# such code a named constant); codes of one MCP area (-32002 resource not found, -32022
# unsupported protocol version) are named in that area's check module.
METHOD_NOT_FOUND = -32601
"""JSON-RPC "method not found": the answer to a method the server does not implement."""
INVALID_PARAMS = -32602
"""JSON-RPC "invalid params": a clean refusal of a request's parameters."""
INTERNAL_ERROR = -32603
"""JSON-RPC "internal error": the server failed; never a clean rejection (SPEC §5)."""


def is_internal_error(code: int | None) -> bool:
    """Whether a JSON-RPC error code is -32603 (internal error): the one predicate every verdict,
    check and renderer asks."""
    return code == INTERNAL_ERROR


class Outcome(StrEnum):
    OK = "ok"
    TOOL_ERROR = "toolError"
    PROTOCOL_ERROR = "protocolError"
    TIMEOUT = "timeout"
    PROTOCOL_CRASH = "protocolCrash"
    NOT_RUN = "notRun"


@dataclass(frozen=True, slots=True)
class CaseResult:
    """A classified call: the case, what came back, and the flags of SPEC §5."""

    tool: str
    label: str
    kind: str  # a ``core.cases.kinds.CaseKind``
    malformed: bool
    arguments: JSON
    outcome: Outcome
    latency_ms: float
    # The per-call evidence, as data: the keys of the verdicts it shows on its own
    # (``silentlyAccepted``, ``leak``…: each ``VerdictKind`` whose detector reads a flag), set
    # where it is observed (``calls/classify``, ``calls/evidence``). A new flag is a new key
    # here, never a new field.
    flags: frozenset[str] = frozenset()
    error_code: int | None = None
    message: str | None = None  # short excerpt of the response (untrusted text)
    note: str | None = None  # mcprobe's own explanation (e.g. which validation failed)
    source: CaseSource = CaseSource.SYNTHESIZED
    environment: str | None = None  # the machine, not the server, caused it (excerpt of why)
    inconclusive: str | None = None  # why this result proves nothing (excluded from scores)
    # The verdict keys it shows (``core.verdicts.call_verdicts``), in catalogue priority order:
    # set when the call is classified and when it is judged inconclusive; every score, report
    # and renderer reads this one list.
    verdicts: tuple[str, ...] = ()

    # The flags many readers name, read from ``flags``.
    @property
    def silently_accepted(self) -> bool:
        """A malformed call answered as a success."""
        return "silentlyAccepted" in self.flags

    @property
    def empty_success(self) -> bool:
        """A valid call's success with no usable content."""
        return "emptySuccess" in self.flags

    @property
    def output_schema_violation(self) -> bool:
        """A success that breaks the tool's own outputSchema."""
        return "outputSchemaViolation" in self.flags

    @property
    def leak(self) -> bool:
        """An error text that leaks internals."""
        return "leak" in self.flags

    @property
    def failure_as_success(self) -> bool:
        """No ``isError``, but the content plainly reports failure."""
        return "failureAsSuccess" in self.flags

    @property
    def validation_bypass(self) -> bool:
        """A malformed case answered exactly like the valid call that failed on the machine (the
        same network error): the input reached the handler unvalidated
        (``evidence.judge_controls``)."""
        return "validationBypass" in self.flags

    @property
    def invalid_result(self) -> bool:
        """A result that breaks the MCP result schema (``classify``): a ``protocolError`` with
        no JSON-RPC error code (every JSON-RPC error reply carries one)."""
        return self.outcome is Outcome.PROTOCOL_ERROR and self.error_code is None

    @property
    def rejected(self) -> bool:
        """A clean rejection: ``toolError``, or a JSON-RPC error other than -32603 (an invalid
        result is no rejection, nor is an answer that proves a validation bypass)."""
        if self.validation_bypass:
            return False
        if self.outcome is Outcome.TOOL_ERROR:
            return True
        if self.outcome is not Outcome.PROTOCOL_ERROR or self.error_code is None:
            return False
        return not is_internal_error(self.error_code)

    @property
    def conclusive(self) -> bool:
        """Sent, and judgeable: the only results any score counts."""
        return self.outcome is not Outcome.NOT_RUN and self.inconclusive is None


class SkipCause(StrEnum):
    """Why a tool was not called, as data: the reason text is in the words of the front-end
    that asked (``core/knobs.py``), so code compares the cause, never the text."""

    MALFORMED = "malformed"
    DUPLICATE = "duplicate"
    NOT_REQUESTED = "notRequested"
    UNKNOWN_REQUESTED = "unknownRequested"
    TASK_REQUIRED = "taskRequired"
    SKIPPED_BY_USER = "skippedByUser"
    NEEDS_WRITES = "needsWrites"
    NEEDS_DESTRUCTIVE = "needsDestructive"
    BEYOND_MAX_TOOLS = "beyondMaxTools"


@dataclass(frozen=True)
class SkippedTool:
    """A tool and the reason it was not called (or, in ``Coverage.called``, why it was);
    ``cause`` is that reason as data (None: a reason read back from a report)."""

    tool: str
    reason: str
    cause: SkipCause | None = None


@dataclass(frozen=True)
class Coverage:
    total_tools: int
    fuzzed_tools: tuple[str, ...]
    skipped: tuple[SkippedTool, ...]
    called: tuple[SkippedTool, ...] = ()  # each fuzzed tool with why it was called


@dataclass(frozen=True)
class RestartAttempt:
    """One attempt to start a dead target again with the same spec: how long it took, and why
    it failed (``error`` None: the target is up again; ``stderr_tail``: a failed start's)."""

    seconds: float
    error: str | None = None
    stderr_tail: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class TargetDeath:
    """One time the target died during the behavioural pass (``fuzz_runner``).

    ``cases`` ("tool label", in the order they were sent) were in flight, unanswered, when it
    died: the suspects, each replayed alone afterwards (empty: it died with no call in flight).
    ``replay`` is True for a death caused by such a replay (``cases`` is then that one case,
    which reproduced a death). ``cause`` is what the I/O layer saw ("target exited with code
    9"), ``stderr_tail`` the end of the dead process's stderr (secrets scrubbed), ``restarts``
    the attempts to start it again that followed (empty: none was needed or allowed)."""

    cases: tuple[str, ...]
    cause: str
    stderr_tail: str = ""
    replay: bool = False
    restarts: tuple[RestartAttempt, ...] = ()


@dataclass(frozen=True)
class FuzzRun:
    """Everything the behavioural pass produced for one server.

    ``unknown_tool_probe`` is the classified call to a tool name that provably does not exist
    (label ``unknown_tool``), or None when it was not made; ``non_object_probe`` the one
    ``non_object_arguments`` call (protocol layer, once per server), or None. ``crashed_by``
    (``tool``, ``label``) singles out a case that killed the target from bystanders in flight
    (the report counts only it as a crash); ``fuzz_runner`` leaves it None, as every crash it
    reports was reproduced. ``deadline_hit`` is True when the overall deadline stopped the run.
    ``deaths`` lists every time the target died (with its restarts), ``flaky_crashes`` the
    candidates of each death that no replay reproduced, ``stopped`` why the run could not go on
    after a death (None: it did not stop). ``isolated``: the target ran in the sandbox.
    """

    results: tuple[CaseResult, ...]
    coverage: Coverage
    tool_cases: tuple[ToolCases, ...] = ()
    unknown_tool_probe: CaseResult | None = None
    non_object_probe: CaseResult | None = None  # ``arguments: []``, sent once per server
    crashed_by: tuple[str, str] | None = None
    deadline_hit: bool = False
    deaths: tuple[TargetDeath, ...] = ()
    flaky_crashes: tuple[tuple[str, ...], ...] = ()
    stopped: str | None = None
    isolated: bool = False  # the target ran in the sandbox (what it denies is named so)


# --------------------------------------------------------------------------- scores


@dataclass(frozen=True)
class Deduction:
    """Points one cause cost one dimension, as data: ``cause`` is a ``verdicts.VERDICTS`` key,
    ``params`` the values its reason and fix texts are formatted with, ``tools`` and ``cases``
    ("tool label") what showed it. The reason line and the fix are both produced from this
    record (``verdicts.deduction_reason`` / ``verdicts.deduction_fix``), never parsed back."""

    dimension: str
    amount: float
    cause: str
    tools: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Dimension:
    """One score dimension. ``score`` is None when not measured (never a fake value).
    ``reasons`` are the lines a person reads (deduction lines among them), ``deductions`` the
    same deductions as data."""

    key: str  # metadata | schemaQuality | errorHandling | liveness
    name: str  # human name, e.g. "Metadata & Documentation"
    score: float | None
    reasons: tuple[str, ...]
    deductions: tuple[Deduction, ...] = ()

    @property
    def measured(self) -> bool:
        return self.score is not None


@dataclass(frozen=True)
class Score:
    """``overall`` None and grade ``-``: not graded; ``not_graded`` says why when the cause is
    that no tool of a server with tools was called (``core/score/grading.py``)."""

    overall: int | None
    grade: str  # A-F, or "-" when not graded
    dimensions: tuple[Dimension, ...]
    not_graded: str | None = None
    # Graded on what was measured although no tool was called (``core/score/grading.py``):
    # why, with what would call them; the headline says "static: tools not called".
    static: str | None = None
