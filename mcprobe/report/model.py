"""The report as it crosses a boundary: pydantic models, camelCase on the wire.

``ConformanceReport`` is what ``probe_report`` returns as structured content, what
``mcprobe audit --json`` prints, and what the Markdown, SARIF and JUnit renderers read. Its JSON
Schema is published at ``mcprobe/schemas/report.schema.json`` (regenerate with
``scripts/gen-schema``); ``SCHEMA_VERSION`` changes whenever the shape does.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from mcprobe.core.client_capabilities import describe_capabilities
from mcprobe.core.isolation import Isolation
from mcprobe.core.schema.json_depth import MAX_JSON_DEPTH
from mcprobe.core.schema.safe_json import safe_text, safe_value
from mcprobe.core.target_spec import CANARY_PREFIX, TargetSpec, Transport, scrub
from mcprobe.core.verdicts import bystander_verdicts, call_verdicts, protocol_probe_verdicts

SCHEMA_VERSION = "1.11"

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTAINERS = (dict, list, tuple)


def _already_safe(value: dict[Any, Any] | list[Any] | tuple[Any, ...], depth: int = 1) -> bool:
    """Whether ``safe_value`` would leave the container ``value`` (at nesting ``depth``) as it
    is: no lone surrogate in a string or key, no NaN/Infinity, no container deeper than
    ``MAX_JSON_DEPTH``. One walk that allocates nothing, where ``safe_value`` walks twice (the
    depth, then the values) and builds lists: the common case, a value of mcprobe's own or a
    well-behaved target, then costs a third. Recursive, but at most ``MAX_JSON_DEPTH`` + 1
    levels. It mirrors ``safe_json``'s rules: a rule added there must be added here
    (``tests/report/test_trusted_build.py`` checks both agree)."""
    if depth > MAX_JSON_DEPTH:
        return False
    if isinstance(value, dict):
        for key in value:  # (a loop, not ``all`` over a generator: a call fewer per key)
            if isinstance(key, str) and not key.isascii() and _SURROGATE.search(key):
                return False
        items: Any = value.values()
    else:
        items = value
    for item in items:
        kind = type(item)
        if kind is int or kind is bool or item is None:
            continue
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                return False
        elif isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, _CONTAINERS) and not _already_safe(item, depth + 1):
            return False
    return True


def safe_field(value: Any) -> Any:
    """``safe_value(value)``, the same object when nothing needs a change (``_already_safe``)."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict | list | tuple):
        return value if _already_safe(value) else safe_value(value)
    if isinstance(value, float):
        return safe_value(value)
    return value


_Model = TypeVar("_Model", bound=BaseModel)
_EVERY_FIELD: dict[type[BaseModel], set[str]] = {}


def trusted(cls: type[_Model], fields: dict[str, Any]) -> _Model:
    """An instance of the frozen model ``cls`` holding ``fields`` without validation, for the
    records the builder makes itself. ``fields`` must name every field of ``cls`` by its Python
    name, in declaration order (the order serialisation follows), each of its declared type by
    construction, target text already made safe (``safe_field``), and be what the validators
    would leave. What ``model_construct`` does, without its per-field alias and default
    look-ups: a 1,000-tool report holds 35,500 fuzz results, and validating each cost more than
    building the rest of the report. The instance equals ``cls(**fields)``, with the same
    ``model_fields_set`` (every field): one set per class, shared, which pydantic never changes
    in place on a frozen model (``model_copy`` copies it first)."""
    every = _EVERY_FIELD.get(cls)
    if every is None:
        if not cls.model_config.get("frozen"):
            raise TypeError(f"{cls.__name__} is not frozen: its fields set cannot be shared")
        every = _EVERY_FIELD[cls] = set(cls.model_fields)
    obj = cls.__new__(cls)
    set_slot = object.__setattr__
    set_slot(obj, "__dict__", fields)
    set_slot(obj, "__pydantic_fields_set__", every)
    set_slot(obj, "__pydantic_extra__", None)
    set_slot(obj, "__pydantic_private__", None)
    return obj


class WireModel(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown keys are rejected on input."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    @model_validator(mode="before")
    @classmethod
    def _safe_fields(cls, data: Any) -> Any:
        """Target text may hold lone surrogates, NaN or absurd nesting: made safe here, once,
        so every renderer and ``probe_report`` get strict UTF-8 / strict JSON (``safe_json``)."""
        if isinstance(data, dict):
            return {key: safe_field(value) for key, value in data.items()}
        return data


class LocationOut(WireModel):
    tool: str | None = None
    param: str | None = None
    pointer: str | None = None
    resource: str | None = None
    prompt: str | None = None


class FindingOut(WireModel):
    code: str
    severity: Literal["critical", "error", "warning", "info"]
    message: str
    location: LocationOut
    hint: str


class ServerOut(WireModel):
    name: str | None = None
    version: str | None = None
    title: str | None = None
    protocol_version: str | None = None
    instructions: str | None = None
    capabilities: dict[str, Any] = Field(default_factory=dict)
    era: Literal["handshake", "modern"] | None = Field(
        default=None, description="the protocol era audited: initialize, or 2026-07-28"
    )
    eras: list[Literal["handshake", "modern"]] = Field(
        default_factory=list, description="every era the server was seen to speak"
    )


class DeductionOut(WireModel):
    """Points one cause cost one dimension: ``cause`` is a verdict key (docs/checks.md)."""

    cause: str
    amount: float
    tools: list[str] = Field(default_factory=list)
    cases: list[str] = Field(default_factory=list, description="'tool case' labels")
    params: dict[str, str] = Field(default_factory=dict, description="values of its texts")


class DimensionOut(WireModel):
    key: str
    name: str
    score: float | None = Field(description="0-10, or null when not measured")
    measured: bool
    reasons: list[str]
    deductions: list[DeductionOut] = Field(default_factory=list)


class SkippedToolOut(WireModel):
    tool: str
    reason: str


class CalledToolOut(WireModel):
    tool: str
    reason: str = Field(description="why it was called: the isolation, or the consent given")


class CoverageOut(WireModel):
    total_tools: int
    fuzzed_tools: int
    fuzzed: list[str]
    skipped: list[SkippedToolOut]
    called: list[CalledToolOut] = Field(
        default_factory=list, description="each fuzzed tool with why it was called"
    )


# A report from before schema 1.10 stores no ``verdicts``, only these boolean fields of each
# call: its evidence (``CaseResult.flags``) is read back from them here, once, for
# ``call_verdicts`` to derive its verdicts. A flag added since is never among them (no such report
# has it), so a new flag needs no field here.
LEGACY_FLAG_FIELDS = (
    ("silentlyAccepted", "silently_accepted"),
    ("emptySuccess", "empty_success"),
    ("outputSchemaViolation", "output_schema_violation"),
    ("leak", "leak"),
    ("failureAsSuccess", "failure_as_success"),
    ("validationBypass", "validation_bypass"),
)


def legacy_flags(call: object) -> frozenset[str]:
    """The flags of a loaded-back call, from its stored boolean fields (``LEGACY_FLAG_FIELDS``)."""
    return frozenset(key for key, field in LEGACY_FLAG_FIELDS if getattr(call, field, False))


class FuzzResultOut(WireModel):
    name: str = Field(description="the tool")
    case: str = Field(description="the case label, e.g. wrong_type:a")
    kind: str
    malformed: bool
    outcome: Literal["ok", "toolError", "protocolError", "timeout", "protocolCrash", "notRun"]
    silently_accepted: bool
    empty_success: bool
    output_schema_violation: bool
    leak: bool
    arguments: Any = Field(description="exactly what was sent")
    latency_ms: float
    error_code: int | None = None
    message: str | None = None
    note: str | None = None
    source: Literal["user", "schema", "synthesized"] = Field(
        default="synthesized",
        description="where the arguments' values came from: the user's example, the schema's "
        "own words, or mcprobe's synthesis",
    )
    failure_as_success: bool = Field(
        default=False, description="a valid call answered without isError, reporting failure"
    )
    environment: str | None = Field(
        default=None, description="what the call needs from the machine that it lacks"
    )
    inconclusive: str | None = Field(
        default=None, description="why this result proves nothing (counted in no score)"
    )
    validation_bypass: bool = Field(
        default=False,
        description="a malformed case answered exactly like the valid call that failed on this "
        "machine: the input reached the handler unvalidated",
    )
    verdicts: list[str] = Field(
        default_factory=list,
        description='the verdict keys this call shows (docs/checks.md "Verdicts"), in priority '
        "order: what the score, the critical list, the fix plan and every renderer read",
    )

    @model_validator(mode="after")
    def _derive_verdicts(self) -> Self:
        """A report from before schema 1.10 has no ``verdicts``: they are derived from the
        call's outcome and flags, exactly as the core detects them (``call_verdicts``)."""
        if "verdicts" not in self.model_fields_set:
            object.__setattr__(self, "verdicts", list(call_verdicts(self)))
        return self

    @property
    def flags(self) -> frozenset[str]:
        """The call's evidence, as ``call_verdicts`` reads it (``legacy_flags``)."""
        return legacy_flags(self)

    @property
    def derived(self) -> bool:
        """Whether ``verdicts`` were derived on load rather than given."""
        return "verdicts" not in self.model_fields_set


class FuzzSummaryOut(WireModel):
    cases: int
    sent: int
    not_run: int
    ok: int
    tool_error: int
    protocol_error: int
    timeout: int
    protocol_crash: int
    silently_accepted: int
    empty_success: int
    output_schema_violation: int
    leak: int
    failure_as_success: int = 0
    environment: int = 0
    inconclusive: int = 0
    verdicts: dict[str, int] = Field(
        default_factory=dict,
        description="how many results show each verdict key (priority order; absent: none)",
    )


class CriticalOut(WireModel):
    """One critical verdict: ``kind`` is a verdict key; ``tool`` is null for the unknown-tool
    probe (a server-level verdict)."""

    kind: str
    tool: str | None = None
    cases: list[str] = Field(default_factory=list)


class CaseRefOut(WireModel):
    """A fuzz result of the report, by tool and case label."""

    tool: str
    case: str


class LintFixOut(WireModel):
    """One lint code to fix: ``hint`` when every place shares it (else each finding's own)."""

    code: str
    severity: Literal["critical", "error", "warning", "info"]
    places: int
    hint: str | None = None


class BehaviourFixOut(WireModel):
    """One behavioural fix: verdict ``kind``, the tools showing the same behaviour, their
    results (``cases``), the case kinds involved, and whether it is protocol-level (the
    server's ``tools/call`` dispatch answers so for every tool, so it is fixed once there)."""

    kind: str
    fix: str
    tools: list[str]
    cases: list[CaseRefOut]
    case_kinds: list[str]
    protocol_level: bool
    dimensions: list[str]


class UnknownToolFixOut(WireModel):
    kind: str
    why: str
    fix: str


class FixPlanOut(WireModel):
    """The "Recommended fixes", in order (see ``report/fix_plan.py``): lint codes, Metadata
    changes, behavioural fixes, the unknown-tool probe, other deductions' fixes (e.g. latency),
    then the keys of dimensions that lost points no fix covers."""

    lint: list[LintFixOut] = Field(default_factory=list)
    metadata: list[str] = Field(default_factory=list)
    behaviour: list[BehaviourFixOut] = Field(default_factory=list)
    unknown_tool: UnknownToolFixOut | None = None
    other: list[str] = Field(default_factory=list)
    uncovered: list[str] = Field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (
            self.lint
            or self.metadata
            or self.behaviour
            or self.unknown_tool
            or self.other
            or self.uncovered
        )


class RestartOut(WireModel):
    seconds: float = Field(description="how long the attempt took")
    error: str | None = Field(default=None, description="why it failed; null: restarted")


class TargetDeathOut(WireModel):
    """One time the target died during the fuzz run, and the restarts that followed."""

    cases: list[str] = Field(
        description="'tool case' in flight (unanswered) at the death, in the order sent: the "
        "suspects, each replayed alone afterwards; empty when it died with no call in flight"
    )
    cause: str = Field(description="what mcprobe saw, e.g. 'target exited with code 9'")
    stderr_tail: str = Field(description="how the dead process's stderr ended (target text)")
    replay: bool = Field(description="caused by replaying cases[0] alone: that case crashes it")
    verdict: Literal["crash", "flakyCrash"] | None = Field(
        default=None,
        description="crash: a replay alone reproduced this death (replay deaths); flakyCrash: "
        "no replay did; null: its suspects were replayed and judged one by one",
    )
    restarts: list[RestartOut] = Field(default_factory=list)


DeepOracle = Literal[
    "crash",
    "hang",
    "runtimeError",
    "errorAsSuccess",
    "schemaContradiction",
    "differential",
    "outputSchema",
    "corruption",
]


DeepVerdict = Literal[
    "deepCrash",
    "deepHang",
    "deepRuntimeError",
    "deepErrorAsSuccess",
    "deepSchemaContradiction",
    "deepDifferential",
    "deepOutputSchema",
    "deepCorruption",
]


class DeepFindingOut(WireModel):
    """One defect a schema-valid input caused (``core.deep.DeepFinding``): the minimal
    reproduction is ``arguments``, the working ``base`` with ``field`` changed to an ``edge``."""

    kind: DeepVerdict = Field(description="its verdict key (docs/checks.md): deep + the oracle")
    oracle: DeepOracle
    field: str = Field(description="the changed property, dotted (a+b: a combination)")
    edge: str = Field(description="the edge class, e.g. emptyString, jsonLooking, int53")
    label: str = Field(description="deep:<field>:<edge>, unique within the tool")
    arguments: Any = Field(description="exactly what was sent")
    base: Any = Field(description="the working base call it changes")
    answer: str = Field(description="an excerpt of the server's answer (target text)")
    why: str = Field(description="mcprobe's reading: the oracle and what it compared")


class DeepToolOut(WireModel):
    """One tool's deep pass: its base, how many edges were planned, sent and dropped, why it
    stopped early, and its findings."""

    tool: str
    base: Any = Field(description="the argument object every edge changes")
    base_source: Literal["user", "schema", "synthesized"] = Field(
        description="where the base came from: the user's example, the schema, mcprobe"
    )
    planned: int = Field(description="edges planned (ordered by yield, cut at the per-tool cap)")
    sent: int
    dropped: int = Field(description="proposals the declared schema refused (never sent)")
    stopped: str | None = Field(default=None, description="why it stopped early (null: it did not)")
    note: str | None = None
    seconds: float = Field(description="how long its deep pass took, to 0.1 s")
    findings: list[DeepFindingOut] = Field(default_factory=list)


class DeepOut(WireModel):
    """The deep pass of valid inputs (``--deep``, issue 25): the seed that reproduces it, the
    budget, each tool deep-fuzzed and the tools that were not."""

    seed: int = Field(description="--deep --seed N gives the same calls again")
    reproduce: str = Field(
        default="", description="how to run this deep pass again, in the front-end's words"
    )
    budget_seconds: float | None = Field(default=None, description="null: no time budget")
    budget_hit: bool = False
    sent: int = Field(description="deep calls sent, every tool together")
    tools: list[DeepToolOut] = Field(default_factory=list)
    skipped: list[SkippedToolOut] = Field(
        default_factory=list, description="tools not deep-fuzzed, and why (no working base…)"
    )

    @property
    def findings(self) -> list[DeepFindingOut]:
        return [f for t in self.tools for f in t.findings]


class IsolationOut(WireModel):
    """How a stdio target ran (core/isolation.py): in a sandbox, or not and why."""

    mode: Literal["auto", "required", "off"] = Field(description="the --sandbox mode asked for")
    isolated: bool
    tool: str | None = Field(default=None, description="e.g. 'bubblewrap 0.8.0'")
    reason: str | None = Field(default=None, description="why not isolated (null: isolated)")
    copies: list[str] = Field(
        default_factory=list, description="paths the target got as private writable copies"
    )
    read_only: list[str] = Field(
        default_factory=list, description="named paths bound read-only (too large to copy)"
    )
    hidden: list[str] = Field(
        default_factory=list, description="secret places of the home that the target cannot read"
    )
    limits: str | None = Field(default=None, description="resource limits inside the sandbox")
    summary: str = Field(description="one line, as the Markdown report shows it")


def describe_isolation(isolation: Isolation) -> IsolationOut:
    return IsolationOut(
        mode=isolation.mode,
        isolated=isolation.isolated,
        tool=isolation.tool,
        reason=isolation.reason or None,
        copies=list(isolation.copies),
        read_only=list(isolation.read_only),
        hidden=list(isolation.hidden),
        limits=isolation.limits.describe() if isolation.limits is not None else None,
        summary=isolation.summary(),
    )


class TargetOut(WireModel):
    """How the target was reached, with every secret removed (no header values, no bearer,
    no env values: only their names)."""

    transport: Literal[Transport, "memory"]  # core.target_spec.TRANSPORTS, or in-process
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    cwd: str | None = None
    env_names: list[str] = Field(default_factory=list)
    url: str | None = None
    header_names: list[str] = Field(default_factory=list)
    bearer: bool = False
    client_capabilities: list[str] = Field(
        default_factory=list,
        description="what mcprobe declared in initialize and how it answers those requests",
    )
    isolation: IsolationOut | None = Field(
        default=None, description="how the target ran: sandboxed or not (null: not recorded)"
    )


def describe_target(spec: TargetSpec) -> TargetOut:
    """The target for reports: names of secrets, never their values."""
    return TargetOut(
        transport=spec.transport,
        command=spec.command,
        args=list(spec.args),
        cwd=spec.cwd,
        env_names=sorted(k for k in spec.env if not k.startswith(CANARY_PREFIX)),
        url=scrub(spec.url, spec.secret_values()) if spec.url else None,
        header_names=sorted(spec.headers),
        bearer=spec.bearer is not None,
        client_capabilities=describe_capabilities(spec.client_capabilities),
    )


class CheckOut(WireModel):
    """One resource, prompt or protocol check (``core.checks``), with its clause and fix."""

    check: str = Field(description="the stable check id, e.g. resources.not_found")
    area: Literal["resources", "prompts", "protocol", "http"]
    verdict: Literal["pass", "fail", "inconclusive", "notApplicable"]
    level: Literal["must", "should"] = Field(description="only failed 'must' checks cost points")
    clause: str = Field(description="the spec clause the check enforces")
    message: str
    subject: str | None = Field(default=None, description="a resource URI, template or prompt")
    request: str | None = Field(default=None, description="what was sent: method + JSON params")
    observed: str | None = Field(default=None, description="what came back (untrusted excerpt)")
    hint: str


class SurfaceOut(WireModel):
    """The server beyond its tools: counts of what it lists, and every check made."""

    resources: int | None = Field(default=None, description="null: not listed")
    resource_templates: int | None = None
    prompts: int | None = None
    checks: list[CheckOut] = Field(default_factory=list)


class ToolDriftOut(WireModel):
    tool: str
    changes: list[str] = Field(description="one readable line per changed field, both sides")


class DriftOut(WireModel):
    """The server against ``--lock`` (``report/pinning.py``): tool definitions added, removed or
    changed since ``mcprobe pin``; ``server`` lists identity changes (shown, not drift)."""

    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[ToolDriftOut] = Field(default_factory=list)
    server: list[str] = Field(default_factory=list, description="name/version changes")

    @property
    def drifted(self) -> bool:
        return bool(self.added or self.removed or self.changed)


class OmittedOut(WireModel):
    """What a summary report (``detail: summary``) left out of its lists."""

    fuzz: int = Field(default=0, description="fuzz results without a verdict (clean calls)")
    findings: int = Field(
        default=0, description="warning/info findings beyond the first of each code"
    )
    checks: int = Field(default=0, description="passed or not-applicable surface checks")


class ConformanceReport(WireModel):
    schema_version: str = SCHEMA_VERSION
    mcprobe_version: str
    connection_id: str | None = None
    target: TargetOut | None = None
    server: ServerOut
    overall: int | None = Field(description="0-100, or null when not graded")
    grade: str = Field(description="A-F, or '-' when not graded")
    not_graded: str | None = Field(
        default=None,
        description="why there is no overall score and grade: no tool of a server that lists "
        "tools was called, so their behaviour was not measured (null: graded)",
    )
    static: str | None = Field(
        default=None,
        description="graded on what was measured although no tool was called (consent without "
        "isolation, an HTTP target): why, and what would call them; the headline says "
        "'static: tools not called'; a gate on it needs --allow-static (null: tools called)",
    )
    dimensions: list[DimensionOut]
    coverage: CoverageOut | None = Field(default=None, description="null without fuzz")
    critical: list[str] = Field(default_factory=list, description="critical behaviour lines")
    critical_problems: list[CriticalOut] = Field(
        default_factory=list, description="the critical verdicts as data"
    )
    findings: list[FindingOut]
    fuzz: list[FuzzResultOut] = Field(default_factory=list)
    fuzz_summary: FuzzSummaryOut | None = None
    unknown_tool_probe: FuzzResultOut | None = None
    non_object_probe: FuzzResultOut | None = Field(
        default=None, description="`arguments: []`, sent once per server (protocol layer)"
    )
    surface: SurfaceOut | None = Field(
        default=None, description="resources, prompts and protocol checks (null: not probed)"
    )
    crashed_by: str | None = Field(default=None, description="'tool case' that killed the target")
    deaths: list[TargetDeathOut] = Field(
        default_factory=list, description="every time the target died during the fuzz run"
    )
    fuzz_stopped: str | None = Field(
        default=None, description="why the fuzz run could not go on after a death (crashLoop)"
    )
    notes: list[str] = Field(default_factory=list, description="mcprobe's own remarks")
    protocol_notes: list[str] = Field(
        default_factory=list,
        description="low-severity notes (no points) on the per-server protocol probes "
        "(nonObjectProbe, unknownToolProbe): the report's Protocol part",
    )
    deep: DeepOut | None = Field(
        default=None, description="the deep pass of valid inputs (--deep); null: not run"
    )
    drift: DriftOut | None = Field(default=None, description="against --lock; null without")
    lock: dict[str, Any] | None = Field(
        default=None, description="this server's lock (probe_report pin: true); null otherwise"
    )
    fixes: FixPlanOut = Field(default_factory=FixPlanOut, description="the recommended fixes")
    detail: Literal["summary", "full"] = Field(
        default="full",
        description="full: every list whole; summary (probe_report's default): fuzz, findings "
        "and surface.checks cut to what carries a verdict, counted in `omitted`",
    )
    omitted: OmittedOut | None = Field(
        default=None, description="what a summary left out; null in a full report"
    )
    markdown: str | None = Field(default=None, description="the Markdown rendering")

    @model_validator(mode="after")
    def _derive_like_the_builder(self) -> Self:
        """Verdicts derived on load (a report from before schema 1.10) get the two report-level
        rules ``build_report`` applies: -32603 for ``arguments: []`` is no verdict, and with
        ``crashed_by`` a call in flight when another case killed the target is its victim."""
        flat = self.non_object_probe
        if flat is not None and flat.derived:
            kept = protocol_probe_verdicts(flat.verdicts, flat.error_code)
            object.__setattr__(flat, "verdicts", kept)
        if self.crashed_by is not None:
            for result in self.fuzz:
                if result.derived:
                    call = f"{result.name} {result.case}"
                    kept = bystander_verdicts(result.verdicts, call, self.crashed_by)
                    object.__setattr__(result, "verdicts", kept)
        return self
