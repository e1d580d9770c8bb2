"""The 2026-07-28 (modern era) checks: their records and judges (pure).

``server/discover`` and a listing's ``resultType`` are asked on a connection that speaks the
modern era (the audit's own, or a fresh one when the audit spoke the handshake era); the
unsupported-version check names a version no server knows in the per-request ``_meta``.
"""

from __future__ import annotations

from mcprobe.core.calls.answers import describe
from mcprobe.core.checks.protocol import answer_fields
from mcprobe.core.checks.records import (
    MODERN_ERA,
    SPEC_MODERN,
    AnswerJudge,
    Area,
    CheckResult,
    CheckSpec,
    Exchange,
    Level,
    Verdict,
)
from mcprobe.core.model import JSON, RawCall, RawKind

__all__ = [
    "DISCOVER_REQUEST",
    "EXCHANGES",
    "JUDGES",
    "MODERN_DISCOVER",
    "MODERN_LISTING",
    "MODERN_RESULT_TYPE",
    "MODERN_UNSUPPORTED_VERSION",
    "MODERN_VERSION",
    "PROTOCOL_VERSION_META",
    "SPECS",
    "UNKNOWN_VERSION_LISTING",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "discover_problems",
    "judge_discover",
    "judge_result_type",
    "judge_unsupported_version",
]

MODERN_DISCOVER = CheckSpec(
    "modern.discover",
    Area.PROTOCOL,
    "server/discover answers with a well-formed DiscoverResult",
    f"{SPEC_MODERN} schema: DiscoverRequest (Servers MUST implement server/discover)",
    Level.MUST,
    "metadata",
    'implement server/discover: {supportedVersions: ["2026-07-28"], capabilities, ttlMs, '
    'cacheScope, resultType: "complete"}',
)


MODERN_RESULT_TYPE = CheckSpec(
    "modern.result_type",
    Area.PROTOCOL,
    "2026-07-28 results carry resultType",
    f"{SPEC_MODERN} schema: Result.resultType (servers implementing this version MUST "
    "include this field)",
    Level.MUST,
    "metadata",
    'put resultType: "complete" on every result of a 2026-07-28 request',
)


MODERN_UNSUPPORTED_VERSION = CheckSpec(
    "modern.unsupported_version",
    Area.PROTOCOL,
    "A request naming an unsupported version gets UnsupportedProtocolVersionError",
    f"{SPEC_MODERN} schema: RequestMetaObject.protocolVersion (if the server does not "
    "support the requested version, it MUST return an UnsupportedProtocolVersionError)",
    Level.MUST,
    "metadata",
    "answer a request whose _meta protocolVersion you do not support with JSON-RPC error "
    "-32022 and data {supported: [...]}",
)


SPECS: tuple[CheckSpec, ...] = (
    MODERN_DISCOVER,
    MODERN_RESULT_TYPE,
    MODERN_UNSUPPORTED_VERSION,
)
"""This module's checks, in report order (``catalogue.CHECKS`` gathers them)."""

DISCOVER_REQUEST = Exchange("server/discover", "server/discover", {}, eras=MODERN_ERA)
MODERN_LISTING = Exchange("tools/list in the 2026-07-28 era", "tools/list", {}, eras=MODERN_ERA)
PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"
"""The per-request ``_meta`` key naming the protocol version (``mcp_types``' constant; the pure
core imports no SDK, a test keeps the two equal)."""
UNKNOWN_VERSION_LISTING = Exchange(
    "tools/list naming protocol version 2099-01-01",
    "tools/list",
    {"_meta": {PROTOCOL_VERSION_META: "2099-01-01"}},
    eras=MODERN_ERA,
)
EXCHANGES = (DISCOVER_REQUEST, MODERN_LISTING, UNKNOWN_VERSION_LISTING)
"""Sent first on a connection of the modern era, before the exchanges of both eras."""


UNSUPPORTED_PROTOCOL_VERSION = -32022
MODERN_VERSION = "2026-07-28"


def discover_problems(result: JSON) -> list[str]:
    """What is wrong with a ``server/discover`` result (empty list: nothing)."""
    if not isinstance(result, dict):
        return ["the result is not an object"]
    problems: list[str] = []
    versions = result.get("supportedVersions")
    if not isinstance(versions, list) or not all(isinstance(v, str) for v in versions):
        problems.append("supportedVersions is not an array of strings")
    elif MODERN_VERSION not in versions:
        problems.append(f"supportedVersions does not list {MODERN_VERSION}")
    if not isinstance(result.get("capabilities"), dict):
        problems.append("capabilities is not an object")
    ttl = result.get("ttlMs")
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
        problems.append("ttlMs is not a non-negative integer")
    if result.get("cacheScope") not in ("public", "private"):
        problems.append("cacheScope is not public or private")
    if "resultType" not in result:
        problems.append("resultType is missing")
    return problems


def judge_discover(raw: RawCall, request: str) -> CheckResult:
    common = answer_fields(raw, request)
    if raw.kind is RawKind.RESULT and raw.result is not None:
        problems = discover_problems(raw.result)
        if problems:
            return MODERN_DISCOVER.result(Verdict.FAIL, "; ".join(problems), **common)
        return MODERN_DISCOVER.result(Verdict.PASS, "well-formed", **common)
    if raw.kind is RawKind.NOT_RUN:
        return MODERN_DISCOVER.result(Verdict.INCONCLUSIVE, describe(raw), **common)
    return MODERN_DISCOVER.result(
        Verdict.FAIL, f"server/discover failed: {describe(raw)}", **common
    )


def judge_result_type(raw: RawCall, request: str) -> CheckResult:
    common = answer_fields(raw, request)
    if raw.kind is not RawKind.RESULT or not isinstance(raw.result, dict):
        return MODERN_RESULT_TYPE.result(
            Verdict.INCONCLUSIVE, f"no result: {describe(raw)}", **common
        )
    if not isinstance(raw.result.get("resultType"), str):
        return MODERN_RESULT_TYPE.result(
            Verdict.FAIL, "a 2026-07-28 result without resultType", **common
        )
    return MODERN_RESULT_TYPE.result(
        Verdict.PASS,
        f"resultType {raw.result['resultType'][:30]!r}",
        **common,
    )


def judge_unsupported_version(raw: RawCall, request: str) -> CheckResult:
    common = answer_fields(raw, request)
    check = MODERN_UNSUPPORTED_VERSION
    if raw.kind is RawKind.JSONRPC_ERROR and raw.error_code == UNSUPPORTED_PROTOCOL_VERSION:
        return check.result(Verdict.PASS, "-32022", **common)
    if raw.kind is RawKind.NOT_RUN:
        return check.result(Verdict.INCONCLUSIVE, describe(raw), **common)
    if raw.kind is RawKind.JSONRPC_ERROR:
        why = f"refused with code {raw.error_code}, not -32022 (UnsupportedProtocolVersionError)"
    elif raw.kind is RawKind.RESULT:
        why = "a request naming protocol version 2099-01-01 was answered as if supported"
    else:
        why = f"not answered cleanly: {describe(raw)}"
    return check.result(Verdict.FAIL, why, **common)


JUDGES: tuple[tuple[Exchange, AnswerJudge], ...] = (
    (DISCOVER_REQUEST, judge_discover),
    (MODERN_LISTING, judge_result_type),
    (UNKNOWN_VERSION_LISTING, judge_unsupported_version),
)
