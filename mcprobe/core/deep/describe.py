"""The words of a deep finding: its verdict key, the dimension it costs, and the edge class as a
phrase a maintainer reads in the fix ("an empty string", "NUL and other C0 controls"). Pure.

The edge classes are the planner's (``core/deep/edges.py``, ``Edge.edge``); a class this table
does not know reads as "the edge value `name`", so a new class never breaks a report.
"""

from __future__ import annotations

from mcprobe.core.deep.model import Oracle

__all__ = [
    "DEEP_VERDICT_PREFIX",
    "EDGE_PHRASES",
    "LIVENESS_ORACLES",
    "deep_dimension",
    "deep_verdict_key",
    "edge_phrase",
    "text_params",
]

DEEP_VERDICT_PREFIX = "deep"

# The target died or stopped answering: its liveness; every other oracle is a valid input the
# handler failed to handle (Error Handling).
LIVENESS_ORACLES = frozenset({Oracle.CRASH, Oracle.HANG})

EDGE_PHRASES: dict[str, str] = {
    "emptyString": "an empty string",
    "whitespace": "a whitespace-only string",
    "nul": "a string holding NUL",
    "control": "a string holding a C0 control character",
    "nonAscii": "a non-ASCII string",
    "jsonLooking": "a JSON-looking string",
    "protoKey": "a prototype key (`__proto__`, `constructor`)",
    "hostname": "a malformed but well-typed hostname",
    "fraction": "a fraction between 0 and 1",
    "zero": "zero",
    "minusOne": "-1",
    "int32": "a number of at least 2^31",
    "int53": "2^53 + 1",
    "negativeZero": "-0.0",
    "emptyArray": "an empty array",
    "emptyObject": "an empty object",
    "oneElement": "a one-element array",
    "maxItems": "an array of the maximum length",
    "nested": "a deeply nested value",
    "optionalPresent": "an optional field present",
    "combination": "a combination of edge values",
}


def deep_verdict_key(oracle: Oracle | str) -> str:
    """The verdict key of an oracle: ``deep`` + its value capitalised (``deepRuntimeError``)."""
    value = Oracle(oracle).value
    return DEEP_VERDICT_PREFIX + value[:1].upper() + value[1:]


def deep_dimension(oracle: Oracle | str) -> str:
    """The dimension a finding of ``oracle`` costs: ``liveness`` or ``errorHandling``."""
    return "liveness" if Oracle(oracle) in LIVENESS_ORACLES else "errorHandling"


def edge_phrase(edge: str) -> str:
    """The edge class ``edge`` in a maintainer's words (mcprobe's text; an unknown class is
    quoted, since the planner's vocabulary may grow)."""
    return EDGE_PHRASES.get(edge) or f"the edge value `{edge}`"


def text_params(tool: str, field: str, edges: list[str]) -> tuple[tuple[str, str], ...]:
    """The params of a deep verdict's reason and fix texts for the ``edges`` (first first) of one
    tool's ``field``: ``tool``, ``field``, ``edge``, ``what`` (the edge in words) and ``more``
    (the other edges, named)."""
    others = edges[1:]
    more = f" (and {len(others)} more: {', '.join(others)})" if others else ""
    return (
        ("tool", tool),
        ("field", field),
        ("edge", edges[0]),
        ("what", edge_phrase(edges[0])),
        ("more", more),
    )
