"""The records of a deep run: the plan of one tool (its base and its edges), the answer to each
edge, and the findings the oracles draw from them. Frozen dataclasses only."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mcprobe.core.model import JSON, CaseSource, RawCall

__all__ = [
    "DEFAULT_SEED",
    "MAX_EDGES_PER_FIELD",
    "MAX_EDGES_PER_TOOL",
    "MAX_TIMEOUTS_PER_TOOL",
    "DeepAnswer",
    "DeepFinding",
    "DeepPlan",
    "DeepRun",
    "DeepTool",
    "Edge",
    "Oracle",
]

DEFAULT_SEED = 0  # printed in every deep report: the same seed gives the same calls
MAX_EDGES_PER_FIELD = 20
MAX_EDGES_PER_TOOL = 60
MAX_TIMEOUTS_PER_TOOL = 2  # a tool that timed out this often gets no more edges


class Oracle(StrEnum):
    """Why an edge's answer is a defect. Each is a verdict kind in ``core/verdicts.py``
    (``deep`` + the value capitalised, e.g. ``deepRuntimeError``)."""

    CRASH = "crash"  # the target died on the edge, and died again when it was replayed alone
    HANG = "hang"  # timed out where the base answered fast, and no duration-like field was raised
    RUNTIME_ERROR = "runtimeError"  # exception text (TypeError, Cannot read properties of…)
    ERROR_AS_SUCCESS = "errorAsSuccess"  # an ok result whose content reports a failure
    SCHEMA_CONTRADICTION = "schemaContradiction"  # a schema-valid value refused as the wrong type
    DIFFERENTIAL = "differential"  # -32603 / a failure unlike the field's other refusals
    OUTPUT_SCHEMA = "outputSchema"  # an ok edge whose structuredContent breaks the outputSchema
    CORRUPTION = "corruption"  # after an ok write, the server's own read tool fails anew


@dataclass(frozen=True, slots=True)
class Edge:
    """One deep call: the base with one field (or a few, for a combination) changed.

    ``field`` is the dotted path of the changed property (``"a"``, ``"opts.limit"``; ``"a+b"``
    for a combination), ``edge`` the edge class (``emptyString``, ``nul``, ``jsonLooking``,
    ``protoKey``, ``fraction``, ``zero``, ``minusOne``, ``int32``, ``int53``, ``negativeZero``,
    ``emptyArray``, ``oneElement``, ``maxItems``, ``nested``, ``optionalPresent``…),
    ``value`` the value put there and ``arguments`` the whole call (the minimal reproduction;
    an absent optional field's edges also carry its companions, ``core/deep/edges.py``).
    ``label``: ``deep:<field>:<edge>``, unique within the tool."""

    tool: str
    field: str
    edge: str
    value: JSON
    arguments: JSON
    label: str


@dataclass(frozen=True)
class DeepPlan:
    """The deep calls of one tool. ``base``: the argument object every edge changes (``None``:
    no working base, so no edges), ``base_source`` where it came from, ``edges`` in send order
    (ordered by yield, cut at the per-tool cap), ``dropped`` how many proposals the declared
    schema refused (an edge is always schema-valid)."""

    tool: str
    base: JSON
    base_source: CaseSource
    edges: tuple[Edge, ...]
    dropped: int = 0
    note: str | None = None


@dataclass(frozen=True)
class DeepAnswer:
    """What came back for one edge (``raw``), and ``stderr``: the target's standard error
    written while the call was in flight (corroboration only, never a verdict by itself)."""

    edge: Edge
    raw: RawCall
    stderr: str = ""
    replayed: bool = False  # a death: replayed alone, and the replay killed it again


@dataclass(frozen=True)
class DeepFinding:
    """One defect a schema-valid input caused: the evidence a maintainer needs to reproduce it.

    ``arguments`` is the exact call, ``base`` the base it changes, ``answer`` an excerpt of what
    the server said (untrusted text), ``why`` mcprobe's own reading of it (which oracle, what it
    was compared with)."""

    tool: str
    oracle: Oracle
    field: str
    edge: str
    arguments: JSON
    base: JSON
    answer: str
    why: str
    label: str
    stderr: str = ""  # the target's stderr during the call, excerpted: corroboration only


@dataclass(frozen=True)
class DeepTool:
    """One tool's deep pass: its plan, how many edges were sent, the findings, and why it
    stopped early (timeouts, the budget, the deadline), if it did."""

    plan: DeepPlan
    sent: int
    findings: tuple[DeepFinding, ...]
    stopped: str | None = None
    seconds: float = 0.0
    # every call this tool's pass sent (the base again, the edges, replays, re-reads after its
    # writes) and mcprobe's notes on it (a death no replay reproduced: flaky, no finding)
    calls: int = 0
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeepRun:
    """The deep pass of one audit (``FuzzRun.deep``): the seed that reproduces it, the tools in
    listing order, and why some were not deep-fuzzed (no working base, no consent for writes…)."""

    seed: int
    tools: tuple[DeepTool, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    budget_seconds: float | None = None
    budget_hit: bool = False

    @property
    def findings(self) -> tuple[DeepFinding, ...]:
        return tuple(f for t in self.tools for f in t.findings)

    @property
    def calls(self) -> int:
        """Every call the deep pass sent (bases, edges, replays, re-reads)."""
        return sum(t.calls for t in self.tools)
