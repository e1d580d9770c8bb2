"""Protocol behaviour: the judges of the once-per-server protocol checks (pure).

Each judge reads one raw answer and cites its clause through ``core.checks.CHECKS``. What the
spec leaves open is never a failure: a server may answer ``ping`` with extra fields, may page or
not, and may use any JSON-RPC error for a bad cursor as long as it is an error (the code -32602
is a SHOULD).
"""

from __future__ import annotations

from collections.abc import Sequence

from mcprobe.core.calls.answers import describe, is_failure_of_server
from mcprobe.core.checks.catalogue import CheckResult, Verdict, check_result
from mcprobe.core.model import JSON, RawCall, RawKind, is_internal_error

__all__ = [
    "INVALID_CURSOR",
    "UNKNOWN_METHOD",
    "UNKNOWN_VERSION",
    "judge_completion",
    "judge_discover",
    "judge_invalid_cursor",
    "judge_logging",
    "judge_ping",
    "judge_result_type",
    "judge_unknown_method",
    "judge_unknown_method_code",
    "judge_unsupported_version",
    "judge_version_negotiation",
]

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
UNKNOWN_METHOD = "mcprobe/nonexistent_method"
UNKNOWN_VERSION = "2099-01-01"
"""A protocol version no server supports: initialize offering it must get a supported one."""
INVALID_CURSOR = "mcprobe-invalid-cursor-0"


def _common(raw: RawCall, request: str) -> dict[str, str | None]:
    return {"subject": None, "request": request, "observed": describe(raw)}


def judge_ping(raw: RawCall, request: str) -> CheckResult:
    common = _common(raw, request)
    if raw.kind is RawKind.RESULT and isinstance(raw.result, dict):
        return check_result("protocol.ping", Verdict.PASS, "answered", **common)
    if raw.kind is RawKind.NOT_RUN:
        return check_result("protocol.ping", Verdict.INCONCLUSIVE, describe(raw), **common)
    return check_result(
        "protocol.ping",
        Verdict.FAIL,
        f"ping was not answered with a result: {describe(raw)}",
        **common,
    )


def judge_unknown_method(raw: RawCall, request: str) -> CheckResult:
    common = _common(raw, request)
    if raw.kind is RawKind.JSONRPC_ERROR and raw.error_code == METHOD_NOT_FOUND:
        return check_result("protocol.unknown_method", Verdict.PASS, "-32601", **common)
    if raw.kind is RawKind.NOT_RUN:
        return check_result(
            "protocol.unknown_method", Verdict.INCONCLUSIVE, describe(raw), **common
        )
    if raw.kind is RawKind.JSONRPC_ERROR:
        # Rejected, which is what the MUST asks; the code is an SDK-level detail, judged (no
        # points) by protocol.unknown_method_code.
        return check_result(
            "protocol.unknown_method",
            Verdict.PASS,
            f"rejected with a JSON-RPC error ({raw.error_code}; see protocol.unknown_method_code)",
            **common,
        )
    if raw.kind is RawKind.RESULT:
        why = "a method that does not exist was answered with a result"
    else:
        why = f"a request for an unknown method was not answered: {describe(raw)}"
    return check_result("protocol.unknown_method", Verdict.FAIL, why, **common)


# Known SDK answers to an unknown method other than -32601, and the release that fixed them.
_SDK_CODES = {
    -32602: "the mcp Python SDK 1.x answers unknown methods with -32602 (its request parsing "
    "fails first); mcp 2.x answers -32601",
}


def judge_unknown_method_code(raw: RawCall, request: str) -> CheckResult | None:
    """A SHOULD (no points): an unknown method rejected with a JSON-RPC error whose code is not
    -32601 — usually the SDK's request parsing, like the TypeScript SDK's -32603 for
    ``arguments: []``. None when the answer was not an error (``protocol.unknown_method``
    judges those)."""
    if raw.kind is not RawKind.JSONRPC_ERROR:
        return None
    common = _common(raw, request)
    if raw.error_code == METHOD_NOT_FOUND:
        return check_result("protocol.unknown_method_code", Verdict.PASS, "-32601", **common)
    known = _SDK_CODES.get(raw.error_code) if isinstance(raw.error_code, int) else None
    why = f"answered with code {raw.error_code}, not -32601 (Method not found)"
    return check_result(
        "protocol.unknown_method_code",
        Verdict.FAIL,
        f"{why}: {known}" if known else why,
        **common,
    )


def judge_invalid_cursor(raw: RawCall, request: str) -> CheckResult:
    """A SHOULD: an error (ideally -32602) for a cursor the server never issued. A timeout or a
    crash is a failure of a different kind and says so."""
    common = _common(raw, request)
    if raw.kind is RawKind.JSONRPC_ERROR and raw.error_code == INVALID_PARAMS:
        return check_result("protocol.invalid_cursor", Verdict.PASS, "-32602", **common)
    if raw.kind is RawKind.NOT_RUN:
        return check_result(
            "protocol.invalid_cursor", Verdict.INCONCLUSIVE, describe(raw), **common
        )
    if raw.kind is RawKind.JSONRPC_ERROR and not is_internal_error(raw.error_code):
        why = f"rejected with code {raw.error_code}; the spec recommends -32602"
    elif raw.kind is RawKind.RESULT:
        why = "a cursor the server never issued was accepted (a page came back)"
    else:
        why = f"an invalid cursor was not rejected cleanly: {describe(raw)}"
    return check_result("protocol.invalid_cursor", Verdict.FAIL, why, **common)


def judge_logging(raw: RawCall, request: str) -> CheckResult:
    """``logging/setLevel`` when the ``logging`` capability is declared."""
    common = _common(raw, request)
    if raw.kind is RawKind.RESULT and isinstance(raw.result, dict):
        return check_result("protocol.logging", Verdict.PASS, "level set", **common)
    if raw.kind is RawKind.NOT_RUN:
        return check_result("protocol.logging", Verdict.INCONCLUSIVE, describe(raw), **common)
    return check_result(
        "protocol.logging",
        Verdict.FAIL,
        f"declares logging but logging/setLevel failed: {describe(raw)}",
        **common,
    )


def completion_problems(result: JSON) -> list[str]:
    if not isinstance(result, dict):
        return ["the result is not an object"]
    completion = result.get("completion")
    if not isinstance(completion, dict):
        return ["the result has no `completion` object"]
    values = completion.get("values")
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return ["completion.values is not an array of strings"]
    if len(values) > 100:
        return [f"completion.values has {len(values)} items (the spec allows at most 100)"]
    return []


def judge_completion(raw: RawCall, request: str, subject: str) -> CheckResult:
    """``completion/complete`` for an argument the server itself declared. An error other than
    an internal one is inconclusive (the server may only complete some arguments)."""
    common = {"subject": subject, "request": request, "observed": describe(raw)}
    if is_failure_of_server(raw):
        return check_result(
            "protocol.completion", Verdict.FAIL, f"completion failed: {describe(raw)}", **common
        )
    if raw.kind is RawKind.JSONRPC_ERROR:
        if raw.error_code == METHOD_NOT_FOUND:
            return check_result(
                "protocol.completion",
                Verdict.FAIL,
                "declares completions but completion/complete is not implemented (-32601)",
                **common,
            )
        return check_result(
            "protocol.completion",
            Verdict.INCONCLUSIVE,
            f"refused for this argument: {describe(raw)}",
            **common,
        )
    if raw.kind is not RawKind.RESULT or raw.result is None:
        return check_result("protocol.completion", Verdict.INCONCLUSIVE, describe(raw), **common)
    problems = completion_problems(raw.result)
    if problems:
        return check_result("protocol.completion", Verdict.FAIL, "; ".join(problems), **common)
    return check_result("protocol.completion", Verdict.PASS, "well-formed completion", **common)


def judge_version_negotiation(
    answered: JSON, supported: Sequence[str], request: str, *, refused: str | None, lost: str | None
) -> CheckResult:
    """``initialize`` offering ``UNKNOWN_VERSION`` on a second connection: the server MUST answer
    with a version it supports. ``refused`` is the JSON-RPC error it answered instead (a
    failure: the spec says to answer and lets the *client* give up); ``lost`` is any other way
    the connection failed (inconclusive: a second process may fail for reasons of its own)."""
    observed = refused or lost or f"protocolVersion {str(answered)[:40]!r}"
    common = {"subject": None, "request": request, "observed": observed}
    check = "protocol.version_negotiation"
    if refused is not None:
        return check_result(
            check,
            Verdict.FAIL,
            f"initialize offering {UNKNOWN_VERSION} was refused instead of answered with a "
            "version the server supports",
            **common,
        )
    if lost is not None:
        return check_result(
            check, Verdict.INCONCLUSIVE, f"the second connection failed: {lost}", **common
        )
    if answered == UNKNOWN_VERSION:
        return check_result(
            check,
            Verdict.FAIL,
            f"echoed the unknown version {UNKNOWN_VERSION} instead of one it supports",
            **common,
        )
    if isinstance(answered, str) and answered in supported:
        return check_result(check, Verdict.PASS, f"answered {answered}", **common)
    return check_result(
        check,
        Verdict.INCONCLUSIVE,
        f"answered {str(answered)[:40]!r}, a version mcprobe does not know",
        **common,
    )


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
    common = _common(raw, request)
    if raw.kind is RawKind.RESULT and raw.result is not None:
        problems = discover_problems(raw.result)
        if problems:
            return check_result("modern.discover", Verdict.FAIL, "; ".join(problems), **common)
        return check_result("modern.discover", Verdict.PASS, "well-formed", **common)
    if raw.kind is RawKind.NOT_RUN:
        return check_result("modern.discover", Verdict.INCONCLUSIVE, describe(raw), **common)
    return check_result(
        "modern.discover", Verdict.FAIL, f"server/discover failed: {describe(raw)}", **common
    )


def judge_result_type(raw: RawCall, request: str) -> CheckResult:
    common = _common(raw, request)
    if raw.kind is not RawKind.RESULT or not isinstance(raw.result, dict):
        return check_result(
            "modern.result_type", Verdict.INCONCLUSIVE, f"no result: {describe(raw)}", **common
        )
    if not isinstance(raw.result.get("resultType"), str):
        return check_result(
            "modern.result_type", Verdict.FAIL, "a 2026-07-28 result without resultType", **common
        )
    return check_result(
        "modern.result_type",
        Verdict.PASS,
        f"resultType {raw.result['resultType'][:30]!r}",
        **common,
    )


def judge_unsupported_version(raw: RawCall, request: str) -> CheckResult:
    common = _common(raw, request)
    check = "modern.unsupported_version"
    if raw.kind is RawKind.JSONRPC_ERROR and raw.error_code == UNSUPPORTED_PROTOCOL_VERSION:
        return check_result(check, Verdict.PASS, "-32022", **common)
    if raw.kind is RawKind.NOT_RUN:
        return check_result(check, Verdict.INCONCLUSIVE, describe(raw), **common)
    if raw.kind is RawKind.JSONRPC_ERROR:
        why = f"refused with code {raw.error_code}, not -32022 (UnsupportedProtocolVersionError)"
    elif raw.kind is RawKind.RESULT:
        why = "a request naming protocol version 2099-01-01 was answered as if supported"
    else:
        why = f"not answered cleanly: {describe(raw)}"
    return check_result(check, Verdict.FAIL, why, **common)
