"""The verdict catalogue: every kind of behaviour or shortcoming that can cost a server points or
earn it a fix, one record each.

Everything a person or a machine reads about a verdict comes from its ``VerdictKind`` record:
the stable key (``silentlyAccepted``, as the JSON report and the docs name it), the severity,
whether it is critical (SPEC §7 item 3), the phrase the critical list and the deduction lines use,
the one fix text (Markdown, SARIF ``help``, JUnit and the JSON fix plan all show the same words),
and the SARIF rule id, title and description. ``report_build``, ``fix_plan`` and every renderer
read this table; none of them keeps its own.

A *deduction* (``model.Deduction``) names its verdict by key and carries the parameters of its
text, so its reason line (``deduction_reason``) and its fix (``deduction_fix``) are both produced
from data: nothing is parsed back from text.

Also here: which verdicts one classified call shows (``call_verdicts``, detected once when the call
is classified and stored on it as ``CaseResult.verdicts``), which of them cost a dimension
(``costs``) or are per-call flags (``flags``), and the grouping by verdict then tool.

Pure: no I/O.

To add a verdict kind: append a ``VerdictKind`` to ``VERDICTS`` (the tuple order is the priority
order of the critical list and the fix plan, and the order ``call_verdicts`` runs the detectors),
give it its detector (``detect=``, a pure predicate over the classified call: ``flagged(key)``
when the evidence is a new flag, which ``calls/classify`` adds to ``CaseResult.flags`` where it is
observed; a ``flag`` text if the fuzz tables should show it; a dimension's scoring function for a
deduction that is not about one call), and document it in ``docs/checks.md``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeAlias, TypeVar

from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import (
    CaseResult,
    Deduction,
    Outcome,
    Severity,
    is_internal_error,
)
from mcprobe.core.quoting import quoted_list

__all__ = [
    "CRITICAL_KEYS",
    "FLAG_KEYS",
    "LISTED_EXAMPLES",
    "MIN_INSTRUCTIONS",
    "VERDICTS",
    "VERDICTS_BY_KEY",
    "Classified",
    "JudgedCall",
    "VerdictKind",
    "bystander_verdicts",
    "call_verdicts",
    "costs",
    "deduction_fix",
    "deduction_label",
    "deduction_reason",
    "flagged",
    "flags",
    "fmt_number",
    "group_problems",
    "judged",
    "name_list",
    "protocol_probe_verdicts",
    "rule_fix",
    "sarif_verdicts",
    "verdict",
]

MIN_INSTRUCTIONS = 40  # characters of `instructions` that count as non-trivial
LISTED_EXAMPLES = 5  # how many cases/tools a reason line names before "and N more"

METADATA = "metadata"
SCHEMA_QUALITY = "schemaQuality"
ERROR_HANDLING = "errorHandling"
LIVENESS = "liveness"
SECURITY = "security"


@dataclass(frozen=True)
class VerdictKind:
    """One verdict kind. Text fields are ``str.format`` templates over a deduction's ``params``.

    - ``reason``: the deduction line after ``−N:`` (fuzz verdicts add ``(count): cases``);
      ``why`` is appended after the cases (what the verdict means for the server).
    - ``problem``: the phrase after a tool's name in the critical list and the problem groups;
      ``probe_problem`` the sentence for the unknown-tool probe showing this verdict.
    - ``fix``: the change that removes it (names in single backticks, the lint convention).
    - ``dimensions``: the dimensions whose points it can cost (empty: it costs none).
    - ``sarif_id`` / ``title`` / ``summary``: its SARIF rule (``None``: not a SARIF result);
      ``title`` is also the JUnit failure message.
    - ``advice``: more of the fix, for where a reader sees the rule rather than the report (the
      SARIF rule's ``help`` is ``fix`` then ``advice``); the report's fix plan stays one line.
    - ``flag``: the words of its per-call flag (the fuzz tables' flag column shows the key, the
      HTML report and ``-v`` these words); empty: not a per-call flag.
    - ``deducted_as``: the verdict whose deduction line counts it (the unknown-tool probe's
      accepted call is one more "silently accepted" case); None: its own.
    - ``detect``: its detector, a pure predicate over one classified fuzz call (``Classified``;
      ``flagged(key)`` when the evidence is a flag the call carries in ``flags``);
      ``detect_probe`` the same for the unknown-tool probe. None: not a per-call verdict.
      ``call_verdicts`` runs them in tuple order.
    """

    key: str
    title: str
    fix: str
    severity: Severity = Severity.ERROR
    critical: bool = False
    dimensions: frozenset[str] = frozenset()
    reason: str = ""
    why: str = ""
    problem: str = ""
    probe_problem: str = ""
    summary: str = ""
    sarif_id: str | None = None
    advice: str = ""
    flag: str = ""
    deducted_as: str | None = None
    detect: Detector | None = None
    detect_probe: Detector | None = None


_FUZZ = frozenset({ERROR_HANDLING, LIVENESS})

# --------------------------------------------------------------------------- detectors
# Each a pure predicate over one classified call (``Classified``): the verdict's own detection,
# held by its record. ``call_verdicts`` runs them in ``VERDICTS`` order.

Detector: TypeAlias = "Callable[[Classified], bool]"

_CRASH = Outcome.PROTOCOL_CRASH.value
_TIMEOUT = Outcome.TIMEOUT.value
_OK = Outcome.OK.value
_PROTOCOL_ERROR = Outcome.PROTOCOL_ERROR.value
_REJECTIONS = (Outcome.TOOL_ERROR.value, _PROTOCOL_ERROR)
_UNKNOWN_TOOL = CaseKind.UNKNOWN_TOOL.value


def flagged(key: str) -> Detector:
    """The detector of a verdict whose evidence is the flag ``key`` on the call (``flags``)."""

    def detect(call: Classified) -> bool:
        return key in call.flags

    return detect


def _conclusive_flag(key: str) -> Detector:
    """``flagged(key)``, on a call that is not inconclusive (one proves nothing)."""

    def detect(call: Classified) -> bool:
        return call.inconclusive is None and key in call.flags

    return detect


def _crashed(call: Classified) -> bool:
    # A crash is evidence on its own, except a death the machine caused (the sandbox's
    # file-size limit killed the target: ``calls/classify``), which is inconclusive.
    return call.outcome == _CRASH and (call.environment is None or call.inconclusive is None)


def _timed_out(call: Classified) -> bool:
    return call.outcome == _TIMEOUT


def _invalid_result(call: Classified) -> bool:
    # A result that breaks the MCP result schema: a protocolError with no JSON-RPC error code
    # (every JSON-RPC error reply carries one); it is neither a success nor a rejection.
    return call.outcome == _PROTOCOL_ERROR and call.error_code is None


def _internal(call: Classified) -> bool:
    return call.outcome == _PROTOCOL_ERROR and is_internal_error(call.error_code)


def _valid_refused(call: Classified) -> bool:
    """A conclusive valid call refused (a rejection, not an invalid result)."""
    return (
        call.inconclusive is None
        and not call.malformed
        and call.outcome in _REJECTIONS
        and not _invalid_result(call)
    )


def _rejected_valid(call: Classified) -> bool:
    return _valid_refused(call) and not _internal(call)


def _internal_error_valid(call: Classified) -> bool:
    return _valid_refused(call) and _internal(call)


def _internal_error(call: Classified) -> bool:
    # A proven validation bypass is its own verdict, in place of this one.
    return (
        call.inconclusive is None
        and call.malformed
        and "validationBypass" not in call.flags
        and _internal(call)
    )


# The unknown-tool probe (a call to a tool that does not exist): one outcome verdict, none
# when it is inconclusive (only a leak is evidence on its own there).


def _probe_crashed(call: Classified) -> bool:
    return call.inconclusive is None and call.outcome == _CRASH


def _probe_timed_out(call: Classified) -> bool:
    return call.inconclusive is None and call.outcome == _TIMEOUT


def _probe_invalid_result(call: Classified) -> bool:
    return call.inconclusive is None and _invalid_result(call)


def _probe_accepted(call: Classified) -> bool:
    return call.inconclusive is None and call.outcome == _OK


def _probe_internal_error(call: Classified) -> bool:
    return call.inconclusive is None and _internal(call)


# Order = priority: what takes a server down first, then what lies to the caller, then what a
# caller cannot work out, then the server's metadata.
VERDICTS: tuple[VerdictKind, ...] = (
    VerdictKind(
        key="crash",
        title="Protocol crash",
        reason="protocolCrash",
        problem="crashed the target (transport lost)",
        probe_problem="a call to a tool that does not exist crashed the target",
        fix="Keep the server alive on every input: catch failures in the handler and return a "
        "result with isError: true.",
        critical=True,
        dimensions=_FUZZ,
        summary="The call closed the transport, killed the server process or produced a reply "
        "that is not valid JSON-RPC, and did so again when replayed alone on the restarted "
        "target.",
        sarif_id="behavior.protocol_crash",
        advice="Over stdio, write nothing but JSON-RPC messages to stdout (log to stderr): one "
        "stray line breaks the transport.",
        detect=_crashed,
        detect_probe=_probe_crashed,
    ),
    VerdictKind(
        key="crashLoop",
        title="Target keeps dying",
        problem="the fuzz run stopped",
        fix="Keep the server alive on every input, and make it start reliably: the report's "
        "notes quote how each death and each failed start ended.",
        critical=True,
        summary="The target died more often than the restart budget allows (3 restarts per "
        "audit), or could not be started again after a death, so part of the server was not "
        "audited.",
    ),
    VerdictKind(
        key="flakyCrash",
        title="Flaky crash",
        severity=Severity.WARNING,
        problem="died, but no case in flight killed it again when replayed alone",
        fix="Find out why the server died (the report's notes quote its stderr): a death that "
        "no single call reproduces points at a race, a timer, memory, or an outside resource.",
        summary="The target died during the fuzz run and was restarted; replaying each case "
        "that was in flight, alone, did not kill it again. No tool is blamed, nothing is "
        "deducted.",
    ),
    VerdictKind(
        key="timeout",
        title="Timeout",
        reason="timeout",
        problem="timed out",
        probe_problem="a call to a tool that does not exist timed out instead of being rejected",
        fix="Answer within the call timeout, or fail fast with isError: true.",
        critical=True,
        dimensions=_FUZZ,
        summary="The call got no answer within the per-call timeout.",
        sarif_id="behavior.timeout",
        detect=_timed_out,
        detect_probe=_probe_timed_out,
    ),
    VerdictKind(
        key="invalidResult",
        title="Invalid result",
        reason="invalid result (breaks the MCP result schema)",
        problem="answers with a result that breaks the MCP result schema",
        probe_problem="a call to a tool that does not exist got a result that breaks the MCP "
        "schema",
        fix="Return a result that matches the MCP CallToolResult schema: `content` an array of "
        "well-formed content items, `isError` a boolean, `structuredContent` an object.",
        critical=True,
        dimensions=_FUZZ,
        summary="The call was answered with a result that breaks the MCP CallToolResult schema of "
        "the negotiated version (isError not a boolean, content not an array, a malformed content "
        "item, structuredContent not an object).",
        sarif_id="behavior.invalid_result",
        detect=_invalid_result,
        detect_probe=_probe_invalid_result,
    ),
    VerdictKind(
        key="silentlyAccepted",
        title="Malformed input accepted",
        reason="silently accepted",
        problem="silently accepts malformed input",
        fix="Validate arguments against the input schema and reject invalid ones with isError: "
        "true (or JSON-RPC error -32602).",
        critical=True,
        dimensions=frozenset({ERROR_HANDLING}),
        summary="A deliberately malformed call (it fails the tool's own input schema) came back "
        "as a successful result instead of being rejected.",
        sarif_id="behavior.silently_accepted",
        advice="Name the offending field in the error, so the caller can correct the call.",
        flag="silently accepted",
        detect=flagged("silentlyAccepted"),
    ),
    VerdictKind(
        key="unknownToolAccepted",
        title="Unknown tool name accepted",
        problem="accepts a call to a tool that does not exist",
        probe_problem="a call to a tool that does not exist was answered as a success (no isError)",
        fix="Reject calls to unknown tools with JSON-RPC error -32602 or isError: true.",
        critical=True,
        dimensions=frozenset({ERROR_HANDLING}),
        summary="A call to a tool name that the server does not list came back as a successful "
        "result.",
        sarif_id="behavior.unknown_tool_accepted",
        deducted_as="silentlyAccepted",
        detect_probe=_probe_accepted,
    ),
    VerdictKind(
        key="outputSchemaViolation",
        title="Output schema violated",
        reason="output-schema violation",
        problem="violates its own outputSchema",
        fix="Return structuredContent that validates against the declared outputSchema.",
        critical=True,
        dimensions=frozenset({LIVENESS}),
        summary="The tool declares an outputSchema, but a successful valid call returned no "
        "structuredContent or structuredContent that does not validate against it.",
        sarif_id="behavior.output_schema_violation",
        advice="If the result is right and the schema is wrong, fix the schema instead.",
        flag="output schema violation",
        detect=flagged("outputSchemaViolation"),
    ),
    VerdictKind(
        key="emptySuccess",
        title="Empty success",
        reason="empty success",
        problem="returns an empty success for valid input",
        fix="Return usable content on success: non-blank text or structuredContent.",
        critical=True,
        dimensions=frozenset({LIVENESS}),
        summary="A valid call succeeded but returned no usable content (no non-blank text and no "
        "structuredContent).",
        sarif_id="behavior.empty_success",
        flag="empty success",
        detect=flagged("emptySuccess"),
    ),
    VerdictKind(
        key="failureAsSuccess",
        title="Failure reported as success",
        reason="failure reported as success (no isError)",
        problem="reports failure as success without isError",
        fix="Set isError: true on every result that reports a failure, so a model does not read "
        "it as done.",
        dimensions=frozenset({LIVENESS}),
        summary="A valid call came back without isError, but its content plainly reports a "
        "failure (it starts with an error marker, or says success: false): a model reads it as "
        "done.",
        sarif_id="behavior.failure_as_success",
        flag="failure as success",
        detect=flagged("failureAsSuccess"),
    ),
    VerdictKind(
        key="rejectedValid",
        title="Valid call rejected",
        severity=Severity.WARNING,
        reason="valid call rejected ({answer})",
        why=" — the call is the schema's own example (`default`, `const`, `examples`, a one-value "
        "`enum`) or the user's, and it validates: accept it, or correct the example",
        problem="rejects a valid example given by its schema or the user",
        fix="Accept the call the schema's own `default`/`examples` (or the user's example) "
        "describe, or correct that example so a client can build a call that works.",
        dimensions=frozenset({LIVENESS}),
        summary="A valid call whose values are the schema's own examples (or the user's) was "
        "rejected. (A refused call built from mcprobe's own placeholders is inconclusive, never "
        "this verdict.)",
        detect=_rejected_valid,
    ),
    VerdictKind(
        key="internalErrorValid",
        title="Internal error on a valid call",
        severity=Severity.WARNING,
        reason="internal error -32603 on a valid call",
        why=" — the handler failed on input its schema allows: fix the handler, or narrow the "
        "schema to what it accepts",
        problem="fails with an internal error (-32603) on a valid call",
        fix="Make the handler work for every input its schema allows, or narrow the schema to "
        "what it accepts.",
        dimensions=frozenset({LIVENESS}),
        summary="A valid call (built from the tool's input schema and valid against it) was "
        "answered with JSON-RPC -32603 (internal error): the handler failed on input its schema "
        "allows.",
        sarif_id="behavior.internal_error_valid",
        detect=_internal_error_valid,
    ),
    VerdictKind(
        key="internalError",
        title="Internal error instead of a rejection",
        severity=Severity.WARNING,
        reason="internal error -32603",
        problem="answers malformed input with an internal error (-32603)",
        probe_problem="a call to a tool that does not exist got an internal error (-32603)",
        fix="Reject malformed input as invalid params (isError: true or -32602), not as an "
        "internal error (-32603).",
        dimensions=frozenset({ERROR_HANDLING}),
        summary="A call was answered with JSON-RPC -32603 (internal error): the server failed "
        "rather than rejecting the input.",
        sarif_id="behavior.internal_error",
        detect=_internal_error,
        detect_probe=_probe_internal_error,
    ),
    VerdictKind(
        key="validationBypass",
        title="Malformed input reached the handler",
        severity=Severity.WARNING,
        reason="malformed input reached the handler unvalidated",
        why=" — answered exactly like the valid call that failed on this machine (the same "
        "error), so no input check stopped it",
        problem="passes malformed input to its handler unvalidated",
        fix="Validate arguments against the input schema before doing the work, and reject "
        "invalid ones with isError: true (or JSON-RPC error -32602).",
        dimensions=frozenset({ERROR_HANDLING}),
        summary="A deliberately malformed call got the very answer of the tool's valid call, "
        "which failed for want of something the machine lacks (the same network error, the same "
        "-32603): the malformed input went as far as the valid one, past any validation.",
        sarif_id="behavior.validation_bypass",
        advice="Check arguments first: an offline client then learns what it did wrong instead "
        "of a network error.",
        flag="validation bypass",
        detect=_conclusive_flag("validationBypass"),
    ),
    VerdictKind(
        key="leak",
        title="Internal details leaked",
        severity=Severity.WARNING,
        problem="leaks internals in error text",
        fix="Keep internals out of error messages: no tracebacks, stack frames or source "
        "locations (paths the user needs, such as an allowed directory, are fine).",
        summary="An error text shows a traceback, a stack frame, a source location (file and "
        "line, or a package directory) or a qualified exception class.",
        sarif_id="behavior.leak",
        advice="Log the internals to stderr instead, and answer with a short message the caller "
        "can act on.",
        flag="leak",
        detect=flagged("leak"),
        detect_probe=flagged("leak"),
    ),
    # The deep pass of valid inputs (``--deep``, issue 25): one verdict per ``core.deep.Oracle``
    # (``deep`` + the oracle capitalised). Their deductions are not about one fuzz call: one per
    # tool, verdict and field (``core/score/deep.py``), params ``tool``, ``field``, ``edge``,
    # ``what`` (the edge in words, ``core.deep.describe``) and ``more`` (the other edges).
    VerdictKind(
        key="deepCrash",
        title="Crash on a valid input",
        reason="deep crash: `{tool}` died on `{field}` = {what}{more}",
        fix="Keep `{tool}` alive when `{field}` is {what} (schema-valid): validate `{field}` "
        "before use and answer isError: true instead of letting the process die.",
        dimensions=frozenset({LIVENESS}),
        summary="A schema-valid call (a working base call with one field changed to an edge "
        "value) killed the server, and killed it again when replayed alone on the restarted "
        "target.",
        sarif_id="deep.crash",
        advice="The report gives the exact arguments and the base call they change: that pair "
        "is the minimal reproduction.",
    ),
    VerdictKind(
        key="deepHang",
        title="Hang on a valid input",
        reason="deep hang: `{tool}` timed out on `{field}` = {what}{more}",
        fix="Bound the work `{field}` of `{tool}` can cause: {what} made the call time out where "
        "the base call answered fast; validate it (cap sizes, loops and counts) and fail fast "
        "with isError: true.",
        dimensions=frozenset({LIVENESS}),
        summary="A schema-valid edge call got no answer within the per-call timeout, where the "
        "base call it changes answered fast and no duration-like field was raised.",
        sarif_id="deep.hang",
    ),
    VerdictKind(
        key="deepRuntimeError",
        title="Runtime error on a valid input",
        reason="deep runtime error: `{tool}` threw on `{field}` = {what}{more}",
        fix="Validate `{field}` of `{tool}` before use: {what} is schema-valid and reached code "
        "that threw (the answer shows an exception); reject it with isError: true and a message "
        "naming `{field}`, or narrow the schema to what the handler accepts.",
        dimensions=frozenset({ERROR_HANDLING}),
        summary="A schema-valid edge call was answered with exception text (TypeError, "
        "`Cannot read properties of`, `object has no attribute`, a reason-less internal error) "
        "that the field's other edges and the base call do not show.",
        sarif_id="deep.runtimeError",
        advice="Log the exception to stderr and answer with a message the caller can act on.",
    ),
    VerdictKind(
        key="deepErrorAsSuccess",
        title="Error reported as success on a valid input",
        reason="deep error as success: `{tool}` failed without isError on `{field}` = {what}{more}",
        fix="Set isError: true when `{tool}` fails: with `{field}` set to {what} (schema-valid) it "
        "reported a failure in a successful result; validate `{field}` first, so the failure "
        "is a clean refusal.",
        dimensions=frozenset({ERROR_HANDLING}),
        summary="A schema-valid edge call came back without isError, but its content reports a "
        "failure (`success: false`, `Database error:`, a traceback): a model reads it as done.",
        sarif_id="deep.errorAsSuccess",
    ),
    VerdictKind(
        key="deepSchemaContradiction",
        title="Valid value refused as the wrong type",
        severity=Severity.WARNING,
        reason="deep schema contradiction: `{tool}` refused `{field}` = {what}{more} as the "
        "wrong type",
        fix="Accept every value the schema allows for `{field}` of `{tool}`: {what} is valid but "
        "was refused with a type error (a string pre-parsed as JSON?); stop converting it, or "
        "narrow the schema to what the tool takes.",
        dimensions=frozenset({ERROR_HANDLING}),
        summary="A schema-valid edge value was refused with a type error naming a type the "
        "schema does not allow for that field: the schema and the handler disagree.",
        sarif_id="deep.schemaContradiction",
    ),
    VerdictKind(
        key="deepDifferential",
        title="Valid input fails unlike the field's refusals",
        severity=Severity.WARNING,
        reason="deep differential: `{tool}` failed on `{field}` = {what}{more} unlike its other "
        "refusals",
        fix="Validate `{field}` of `{tool}` where its other values are checked: the base call "
        "succeeds, and {what} failed differently from every other refusal of that field (an "
        "internal error where the rest are clean rejections).",
        dimensions=frozenset({ERROR_HANDLING}),
        summary="The base call succeeded and one schema-valid edge failed, in a kind unlike the "
        "field's other refusals (for example -32603 where the others are clean tool errors).",
        sarif_id="deep.differential",
    ),
    VerdictKind(
        key="deepOutputSchema",
        title="Output schema broken on a valid input",
        reason="deep output schema: `{tool}` broke its outputSchema on `{field}` = {what}{more}",
        fix="Return structuredContent that matches the outputSchema of `{tool}` for every valid "
        "input: with `{field}` set to {what} it did not; validate `{field}`, or widen the "
        "outputSchema to what the tool returns.",
        dimensions=frozenset({ERROR_HANDLING}),
        summary="A schema-valid edge call succeeded with structuredContent (or a result shape) "
        "that breaks the tool's declared outputSchema.",
        sarif_id="deep.outputSchema",
    ),
    VerdictKind(
        key="deepCorruption",
        title="A valid write corrupted the data",
        reason="deep corruption: `{tool}` with `{field}` = {what}{more} broke a later read",
        fix="Validate `{field}` of `{tool}` before writing: a write with {what} succeeded, and "
        "the server's own read tool fails on the data since; reject such values, or store them "
        "so that they read back.",
        dimensions=frozenset({ERROR_HANDLING}),
        summary="After a successful schema-valid write, the server's own read-only tool failed "
        "where it had worked before the write: the write corrupted persistent data.",
        sarif_id="deep.corruption",
    ),
    VerdictKind(
        key="slowValidCalls",
        title="Slow valid calls",
        severity=Severity.WARNING,
        reason="valid-call p50 latency {p50} ms exceeds {budget} ms ({per100} per 100 ms over)",
        fix="Answer valid calls faster: their p50 latency is {p50} ms, over the {budget} ms "
        "budget (−{per100} per 100 ms over); move slow work off the call path, or cache it.",
        dimensions=frozenset({LIVENESS}),
    ),
    VerdictKind(
        key="unsupportedProtocolVersion",
        title="Unsupported protocol version",
        reason="unsupported protocol version `{shown}` negotiated",
        fix="Answer initialize with a supported protocolVersion: the client's when you support "
        "it, else the newest you do (2024-11-05 to 2025-11-25); the MCP SDKs negotiate this.",
        dimensions=frozenset({METADATA}),
    ),
    VerdictKind(
        key="noServerName",
        title="No server name",
        reason="no server `name` in serverInfo",
        fix="Set `serverInfo.name` in the initialize result to a stable identifier for the server.",
        dimensions=frozenset({METADATA}),
    ),
    VerdictKind(
        key="noServerVersion",
        title="No server version",
        reason="no server `version` in serverInfo",
        fix="Set `serverInfo.version` to the release you ship, so clients and bug reports can "
        "tell versions apart.",
        dimensions=frozenset({METADATA}),
    ),
    VerdictKind(
        key="noServerTitle",
        title="No server title",
        severity=Severity.INFO,
        reason="no human-readable `title` in serverInfo",
        fix="Add a human-readable `serverInfo.title` (hosts show it to people; MCP 2025-06-18 "
        "and later).",
        dimensions=frozenset({METADATA}),
    ),
    VerdictKind(
        key="noInstructions",
        title="No instructions",
        severity=Severity.WARNING,
        reason="no `instructions` in initialize",
        fix="Send `instructions` in the initialize result: a few sentences on what the server is "
        "for and how its tools fit together (at least {minimum} characters).",
        dimensions=frozenset({METADATA}),
    ),
    VerdictKind(
        key="shortInstructions",
        title="Short instructions",
        severity=Severity.INFO,
        reason="`instructions` are only {length} characters (< {minimum})",
        fix="Expand `instructions` to at least {minimum} characters: what the server is for and "
        "how its tools fit together.",
        dimensions=frozenset({METADATA}),
    ),
    VerdictKind(
        key="capabilityNotServed",
        title="Advertised capability does not answer",
        severity=Severity.WARNING,
        reason="advertises the `{capability}` capability but `{capability}/list` fails",
        fix="Answer `{capability}/list` (an empty list is fine), or stop advertising the "
        "`{capability}` capability in the initialize result.",
        dimensions=frozenset({METADATA}),
    ),
    VerdictKind(
        key="toolsNotAdvertised",
        title="Tools listed without the tools capability",
        severity=Severity.WARNING,
        reason="lists {count} tools without advertising the `tools` capability",
        fix="Advertise the `tools` capability in the initialize result.",
        dimensions=frozenset({METADATA}),
    ),
    VerdictKind(
        key="lintFindings",
        title="Lint findings",
        # Its lines are the Schema Quality formula and per-tool lines (score.py); the fixes are
        # the findings' own hints, one item per lint code.
        fix="Fix the lint findings listed under Findings.",
        dimensions=frozenset({SCHEMA_QUALITY}),
    ),
    VerdictKind(
        key="surfaceCheck",
        title="Resource, prompt or protocol check failed",
        # One deduction per failed `must` check id (core/score/surface.py); the fix of each is
        # the check's own (core/checks/), listed with its subjects by the report's fixes.
        reason="{label} check `{check}` failed ({count})",
        fix="{fix}",
        dimensions=frozenset({METADATA, ERROR_HANDLING, LIVENESS}),
    ),
)
VERDICTS = (
    VerdictKind(
        key="securityCritical",
        title="Critical security finding",
        severity=Severity.CRITICAL,
        critical=True,
        problem="has a critical security finding",
        fix="Fix the critical security findings listed under Findings (see docs/checks.md).",
    ),
    *VERDICTS,
    VerdictKind(
        key="securityFinding",
        title="Security finding",
        # One deduction per security.* finding (core/score/security.py); the fixes are the
        # findings' own hints.
        reason="{severity} {code}",
        fix="Fix the security findings listed under Findings.",
        dimensions=frozenset({SECURITY}),
    ),
)
VERDICTS_BY_KEY = {kind.key: kind for kind in VERDICTS}
CRITICAL_KEYS = frozenset(kind.key for kind in VERDICTS if kind.critical)
_PRIORITY = {kind.key: n for n, kind in enumerate(VERDICTS)}


def verdict(key: str) -> VerdictKind:
    """The catalogue record of ``key`` (a ``KeyError`` names an unregistered verdict)."""
    return VERDICTS_BY_KEY[key]


def priority(key: str) -> int:
    return _PRIORITY[key]


# --------------------------------------------------------------------------- text


def fmt_number(value: float, digits: int = 4) -> str:
    """A number as a person would write it: 2, 0.5, 0.375, 7.8."""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def name_list(items: Sequence[str]) -> str:
    """The first few names, then "and N more"."""
    shown = ", ".join(items[:LISTED_EXAMPLES])
    more = len(items) - LISTED_EXAMPLES
    return f"{shown} and {more} more" if more > 0 else shown


def deduction_label(deduction: Deduction) -> str:
    """What a deduction is for, e.g. ``silently accepted`` (its verdict's ``reason``)."""
    return verdict(deduction.cause).reason.format(**dict(deduction.params))


def deduction_reason(deduction: Deduction) -> str:
    """The reason line of one deduction, e.g. ``−2: silently accepted (1): a wrong_type:x``."""
    kind = verdict(deduction.cause)
    text = f"−{fmt_number(deduction.amount)}: {deduction_label(deduction)}"
    if deduction.cases:
        # "tool case" labels: the tool name (and a case's parameter name) are the target's.
        text += f" ({len(deduction.cases)}): {name_list(quoted_list(deduction.cases))}"
    return text + kind.why


def deduction_fix(cause: str, params: Iterable[tuple[str, str]] = ()) -> str:
    """The fix of one deduction: its verdict's fix text with the deduction's parameters."""
    return verdict(cause).fix.format(**dict(params))


_QUOTED_SLOT = re.compile(r"`\{(\w+)\}`")
_RULE_WORDS = {"what": "an edge value", "more": ""}


def rule_fix(kind: VerdictKind) -> str:
    """``kind``'s fix where no deduction fills its slots (a SARIF rule's ``help``): a quoted
    slot reads as its name (`` `{field}` `` → "the field"), ``{what}`` as "an edge value"."""
    if "{" not in kind.fix:
        return kind.fix
    text = _QUOTED_SLOT.sub(lambda m: f"the {m.group(1)}", kind.fix)
    return text.format_map(_RuleWords())


class _RuleWords(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return _RULE_WORDS.get(key, f"the {key}")


# --------------------------------------------------------------------------- detection


class Classified(Protocol):
    """What verdict detection reads of one classified call: ``model.CaseResult`` when the core
    classifies it, the report's ``FuzzResultOut`` when an older report without ``verdicts`` is
    loaded back (its verdicts are derived the same way)."""

    @property
    def kind(self) -> str: ...
    @property
    def malformed(self) -> bool: ...
    @property
    def outcome(self) -> str: ...
    @property
    def error_code(self) -> int | None: ...
    @property
    def flags(self) -> frozenset[str]: ...
    @property
    def inconclusive(self) -> str | None: ...
    @property
    def environment(self) -> str | None: ...


class JudgedCall(Protocol):
    """A call with its verdicts, as the report groups them (the report's ``FuzzResultOut``)."""

    @property
    def name(self) -> str: ...
    @property
    def case(self) -> str: ...
    @property
    def verdicts(self) -> Sequence[str]: ...


_Call = TypeVar("_Call", bound=JudgedCall)

# The per-call flags (``VerdictKind.flag``), in the order a verdict list holds them.
FLAG_KEYS = tuple(kind.key for kind in VERDICTS if kind.flag)


# Each per-call verdict's detector, in ``VERDICTS`` order (the order a verdict list holds them).
_DETECTORS = tuple((kind.key, kind.detect) for kind in VERDICTS if kind.detect is not None)
_PROBE_DETECTORS = tuple(
    (kind.key, kind.detect_probe) for kind in VERDICTS if kind.detect_probe is not None
)


def call_verdicts(call: Classified) -> tuple[str, ...]:
    """The verdict keys one classified call shows, in priority order: each record's detector
    (``VerdictKind.detect``, ``detect_probe`` for the unknown-tool probe), run here, once, when
    the call is classified (``classify``) or judged inconclusive (``evidence``), and stored on
    it; the score, the report and every renderer read that list."""
    # A detector reads nothing but ``Classified``'s fields (its type allows no more), so calls
    # alike in them show the same verdicts, and most calls of a run are alike (a rejection, a
    # plain success): each answer is kept by those fields, as many as ``_SEEN_MAX`` (a run's
    # distinct texts could grow it).
    shape = _shape(call)
    found = _SEEN.get(shape)
    if found is None:
        detectors = _PROBE_DETECTORS if call.kind == _UNKNOWN_TOOL else _DETECTORS
        found = tuple([key for key, detect in detectors if detect(call)])
        if len(_SEEN) >= _SEEN_MAX:
            _SEEN.clear()
        _SEEN[shape] = found
    return found


_SEEN: dict[tuple[object, ...], tuple[str, ...]] = {}
_SEEN_MAX = 4096
# every property of ``Classified``, in its order (tests/core/test_verdicts.py keeps them equal)
SHAPE_FIELDS = (
    "kind",
    "malformed",
    "outcome",
    "error_code",
    "flags",
    "inconclusive",
    "environment",
)
_shape: Callable[[Classified], tuple[object, ...]] = operator.attrgetter(*SHAPE_FIELDS)


def judged(result: CaseResult) -> CaseResult:
    """``result`` with its verdicts detected from its outcome and flags (``call_verdicts``)."""
    return replace(result, verdicts=call_verdicts(result))


def protocol_probe_verdicts(verdicts: Sequence[str], error_code: int | None) -> list[str]:
    """``verdicts`` of the once-per-server ``non_object_arguments`` probe (``arguments: []``):
    -32603 there is the SDK's request parsing, a protocol note with no points (the score leaves
    the probe out), so it is no ``internalError``."""
    if not is_internal_error(error_code):
        return list(verdicts)
    return [key for key in verdicts if key != "internalError"]


def bystander_verdicts(verdicts: Sequence[str], call: str, crashed_by: str | None) -> list[str]:
    """``verdicts`` of the call ``call`` ("tool case") once the case that killed the target is
    known (``crashed_by``): a call in flight when another one killed it is its victim, so its
    ``crash`` goes."""
    if crashed_by is None or call == crashed_by:
        return list(verdicts)
    return [key for key in verdicts if key != "crash"]


def flags(verdicts: Iterable[str]) -> list[VerdictKind]:
    """The per-call flags among ``verdicts`` (the fuzz tables' flag column, ``-v``)."""
    return [kind for kind in map(verdict, verdicts) if kind.flag]


def costs(verdicts: Iterable[str], dimension: str) -> str | None:
    """The verdict a call is deducted for in ``dimension``: its first verdict (priority order)
    that costs that dimension, under the key its deduction line is counted with (``deducted_as``),
    or None when it costs the dimension nothing."""
    for key in verdicts:
        kind = verdict(key)
        if dimension in kind.dimensions:
            return kind.deducted_as or kind.key
    return None


def sarif_verdicts(result: JudgedCall) -> list[VerdictKind]:
    """The verdicts of one call that are SARIF results, in catalogue order."""
    found = [verdict(key) for key in result.verdicts]
    return sorted((k for k in found if k.sarif_id is not None), key=lambda k: priority(k.key))


def group_problems(
    results: Iterable[_Call],
    *,
    keys: frozenset[str] | None = None,
) -> list[tuple[str, str, list[_Call]]]:
    """``(key, tool, results)`` grouped by verdict (priority order), then tool (first seen),
    restricted to ``keys`` when given."""
    grouped: dict[str, dict[str, list[_Call]]] = {}
    for result in results:
        for key in result.verdicts:
            if keys is None or key in keys:
                grouped.setdefault(key, {}).setdefault(result.name, []).append(result)
    ordered = sorted(grouped, key=priority)
    return [(key, tool, found) for key in ordered for tool, found in grouped[key].items()]
