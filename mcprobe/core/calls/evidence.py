"""What a call's answer proves, and what it does not (issue #10; SPEC §5.1 truthfulness).

A verdict costs a server points only when the server is provably at fault. This module holds
the rules that decide, for results ``classify`` produced, which ones prove nothing — they are
marked ``inconclusive`` with the reason and kept out of every score — and the two text rules
``classify`` applies to every answer:

- **Errors dressed as successes** (``failure_text``). A result without ``isError`` whose content
  plainly reports failure. Conservative on purpose: only the *start* of the text counts (an
  error marker such as ``Error:``, ``Error executing …``, ``Exception:``, ``Traceback (most
  recent call last)``, ``Failed to …``, ``SomethingError:``), or a JSON object (structured
  content, or text that is one JSON object) with ``"success": false`` / ``"ok": false`` next
  to an ``error`` key, or whose only key is ``error``. Ordinary text that merely contains the
  word "error" ("0 errors found", "error handling guide") stays a success, and so does any
  answer to a call whose own argument values name an error (``{"messageType": "error"}`` asks
  for an error-looking message).
- **The machine is not the server** (``environment_cause``). DNS and network failures
  (``getaddrinfo``, ``ENOTFOUND``, ``EAI_AGAIN``, ``ENETUNREACH``, ``ECONNREFUSED`` to a host
  that is not local, ``fetch failed``, name-resolution and TLS certificate errors), a missing
  browser or binary (``Executable doesn't exist``, ``spawn git ENOENT``, ``command not found``,
  "… not found …, run … install"), a missing optional module (``No module named …``), a
  read-only file system (``EROFS``: in the sandbox, a write outside the private copies), a
  process or file-size limit (``Cannot fork``, ``EFBIG``; memory is left out: a call that needs
  gigabytes is a danger). Such a call says where mcprobe runs, not how the tool behaves; in the
  sandbox, what it denies (network, writes outside the copies, room past its limits) is named
  as the sandbox's doing, with how to judge the calls anyway.

``judge_controls`` applies the per-tool rules once every call of a run is classified:

1. A result caused by the environment is inconclusive.
2. A valid call built from mcprobe's own guesses (source ``synthesized``) that the tool refuses
   (``toolError``, or a JSON-RPC error other than -32603) is inconclusive: the refusal may be of
   mcprobe's placeholder (``"example.txt"`` is not a git repository), not a defect. A refused
   ``user`` or ``schema`` example stays a failure; so do -32603, a timeout, a crash, an empty
   success, an error dressed as success and an output-schema violation on any valid input.
3. A malformed case's clean rejection counts only against a working control: when the tool's
   valid call was not accepted (refused, failed, or reported failure without ``isError``; an
   empty success or an output-schema violation still counts as accepted), or no valid call
   could be built, a tool that fails on
   every input "rejects" every malformed one, so the rejection is inconclusive — unless it is
   distinguishable from the control's failure: a JSON-RPC error (not -32603) where the control
   got something else, or a refusal that names input validation where the control's did not.
   A silent accept stays a verdict in any case (the server said success to invalid input).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace

from mcprobe.core.knobs import EXAMPLES, SANDBOX, FrontEnd
from mcprobe.core.model import JSON, CaseResult, CaseSource, FuzzRun, Outcome, is_internal_error
from mcprobe.core.quoting import quoted
from mcprobe.core.verdicts import judged

__all__ = [
    "environment_cause",
    "evidence_notes",
    "failure_text",
    "judge_controls",
    "protocol_notes",
    "sandbox_denied",
    "setup_plan",
    "setup_tool",
    "unmet_precondition",
]

_MAX_JSON_TEXT = 20_000  # a text answer longer than this is not parsed as one JSON object

# --------------------------------------------------------------------------- failure text

_FAILURE_START = re.compile(
    r"""\A\W{0,3}(?:
        error\s*[:\-!]
      | error\s+(?:executing|calling|running|processing|reading|writing|fetching|loading|
                  parsing|creating|getting|opening|connecting|updating|deleting|handling\s+
                  (?:request|tool)|invoking|while|occurred|in\s+tool)\b
      | exception\s*[:\-]
      | exception\s+(?:occurred|raised|thrown|while|in)\b
      | traceback\s+\(most\s+recent\s+call\s+last\)
      | failed\s*[:\-]
      | failed\s+to\b
      | failure\s*:
      | fatal\s*:
      | [A-Z][A-Za-z0-9_]{0,80}(?:Error|Exception)\s*:
      | error\s+(?!(?:handling|reporting|logging|tracking|monitoring)\b)[a-z]{2,30}ing\b
        [^\n:]{0,80}:
      | (?!(?:no|last|previous|zero)\s)[a-z][\w-]{1,30}(?:\s[a-z][\w-]{1,30}){0,2}\s+error\s*:
    )""",
    re.IGNORECASE | re.VERBOSE,
)


_ERROR_ENVELOPE = frozenset({"error", "message", "code", "details", "detail", "status"})
_FAILED_STATUS = frozenset({"error", "failed", "failure"})


def _failure_object(value: JSON) -> bool:
    if not isinstance(value, dict) or not value:
        return False
    error = value.get("error")
    has_error = error not in (None, False, "", [], {})
    status = value.get("status")
    if isinstance(status, str) and status.lower() in _FAILED_STATUS:
        # ``{"status": "error", "message": …}``: an envelope that says it failed
        return set(value) <= _ERROR_ENVELOPE | {"errorCode", "error_code"}
    if set(value) <= _ERROR_ENVELOPE | {"errorCode", "error_code"} and "error" in value:
        return has_error  # nothing but an error and its envelope (``{"error": …, "code": 7}``)
    flag = next((value[k] for k in ("success", "ok") if k in value), None)
    return flag is False and has_error


_ASKED_FOR_FAILURE = re.compile(r"error|fail|exception", re.IGNORECASE)


def failure_text(text: str, structured: JSON = None, sent: JSON = None) -> str | None:
    """The error marker that makes a result without ``isError`` a reported failure, or None.
    See the module docstring for the (deliberately narrow) rule. When a string value of the
    arguments ``sent`` itself names an error (``{"messageType": "error"}``), an error-looking
    answer is what the call asked for, not a failure: None."""
    if any(
        isinstance(v, str) and _ASKED_FOR_FAILURE.search(v)
        for v in (sent.values() if isinstance(sent, dict) else ())
    ):
        return None
    if _failure_object(structured):
        return "structured content reports failure"
    stripped = text.strip()
    match = _FAILURE_START.match(stripped)
    if match is not None:
        return f"the text starts with {match.group(0).strip()!r}"
    if stripped.startswith("{") and len(stripped) <= _MAX_JSON_TEXT:
        try:
            parsed = json.loads(stripped)
        except ValueError:
            return None
        if _failure_object(parsed):
            return "the text is a JSON object that reports failure"
    return None


# --------------------------------------------------------------------------- environment

# A command that installs something: what an environment message tells the user to run.
_INSTALL_HINT = (
    r"(?:\b(?:pip3?|uv(?: pip)?|pipx|poetry|npm|pnpm|yarn|bun|apt(?:-get)?|brew|dnf|apk|cargo"
    r"|go|gem|conda)\s+(?:install|add|i|get)\b|\bnpx\s+\S{1,80}\s+install\b"
    r"|\b(?:playwright|puppeteer)\s+install\b)"
)
_LOCAL_HOST = r"(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|::1|\[::1\])"
WRITABLE_FS = "a writable file system"
RESOURCE_LIMIT = "room under a resource limit"
NETWORK = "network access"
_ENVIRONMENT: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        WRITABLE_FS,
        re.compile(
            r"(?:\[Errno 30\]\s*)?Read-only file system|\bEROFS\b|\[Errno 30\]", re.IGNORECASE
        ),
    ),
    (
        # the sandbox's process and file-size limits (core/isolation.Limits); memory is left
        # out on purpose: a call that needs gigabytes is a danger worth its verdict
        RESOURCE_LIMIT,
        re.compile(
            r"\b(?:fork|spawn|clone|thread)\w*\b[^\n]{0,80}?(?:Resource temporarily unavailable"
            r"|\bEAGAIN\b)|(?:Resource temporarily unavailable|\bEAGAIN\b)[^\n]{0,40}?"
            r"\b(?:fork|spawn|clone|thread)|Cannot fork|can't start new thread"
            r"|File too large|\bEFBIG\b|\[Errno 27\]|File size limit exceeded",
            re.IGNORECASE,
        ),
    ),
    (
        NETWORK,
        re.compile(
            r"getaddrinfo(?: E[A-Z_]{2,20})?(?: [\w.-]{1,100})?"
            r"|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|fetch failed"
            r"|Temporary failure in name resolution|Name or service not known"
            r"|nodename nor servname|No address associated with hostname"
            r"|Network is unreachable|No route to host|Could not resolve host"
            r"|Failed to resolve|getaddrinfo failed|\[Errno -[235]\]"
            r"|due to a connection issue|All connection attempts failed|\bConnectError\b"
            # prose: a remote service that could not be reached (after retries)
            r"|(?:could not|couldn't|cannot|can't|unable to|failed to)\s+(?:be\s+)?"
            r"(?:reach|connect(?:ed)?\s+to|contact|establish\s+a\s+connection)"
            r"|(?:could not|couldn't|unable to|failed to)\s+\w+(?:\s+\S+){0,6}?\s+after\s+\d+"
            r"\s+(?:retries|attempts|tries)|Max retries exceeded|\bETIMEDOUT\b|\bECONNRESET\b"
            r"|Connection (?:timed out|reset by peer)|\bservice (?:is )?unreachable",
            re.IGNORECASE,
        ),
    ),
    (
        NETWORK,
        re.compile(r"ECONNREFUSED\s+(?!" + _LOCAL_HOST + r")[\w.:\[\]-]+"),
    ),
    (
        "network access (TLS)",
        re.compile(
            r"CERTIFICATE_VERIFY_FAILED|certificate verify failed|self[- ]signed certificate"
            r"|unable to get local issuer certificate|UNABLE_TO_VERIFY_LEAF_SIGNATURE",
            re.IGNORECASE,
        ),
    ),
    (
        "a browser or binary that is not installed here",
        re.compile(
            r"Executable doesn't exist|spawn \S{1,200} ENOENT|command not found"
            # the install hint may be on the next line (``[\s\S]``: across lines)
            r"|not found (?:at|in) \S{1,300}[\s\S]{0,200}?\brun\b[\s\S]{0,100}?\binstall\b"
            r"|(?:is not|isn't|not) installed[\s\S]{0,200}?"
            + _INSTALL_HINT
            + r"|(?:executable|binary|browser|chrom(?:e|ium)|firefox|webkit)\b[^\n]{0,80}?"
            r"\bnot found[\s\S]{0,200}?"
            + _INSTALL_HINT
            + r"|Please run the following command to download new browsers",
            re.IGNORECASE,
        ),
    ),
    (
        "an optional module that is not installed here",
        re.compile(
            r"No module named ['\"][\w.]{1,200}['\"]|Cannot find module ['\"][^'\"]{1,200}"
            # a missing optional extra, with the command that installs it
            r"|(?:requires?|needs?|missing|optional)\b[\s\S]{0,200}?(?:extra|dependenc(?:y|ies)"
            r"|package|module)[\s\S]{0,200}?"
            + _INSTALL_HINT
            + r"|\b(?:pip|uv pip|pipx) install\s+['\"]?[\w.-]{1,100}\[[\w,.-]{1,100}\]",
            re.IGNORECASE,
        ),
    ),
)


# Literal needles, one tuple per ``_ENVIRONMENT`` pattern (same order), lowercase: every match
# of that pattern contains one of its needles, ignoring case (each needle is a run of literal
# characters that every alternative of the pattern must match; e.g. the prose alternative
# "could not … reach/connect/contact/establish" must match one of its second words). A text in
# which none of a pattern's needles occurs cannot match the pattern, so the pattern (whose
# search costs up to a microsecond per character) is not tried: the first pattern that matches
# is the same. ``tests/core/test_classify_fast_paths.py`` compares the gated and the plain loop.
_ENVIRONMENT_NEEDLES: tuple[tuple[str, ...], ...] = (
    ("read-only file system", "erofs", "[errno 30]"),
    (
        "resource temporarily unavailable",
        "eagain",
        "cannot fork",
        "can't start new thread",
        "file too large",
        "efbig",
        "[errno 27]",
        "file size limit exceeded",
    ),
    (
        "getaddrinfo",
        "enotfound",
        "eai_again",
        "reach",  # enetunreach, ehostunreach, network is unreachable, (un)reach(able)
        "fetch failed",
        "name resolution",
        "name or service not known",
        "nodename nor servname",
        "no address associated with hostname",
        "no route to host",
        "resolve",  # could not resolve host, failed to resolve
        "[errno -",
        "connect",  # connection issue/attempts, connecterror, connect(ed) to, connection timed out
        "contact",
        "establish",
        "tries",  # after N retries/tries, max retries exceeded
        "attempts",
        "etimedout",
        "econnreset",
    ),
    ("econnrefused",),
    ("certificate", "unable_to_verify_leaf_signature"),
    (
        "executable doesn't exist",
        "enoent",
        "not found",  # command not found, not found at/in, … not found
        "installed",
        "please run the following command to download new browsers",
    ),
    (
        "no module named",
        "cannot find module",
        "require",  # requires?, needs?, missing, optional: the missing-extra alternative
        "need",
        "missing",
        "optional",
        " install",  # (pip|uv pip|pipx) install pkg[extra]
    ),
)

# The only characters outside ASCII that a case-insensitive pattern matches to an ASCII
# character (``tests/core/test_classify_fast_paths.py`` checks every code point): folded to it
# before the needles are looked for, so a lowered text contains a needle wherever the
# case-insensitive pattern could match it.
_ASCII_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _folded_lower(text: str) -> str:
    """``text`` lowered, with the four non-ASCII characters that match ASCII letters folded."""
    return text.lower() if text.isascii() else text.translate(_ASCII_FOLDS).lower()


def _literal_alternation(words: Sequence[str]) -> re.Pattern[str]:
    """A regex matching exactly where one of ``words`` occurs, as a trie (shared prefixes
    factored out: one character test per branch and position, not one per word)."""

    def trie(group: list[str]) -> str:
        heads: dict[str, list[str]] = {}
        for word in group:
            heads.setdefault(word[0], []).append(word[1:])
        parts = []
        for head, tails in heads.items():
            rest = [tail for tail in tails if tail]
            body = trie(rest) if rest else ""
            if rest and len(rest) < len(tails):  # one word ends here, longer ones go on
                body = f"(?:{body})?"
            parts.append(re.escape(head) + body)
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"

    return re.compile(trie(sorted(set(words))))


_ENVIRONMENT_GATES = tuple(_literal_alternation(needles) for needles in _ENVIRONMENT_NEEDLES)
_ANY_ENVIRONMENT_NEEDLE = _literal_alternation(
    [needle for needles in _ENVIRONMENT_NEEDLES for needle in needles]
)


def environment_cause(text: str) -> str | None:
    """What the failure in ``text`` needs from the machine (e.g. "network access"), with the
    matched evidence, or None when nothing says the machine caused it."""
    scanned = text[:100_000]
    lowered = _folded_lower(scanned)
    if _ANY_ENVIRONMENT_NEEDLE.search(lowered) is None:
        return None  # no pattern can match (see ``_ENVIRONMENT_NEEDLES``)
    for (what, pattern), gate in zip(_ENVIRONMENT, _ENVIRONMENT_GATES, strict=True):
        if gate.search(lowered) is None:
            continue
        match = pattern.search(scanned)
        if match is not None:
            evidence = " ".join(match.group(0).split())[:80]
            return f"{what} (`{evidence}`)"
    return None


_SANDBOX_DENIES = (NETWORK + " (`", WRITABLE_FS, RESOURCE_LIMIT)
"""What the sandbox takes away (core/isolation.py): the network but loopback, writes outside
the private copies, room past its limits. TLS errors and missing binaries are this machine's."""


def sandbox_denied(need: str) -> bool:
    """Whether an ``environment_cause`` is one the sandbox itself causes when isolated."""
    return need.startswith(_SANDBOX_DENIES)


def _where(need: str, isolated: bool) -> str:
    return "the sandbox denies" if isolated and sandbox_denied(need) else "this machine lacks"


# --------------------------------------------------------------------------- preconditions

_NAME = r"`?['\"]?([A-Za-z_][\w.-]{0,63})['\"]?`?"
_PRECONDITION = re.compile(
    r"\bno\s+(?:active\s+|current\s+)?(?:working\s+director(?:y|ies)|workspace|session|project"
    r"|repository|database|connection|context|document|workbook|browser|page|tab|root"
    r"|allowed\s+director(?:y|ies))\b[^.\n]{0,40}?\b(?:is\s+|has\s+been\s+|was\s+)?"
    r"(?:set|selected|open(?:ed)?|active|configured|initiali[sz]ed|loaded|started|connected"
    r"|specified|available)\b"
    r"|\bno\s+active\s+(?:session|connection|project|workspace|browser|page|document)\b"
    r"|\bnot\s+(?:yet\s+)?(?:been\s+)?initiali[sz]ed\b|\b(?:is\s+)?not\s+connected\b"
    r"|\b(?:please\s+)?(?:call|run|use|invoke)\s+(?:the\s+)?" + _NAME + r"(?:\s+tool)?\s+first\b"
    r"|\b(?:must|need\s+to|needs\s+to|have\s+to|should)\s+(?:first\s+)?(?:call|run|use|invoke)"
    r"\s+(?:the\s+)?" + _NAME + r"(?:\s+tool)?\s+(?:before|first)\b",
    re.IGNORECASE,
)
_NAMED_FIRST = re.compile(
    r"\b(?:call|run|use|invoke)\s+(?:the\s+)?" + _NAME + r"(?:\s+tool)?\s+(?:first|before)\b",
    re.IGNORECASE,
)


def unmet_precondition(text: str | None) -> str | None:
    """The words of ``text`` that refuse a call for an unmet precondition (no working directory
    or session set yet, "call X first", not initialised), or None. Such a refusal is about the
    order of calls, not about the arguments: it proves nothing about the call refused."""
    if not text:
        return None
    match = _PRECONDITION.search(text[:100_000])
    return " ".join(match.group(0).split())[:80] if match is not None else None


def setup_tool(text: str | None, tools: Sequence[str], refused_by: str) -> str | None:
    """The tool a precondition refusal names as the one to call first, when it is one of the
    server's ``tools`` (and not ``refused_by`` itself), else None."""
    if not text:
        return None
    known = set(tools) - {refused_by}
    for match in _NAMED_FIRST.finditer(text[:100_000]):
        if match.group(1) in known:
            return match.group(1)
    return None


def setup_plan(results: Sequence[CaseResult], tools: Sequence[str]) -> dict[str, list[str]]:
    """Setup tool -> the tools whose calls it refused to run without it: from each result
    refused for an unmet precondition whose message names another of the called ``tools`` to
    call first (in the order first seen). The engine calls that tool once, then sends the
    refused calls again."""
    plan: dict[str, list[str]] = {}
    for result in results:
        if not result.rejected or unmet_precondition(result.message) is None:
            continue
        named = setup_tool(result.message, tools, result.tool)
        if named is not None and result.tool not in plan.setdefault(named, []):
            plan[named].append(result.tool)
    return plan


# --------------------------------------------------------------------------- controls

_VALIDATION_WORDS = re.compile(
    r"validation error|invalid arguments|invalid params|input validation|invalid_type"
    r"|is a required property|required property|unexpected keyword|expected \w+, received",
    re.IGNORECASE,
)


def _control_worked(result: CaseResult) -> bool:
    """The tool accepted its valid call (an empty success or an output-schema violation is a
    flaw of the answer, but still proves the tool tells valid input from invalid input)."""
    return result.outcome is Outcome.OK and not result.failure_as_success


def _names_validation(result: CaseResult) -> bool:
    return bool(result.message and _VALIDATION_WORDS.search(result.message))


def _distinguishable(rejection: CaseResult, control: CaseResult | None) -> bool:
    """Whether a clean rejection differs from a failed control's answer in a way only input
    checking explains (see rule 3 in the module docstring)."""
    if control is None:
        return rejection.outcome is Outcome.PROTOCOL_ERROR
    if rejection.outcome is Outcome.PROTOCOL_ERROR and (
        control.outcome is not Outcome.PROTOCOL_ERROR or control.error_code != rejection.error_code
    ):
        return True
    return _names_validation(rejection) and not _names_validation(control)


def _mark(result: CaseResult, why: str) -> CaseResult:
    return judged(replace(result, inconclusive=why))


def _control_why(control: CaseResult | None) -> str:
    if control is None:
        return (
            "no valid call could be built for this tool, so a rejection cannot be told apart "
            "from a tool that fails on every input"
        )
    return (
        "the tool's valid call did not succeed, so this rejection cannot be told apart from a "
        "tool that fails on every input"
    )


def _sample(arguments: JSON) -> str:
    try:
        text = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = "{…}"
    return text if len(text) <= 120 else text[:119] + "…"


def _refused_sample_why(result: CaseResult, words: FrontEnd) -> str:
    return (
        f"the tool refused mcprobe's sample `{_sample(result.arguments)}`, which proves nothing "
        f"about the tool: give it a realistic example with `{EXAMPLES.named(words)}` or declare "
        "`examples` in the schema"
    )


def judge_controls(
    results: Sequence[CaseResult], *, isolated: bool = False, words: FrontEnd = "cli"
) -> tuple[CaseResult, ...]:
    """``results`` (one run, any order) with the inconclusive ones marked, per the rules of the
    module docstring. Results already marked keep their reason; order is kept. ``isolated``:
    the target ran in the sandbox, so what it denies is named as the sandbox's doing.
    ``words``: the front-end whose knobs the reasons name (``core/knobs.py``)."""
    controls: dict[str, CaseResult] = {}
    for result in results:
        if not result.malformed and result.outcome is not Outcome.NOT_RUN:
            # The first valid call of a tool is its control (a user's first example).
            controls.setdefault(result.tool, result)
    marked: list[CaseResult] = []
    for result in results:
        marked.append(_judge(result, controls.get(result.tool), isolated, words))
    return tuple(marked)


_BYPASS_NOTE = (
    "answered exactly like the tool's valid call, which failed for want of {need}: the malformed "
    "input reached the handler unvalidated"
)


def _same_answer(result: CaseResult, control: CaseResult) -> bool:
    """Whether a malformed case got the very answer of the failed control (the same outcome,
    error code and text, once each call's own argument strings are blanked out)."""
    if (result.outcome, result.error_code) != (control.outcome, control.error_code):
        return False
    return _blanked(result) == _blanked(control) and _blanked(result) != ""


def _blanked(result: CaseResult) -> str:
    text = result.message or ""
    values = result.arguments.values() if isinstance(result.arguments, dict) else ()
    for value in sorted((v for v in values if isinstance(v, str) and v), key=len, reverse=True):
        text = text.replace(value, "…")
    return text


def _environment_judged(
    result: CaseResult, control: CaseResult | None, isolated: bool
) -> CaseResult:
    """A result the machine caused: inconclusive, except (a) an error dressed as success (the
    missing ``isError`` is the server's choice, wherever it runs) and (b) a malformed case that
    got the failed control's very answer (the input reached the same failing call unchecked)."""
    if result.outcome is Outcome.OK:
        return result
    if (
        result.malformed
        and control is not None
        and control.environment is not None
        and control.outcome is not Outcome.OK
        and _same_answer(result, control)
    ):
        note = _BYPASS_NOTE.format(need=control.environment)
        return judged(
            replace(
                result, flags=result.flags | {"validationBypass"}, note=_joined(note, result.note)
            )
        )
    need = result.environment or ""
    return _mark(result, f"the call needs {need}, which {_where(need, isolated)}")


def _joined(first: str, rest: str | None) -> str:
    return first if not rest else f"{first}; {rest}"


def _judge(
    result: CaseResult, control: CaseResult | None, isolated: bool, words: FrontEnd
) -> CaseResult:
    if result.inconclusive is not None or result.outcome is Outcome.NOT_RUN:
        return result
    if result.environment is not None:
        return _environment_judged(result, control, isolated)
    precondition = unmet_precondition(result.message) if result.rejected else None
    if precondition is not None:
        return _mark(
            result,
            f"the tool refused the call for an unmet precondition (`{precondition}`), not for "
            f"its arguments: set up what it names first (or give `{EXAMPLES.named(words)}`) to "
            "judge it",
        )
    if not result.malformed:
        if result.source is CaseSource.SYNTHESIZED and result.rejected:
            return _mark(result, _refused_sample_why(result, words))
        return result
    if not result.rejected:
        return result  # silent accepts, -32603, timeouts and crashes stay verdicts
    if (
        control is not None
        and control.environment is not None
        and not _distinguishable(result, control)
    ):
        return _mark(result, "the tool's valid call failed for want of " + control.environment)
    if (control is None or not _control_worked(control)) and not _distinguishable(result, control):
        return _mark(result, _control_why(control))
    return result


# --------------------------------------------------------------------------- report notes


def _tools(results: Sequence[CaseResult]) -> str:
    names = list(dict.fromkeys(r.tool for r in results))
    shown = ", ".join(quoted(n) for n in names[:8])
    return shown + (f" and {len(names) - 8} more" if len(names) > 8 else "")


def _calls(n: int) -> str:
    return "1 call" if n == 1 else f"{n} calls"


def _sandbox_hint(need: str, words: FrontEnd) -> str:
    unsandboxed = (
        f"audit a disposable instance unsandboxed (`{SANDBOX.set(words, 'off')}`) to judge them."
    )
    if not need.startswith(WRITABLE_FS):
        return unsandboxed
    return (
        "name the paths the tools write in the target's command line, its environment or "
        f"`{EXAMPLES.named(words)}` (each named path gets a private writable copy), or "
        + unsandboxed
    )


def evidence_notes(fuzz: FuzzRun, *, words: FrontEnd = "cli") -> list[str]:
    """mcprobe's summary of what its run could not judge, one line per cause (tool names in
    backticks, the lint convention): the environment, refused samples, rejections without a
    working control (the protocol probes' notes are ``protocol_notes``); the knobs it names are
    in ``words``, the vocabulary of the front-end that asked."""
    notes: list[str] = []
    by_need: dict[str, list[CaseResult]] = {}
    for result in fuzz.results:
        if result.environment is not None:
            by_need.setdefault(result.environment, []).append(result)
    for need, found in by_need.items():
        if fuzz.isolated and sandbox_denied(need):
            notes.append(
                f"{_calls(len(found))} could not be judged in the sandbox: the tools need {need}, "
                f"which the sandbox denies ({_tools(found)}). They count in no score; "
                + _sandbox_hint(need, words)
            )
            continue
        notes.append(
            f"{_calls(len(found))} could not be judged here: the tools need {need}, which this "
            f"machine lacks ({_tools(found)}). They count in no score; audit where the tools "
            "have it to judge them."
        )
    rest = [r for r in fuzz.results if r.inconclusive is not None and r.environment is None]
    samples = [r for r in rest if not r.malformed]
    if samples:
        notes.append(
            f"{len(samples)} valid call(s) built by mcprobe were refused by the tool, which "
            f"proves nothing about it ({_tools(samples)}); give realistic arguments with "
            f"`{EXAMPLES.named(words)}` or declare `examples` in the schema to measure them."
        )
    uncontrolled = [r for r in rest if r.malformed]
    if uncontrolled:
        notes.append(
            f"{len(uncontrolled)} rejection(s) of malformed input are inconclusive because the "
            f"tool's own valid call did not succeed ({_tools(uncontrolled)}); they count in no "
            "score."
        )
    return notes


def protocol_notes(fuzz: FuzzRun) -> list[str]:
    """The protocol probes' low-severity notes (no points): sent once per server, they test
    its protocol layer, so the report gives them their own "Protocol" part (``protocolNotes``),
    not the per-tool notes."""
    notes: list[str] = []
    flat = fuzz.non_object_probe
    if (
        flat is not None
        and flat.outcome is Outcome.PROTOCOL_ERROR
        and is_internal_error(flat.error_code)
    ):
        notes.append(
            "Protocol (low severity, no points): `arguments: []` (not an object) was answered "
            "with -32603 — the SDK's request parsing answers it that way; a conforming client "
            "never sends it."
        )
    unknown = fuzz.unknown_tool_probe
    if unknown is not None and unknown.outcome is Outcome.TOOL_ERROR:
        notes.append(
            "Protocol (low severity, no points): a call to a tool that does not exist was "
            "answered with `isError` instead of a JSON-RPC error; MCP 2025-11-25 lists unknown "
            "tools under protocol errors."
        )
    return notes
