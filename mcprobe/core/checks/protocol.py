"""Protocol behaviour: the judges of the once-per-server protocol checks (pure).

Each judge reads one raw answer and makes its result through its check's record (the records
sit here, beside their judges; ``catalogue.CHECKS`` gathers them). The requests sent once per
server are ``EXCHANGES``; ``JUDGES`` says which judges read each answer. What the
spec leaves open is never a failure: a server may answer ``ping`` with extra fields, may page or
not, and may use any JSON-RPC error for a bad cursor as long as it is an error (the code -32602
is a SHOULD).
"""

from __future__ import annotations

from collections.abc import Sequence

from mcprobe.core.calls.answers import describe
from mcprobe.core.checks.records import (
    HANDSHAKE_ERA,
    SPEC,
    AnswerJudge,
    Area,
    CheckResult,
    CheckSpec,
    Exchange,
    Level,
    Verdict,
)
from mcprobe.core.model import (
    INVALID_PARAMS,
    JSON,
    METHOD_NOT_FOUND,
    RawCall,
    RawKind,
    is_internal_error,
)

__all__ = [
    "EXCHANGES",
    "INVALID_CURSOR",
    "INVALID_CURSOR_REQUEST",
    "JUDGES",
    "PING_REQUEST",
    "PROTOCOL_INVALID_CURSOR",
    "PROTOCOL_LOGGING",
    "PROTOCOL_PING",
    "PROTOCOL_UNKNOWN_METHOD",
    "PROTOCOL_UNKNOWN_METHOD_CODE",
    "PROTOCOL_VERSION_NEGOTIATION",
    "SET_LEVEL_REQUEST",
    "SPECS",
    "UNKNOWN_METHOD",
    "UNKNOWN_METHOD_REQUEST",
    "UNKNOWN_VERSION",
    "answer_fields",
    "judge_invalid_cursor",
    "judge_logging",
    "judge_ping",
    "judge_unknown_method",
    "judge_unknown_method_code",
    "judge_version_negotiation",
]

PROTOCOL_PING = CheckSpec(
    "protocol.ping",
    Area.PROTOCOL,
    "ping is answered",
    f"{SPEC}/basic/utilities/ping#behavior-requirements",
    Level.MUST,
    "metadata",
    "answer ping promptly with an empty result {}",
)


PROTOCOL_UNKNOWN_METHOD = CheckSpec(
    "protocol.unknown_method",
    Area.PROTOCOL,
    "An unknown method gets a JSON-RPC error",
    "https://www.jsonrpc.org/specification#error_object (MCP basic: JSON-RPC 2.0 errors)",
    Level.MUST,
    "metadata",
    "answer requests for methods you do not implement with JSON-RPC error -32601",
)


PROTOCOL_UNKNOWN_METHOD_CODE = CheckSpec(
    "protocol.unknown_method_code",
    Area.PROTOCOL,
    "An unknown method's error code is -32601",
    "https://www.jsonrpc.org/specification#error_object (MCP basic: JSON-RPC 2.0 errors)",
    Level.SHOULD,
    "metadata",
    "answer unknown methods with -32601 (with the Python SDK: upgrade to mcp 2.x)",
)


PROTOCOL_INVALID_CURSOR = CheckSpec(
    "protocol.invalid_cursor",
    Area.PROTOCOL,
    "An invalid tools/list cursor gets -32602",
    f"{SPEC}/server/utilities/pagination#error-handling",
    Level.SHOULD,
    "metadata",
    "reject a tools/list cursor you never issued with JSON-RPC error -32602",
)


PROTOCOL_VERSION_NEGOTIATION = CheckSpec(
    "protocol.version_negotiation",
    Area.PROTOCOL,
    "An unknown protocol version is answered with a supported one",
    f"{SPEC}/basic/lifecycle#version-negotiation",
    Level.MUST,
    "metadata",
    "when initialize offers a version you do not support, answer with the latest version "
    "you do support (never echo the unknown one, never refuse the initialize)",
)


PROTOCOL_LOGGING = CheckSpec(
    "protocol.logging",
    Area.PROTOCOL,
    "logging/setLevel works when advertised",
    f"{SPEC}/server/utilities/logging#setting-log-level",
    Level.MUST,
    "metadata",
    "accept logging/setLevel when the logging capability is declared, or stop declaring it",
)


SPECS: tuple[CheckSpec, ...] = (
    PROTOCOL_PING,
    PROTOCOL_UNKNOWN_METHOD,
    PROTOCOL_UNKNOWN_METHOD_CODE,
    PROTOCOL_INVALID_CURSOR,
    PROTOCOL_VERSION_NEGOTIATION,
    PROTOCOL_LOGGING,
)
"""This module's checks, in report order (``catalogue.CHECKS`` gathers them)."""


UNKNOWN_METHOD = "mcprobe/nonexistent_method"
UNKNOWN_VERSION = "2099-01-01"
"""A protocol version no server supports: initialize offering it must get a supported one."""
INVALID_CURSOR = "mcprobe-invalid-cursor-0"

PING_REQUEST = Exchange("ping", "ping", None, eras=HANDSHAKE_ERA)
UNKNOWN_METHOD_REQUEST = Exchange("an unknown method", UNKNOWN_METHOD, {})
INVALID_CURSOR_REQUEST = Exchange(
    "tools/list with a cursor never issued", "tools/list", {"cursor": INVALID_CURSOR}, "tools"
)
SET_LEVEL_REQUEST = Exchange(
    "logging/setLevel", "logging/setLevel", {"level": "info"}, "logging", eras=HANDSHAKE_ERA
)
EXCHANGES = (PING_REQUEST, UNKNOWN_METHOD_REQUEST, INVALID_CURSOR_REQUEST, SET_LEVEL_REQUEST)
"""The requests this module's judges read, sent in this order (``catalogue.EXCHANGES``)."""


def answer_fields(raw: RawCall, request: str) -> dict[str, str | None]:
    return {"subject": None, "request": request, "observed": describe(raw)}


def judge_ping(raw: RawCall, request: str) -> CheckResult:
    common = answer_fields(raw, request)
    if raw.kind is RawKind.RESULT and isinstance(raw.result, dict):
        return PROTOCOL_PING.result(Verdict.PASS, "answered", **common)
    if raw.kind is RawKind.NOT_RUN:
        return PROTOCOL_PING.result(Verdict.INCONCLUSIVE, describe(raw), **common)
    return PROTOCOL_PING.result(
        Verdict.FAIL,
        f"ping was not answered with a result: {describe(raw)}",
        **common,
    )


def judge_unknown_method(raw: RawCall, request: str) -> CheckResult:
    common = answer_fields(raw, request)
    if raw.kind is RawKind.JSONRPC_ERROR and raw.error_code == METHOD_NOT_FOUND:
        return PROTOCOL_UNKNOWN_METHOD.result(Verdict.PASS, "-32601", **common)
    if raw.kind is RawKind.NOT_RUN:
        return PROTOCOL_UNKNOWN_METHOD.result(Verdict.INCONCLUSIVE, describe(raw), **common)
    if raw.kind is RawKind.JSONRPC_ERROR:
        # Rejected, which is what the MUST asks; the code is an SDK-level detail, judged (no
        # points) by protocol.unknown_method_code.
        return PROTOCOL_UNKNOWN_METHOD.result(
            Verdict.PASS,
            f"rejected with a JSON-RPC error ({raw.error_code}; see protocol.unknown_method_code)",
            **common,
        )
    if raw.kind is RawKind.RESULT:
        why = "a method that does not exist was answered with a result"
    else:
        why = f"a request for an unknown method was not answered: {describe(raw)}"
    return PROTOCOL_UNKNOWN_METHOD.result(Verdict.FAIL, why, **common)


# Known SDK answers to an unknown method other than -32601, and the release that fixed them.
_SDK_CODES = {
    INVALID_PARAMS: "the mcp Python SDK 1.x answers unknown methods with -32602 (its request "
    "parsing fails first); mcp 2.x answers -32601",
}


def judge_unknown_method_code(raw: RawCall, request: str) -> CheckResult | None:
    """A SHOULD (no points): an unknown method rejected with a JSON-RPC error whose code is not
    -32601 — usually the SDK's request parsing, like the TypeScript SDK's -32603 for
    ``arguments: []``. None when the answer was not an error (``protocol.unknown_method``
    judges those)."""
    if raw.kind is not RawKind.JSONRPC_ERROR:
        return None
    common = answer_fields(raw, request)
    if raw.error_code == METHOD_NOT_FOUND:
        return PROTOCOL_UNKNOWN_METHOD_CODE.result(Verdict.PASS, "-32601", **common)
    known = _SDK_CODES.get(raw.error_code) if isinstance(raw.error_code, int) else None
    why = f"answered with code {raw.error_code}, not -32601 (Method not found)"
    return PROTOCOL_UNKNOWN_METHOD_CODE.result(
        Verdict.FAIL,
        f"{why}: {known}" if known else why,
        **common,
    )


def judge_invalid_cursor(raw: RawCall, request: str) -> CheckResult:
    """A SHOULD: an error (ideally -32602) for a cursor the server never issued. A timeout or a
    crash is a failure of a different kind and says so."""
    common = answer_fields(raw, request)
    if raw.kind is RawKind.JSONRPC_ERROR and raw.error_code == INVALID_PARAMS:
        return PROTOCOL_INVALID_CURSOR.result(Verdict.PASS, "-32602", **common)
    if raw.kind is RawKind.NOT_RUN:
        return PROTOCOL_INVALID_CURSOR.result(Verdict.INCONCLUSIVE, describe(raw), **common)
    if raw.kind is RawKind.JSONRPC_ERROR and not is_internal_error(raw.error_code):
        why = f"rejected with code {raw.error_code}; the spec recommends -32602"
    elif raw.kind is RawKind.RESULT:
        why = "a cursor the server never issued was accepted (a page came back)"
    else:
        why = f"an invalid cursor was not rejected cleanly: {describe(raw)}"
    return PROTOCOL_INVALID_CURSOR.result(Verdict.FAIL, why, **common)


def judge_logging(raw: RawCall, request: str) -> CheckResult:
    """``logging/setLevel`` when the ``logging`` capability is declared."""
    common = answer_fields(raw, request)
    if raw.kind is RawKind.RESULT and isinstance(raw.result, dict):
        return PROTOCOL_LOGGING.result(Verdict.PASS, "level set", **common)
    if raw.kind is RawKind.NOT_RUN:
        return PROTOCOL_LOGGING.result(Verdict.INCONCLUSIVE, describe(raw), **common)
    return PROTOCOL_LOGGING.result(
        Verdict.FAIL,
        f"declares logging but logging/setLevel failed: {describe(raw)}",
        **common,
    )


def judge_version_negotiation(
    answered: JSON, supported: Sequence[str], request: str, *, refused: str | None, lost: str | None
) -> CheckResult:
    """``initialize`` offering ``UNKNOWN_VERSION`` on a second connection: the server MUST answer
    with a version it supports. ``refused`` is the JSON-RPC error it answered instead (a
    failure: the spec says to answer and lets the *client* give up); ``lost`` is any other way
    the connection failed (inconclusive: a second process may fail for reasons of its own)."""
    observed = refused or lost or f"protocolVersion {str(answered)[:40]!r}"
    common = {"subject": None, "request": request, "observed": observed}
    check = PROTOCOL_VERSION_NEGOTIATION
    if refused is not None:
        return check.result(
            Verdict.FAIL,
            f"initialize offering {UNKNOWN_VERSION} was refused instead of answered with a "
            "version the server supports",
            **common,
        )
    if lost is not None:
        return check.result(Verdict.INCONCLUSIVE, f"the second connection failed: {lost}", **common)
    if answered == UNKNOWN_VERSION:
        return check.result(
            Verdict.FAIL,
            f"echoed the unknown version {UNKNOWN_VERSION} instead of one it supports",
            **common,
        )
    if isinstance(answered, str) and answered in supported:
        return check.result(Verdict.PASS, f"answered {answered}", **common)
    return check.result(
        Verdict.INCONCLUSIVE,
        f"answered {str(answered)[:40]!r}, a version mcprobe does not know",
        **common,
    )


JUDGES: tuple[tuple[Exchange, AnswerJudge], ...] = (
    (PING_REQUEST, judge_ping),
    (UNKNOWN_METHOD_REQUEST, judge_unknown_method),
    (UNKNOWN_METHOD_REQUEST, judge_unknown_method_code),
    (INVALID_CURSOR_REQUEST, judge_invalid_cursor),
    (SET_LEVEL_REQUEST, judge_logging),
)
"""Which judges read which exchange's answer, in the order their results are listed."""
