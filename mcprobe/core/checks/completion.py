"""Completion: the judge of ``completion/complete`` for an argument the server declared (pure).

``engine.protocol_probes`` asks for completions of a resource template's variables and, when
none was asked, of a prompt's first argument; this judges each answer.
"""

from __future__ import annotations

from mcprobe.core.calls.answers import describe, is_failure_of_server
from mcprobe.core.checks.records import SPEC, Area, CheckResult, CheckSpec, Level, Verdict
from mcprobe.core.model import JSON, METHOD_NOT_FOUND, RawCall, RawKind

__all__ = [
    "PROTOCOL_COMPLETION",
    "SPECS",
    "completion_problems",
    "judge_completion",
]

PROTOCOL_COMPLETION = CheckSpec(
    "protocol.completion",
    Area.PROTOCOL,
    "completion/complete works when advertised",
    f"{SPEC}/server/utilities/completion#requesting-completions",
    Level.MUST,
    "metadata",
    "answer completion/complete with {completion: {values: [...]}} when the completions "
    "capability is declared, or stop declaring it",
)


SPECS: tuple[CheckSpec, ...] = (PROTOCOL_COMPLETION,)
"""This module's checks, in report order (``catalogue.CHECKS`` gathers them)."""


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
        return PROTOCOL_COMPLETION.result(
            Verdict.FAIL, f"completion failed: {describe(raw)}", **common
        )
    if raw.kind is RawKind.JSONRPC_ERROR:
        if raw.error_code == METHOD_NOT_FOUND:
            return PROTOCOL_COMPLETION.result(
                Verdict.FAIL,
                "declares completions but completion/complete is not implemented (-32601)",
                **common,
            )
        return PROTOCOL_COMPLETION.result(
            Verdict.INCONCLUSIVE,
            f"refused for this argument: {describe(raw)}",
            **common,
        )
    if raw.kind is not RawKind.RESULT or raw.result is None:
        return PROTOCOL_COMPLETION.result(Verdict.INCONCLUSIVE, describe(raw), **common)
    problems = completion_problems(raw.result)
    if problems:
        return PROTOCOL_COMPLETION.result(Verdict.FAIL, "; ".join(problems), **common)
    return PROTOCOL_COMPLETION.result(Verdict.PASS, "well-formed completion", **common)
