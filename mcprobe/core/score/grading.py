"""Whether a report may carry an overall score and grade at all (pure; #10 item 8).

The overall is the mean of the *measured* dimensions (SPEC §6). For a server that lists tools,
a run that called none of them has measured only what the server declares (Metadata, Schema
Quality, Security, and whatever the resource/prompt checks measure), never how its tools behave.
Such a mean can come out higher than the same server's fully fuzzed score, which would reward
not looking. So the lead's rule: **a run that called no tool of a server that lists tools gets no
overall and no grade** (``overall`` None, grade ``-``), with a headline reason naming the real
cause and what to pass; the dimensions are still scored and shown. A server that lists no tools
(resources or prompts only) is graded from what was measured.

"Called" means a case was sent to one of the listed tools (any outcome but ``notRun``). The two
protocol probes (the unknown tool, ``arguments: []``) do not count: they test the protocol
layer, not a tool. Entries that are not a tool at all (not an object, no string name) are not
tools a fuller run could call, so a server listing only those counts as listing none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from mcprobe.core.cases.selection import unknown_requested
from mcprobe.core.knobs import (
    EXAMPLES,
    FUZZ,
    FUZZ_DESTRUCTIVE,
    FUZZ_WRITES,
    MAX_TOOLS,
    OVERALL_TIMEOUT,
    SANDBOX,
    TOOLS,
    FrontEnd,
)
from mcprobe.core.model import JSON, Dimension, FuzzRun, Outcome, SkipCause

__all__ = [
    "NOT_GRADED_LABEL",
    "STATIC_LABEL",
    "UNMEASURED",
    "GradeStatus",
    "grade_status",
    "inconclusive_reason",
    "ungraded_reason",
]

NOT_GRADED_LABEL = "not graded"
STATIC_LABEL = "static: tools not called"
_BEHAVIOURAL = ("errorHandling", "liveness")
UNMEASURED = "Error Handling and Liveness of the tools were not measured"


def inconclusive_reason(words: FrontEnd = "cli") -> str:
    """Why a run whose every call was inconclusive is not graded, in ``words``."""
    return (
        f"every call was inconclusive (see the notes), so {UNMEASURED}; give realistic "
        f"{EXAMPLES.named(words)} or fix what the notes name"
    )


def _callable_tools(tools: Sequence[JSON]) -> int:
    return sum(
        1 for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str) and t["name"]
    )


def _tools_word(count: int) -> str:
    return "1 tool" if count == 1 else f"{count} tools"


def _skip_causes(fuzz: FuzzRun, words: FrontEnd) -> tuple[list[str], list[str]]:
    """(what stopped every tool from being called, what to do about it), from the skip causes;
    the knobs are named in ``words``."""
    reasons = Counter(s.cause for s in fuzz.coverage.skipped)
    causes: list[str] = []
    advice: list[str] = []
    writes, destructive = reasons[SkipCause.NEEDS_WRITES], reasons[SkipCause.NEEDS_DESTRUCTIVE]
    if writes or destructive:
        parts = [f"{writes} additive-write"] if writes else []
        parts += [f"{destructive} possibly destructive"] if destructive else []
        count = writes + destructive
        verb = "needs" if count == 1 else "need"
        causes.append(f"{_tools_word(count)} {verb} consent: {', '.join(parts)}")
        knobs = [FUZZ_WRITES] if writes else []
        knobs += [FUZZ_DESTRUCTIVE] if destructive else []
        flags = " or ".join(knob.set(words) for knob in knobs)
        isolated = SANDBOX.set(words, "auto")
        advice.append(
            f"pass {flags} against a disposable instance, or run the stdio target isolated "
            f"({isolated} with bubblewrap), where every tool is called"
        )
    unknown = unknown_requested(fuzz.coverage.skipped, fuzz.coverage.fuzzed_tools)
    # The filter is to blame only when it matched nothing else: a named tool that was skipped
    # for consent or a task requirement was matched correctly (its own cause says why).
    filtered = (SkipCause.NOT_REQUESTED, SkipCause.UNKNOWN_REQUESTED)
    matched_but_skipped = sum(n for cause, n in reasons.items() if cause not in filtered)
    if unknown or (reasons[SkipCause.NOT_REQUESTED] and not matched_but_skipped):
        shown = f": no listed tool is named {', '.join(unknown[:5])}" if unknown else ""
        tools = TOOLS.named(words)
        causes.append(f"the {tools} filter matched no tool that could be called{shown}")
        advice.append(f"check {tools} against the listed names")
    if reasons[SkipCause.TASK_REQUIRED]:
        count = reasons[SkipCause.TASK_REQUIRED]
        verb = "requires" if count == 1 else "require"
        causes.append(
            f"{_tools_word(count)} {verb} task-augmented calls, which mcprobe does not send"
        )
    beyond = reasons[SkipCause.BEYOND_MAX_TOOLS]
    if beyond:
        causes.append(f"{MAX_TOOLS.set(words, 0)} left out {_tools_word(beyond)}")
        advice.append(f"raise {MAX_TOOLS.named(words)}")
    if not causes:
        causes.append("every tool was skipped (see the coverage)")
    return causes, advice


def ungraded_reason(
    tools: Sequence[JSON], fuzz: FuzzRun | None, *, words: FrontEnd = "cli"
) -> str | None:
    """Why a report of a server listing ``tools`` may not be graded (no tool was called), or
    None when it may. The text follows ``not graded:`` in every rendering; the knobs it names
    are in ``words``, the vocabulary of the front-end that asked (``core/knobs.py``)."""
    if not _callable_tools(tools):
        return None
    if fuzz is not None and any(r.outcome is not Outcome.NOT_RUN for r in fuzz.results):
        return None
    advice: list[str]
    if fuzz is None:
        causes = ["the audit ran without fuzz"]
        advice = [f"run with {FUZZ.set(words)}"]
    elif not fuzz.coverage.fuzzed_tools:
        causes, advice = _skip_causes(fuzz, words)
    elif not fuzz.results:
        causes = ["no case could be built for any selected tool (see the notes)"]
        advice = [f"give each tool a usable inputSchema, or realistic {EXAMPLES.named(words)}"]
    else:
        causes = [f"every case was not run: {_first_not_run(fuzz)}"]
        timeout = OVERALL_TIMEOUT.offered(words) and fuzz.deadline_hit
        advice = (
            [f"raise {OVERALL_TIMEOUT.named(words)}"]
            if timeout
            else ["see the notes and the deaths"]
        )
    text = f"no tool was called ({'; '.join(causes)}), so {UNMEASURED}"
    return f"{text}; {'; '.join(advice)}" if advice else text


@dataclass(frozen=True)
class GradeStatus:
    """Whether a score may be shown: ``not_graded`` (why not), or ``static`` (graded on what
    was measured although no tool was called: why), or neither (a plain grade)."""

    not_graded: str | None = None
    static: str | None = None


def grade_status(
    tools: Sequence[JSON],
    fuzz: FuzzRun | None,
    dimensions: Sequence[Dimension],
    *,
    critical: bool,
    words: FrontEnd = "cli",
) -> GradeStatus:
    """SPEC §6 "Grading never hides what was found": a critical security finding is always
    graded (the F cap applies whether or not a tool was called); a server with tools none of
    which was called is graded on what was measured and marked static; "not graded" only when
    neither behavioural dimension was measured and no critical finding exists, and either no
    tool was called or every call was inconclusive (one conclusive call grades, as before)."""
    behavioural = any(d.key in _BEHAVIOURAL and d.score is not None for d in dimensions)
    unreached = ungraded_reason(tools, fuzz, words=words)
    if unreached is not None:
        if critical or behavioural:
            return GradeStatus(static=unreached)
        return GradeStatus(not_graded=unreached)
    if fuzz is not None and not behavioural and not critical and not _conclusive(fuzz):
        return GradeStatus(not_graded=inconclusive_reason(words))
    return GradeStatus()


def _conclusive(fuzz: FuzzRun) -> bool:
    """Whether any sent call was conclusive (not inconclusive, not the environment's doing)."""
    return any(
        r.outcome is not Outcome.NOT_RUN and r.inconclusive is None and r.environment is None
        for r in fuzz.results
    )


def _first_not_run(fuzz: FuzzRun) -> str:
    if fuzz.deadline_hit:
        return "the overall audit deadline was reached"
    if fuzz.stopped:
        return fuzz.stopped
    return next((r.note for r in fuzz.results if r.note), "the target could not be called")
