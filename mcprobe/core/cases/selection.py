"""Which of a target's tools may be fuzzed (SPEC §5 Safety, ``maxTools``, the ``tools`` filter).

Pure and deterministic: tools are considered in listing order and every tool that is not
selected is named with the reason.

**Consent levels.** By the MCP specification a tool without annotations may be destructive
(``readOnlyHint`` defaults to false, ``destructiveHint`` to true), and ``destructiveHint: false``
means "additive", not "read-only": such a tool still creates files, records, saved searches...
whose side effects break later calls of the same run and of later runs. So each tool has one
of three levels (``consent_level``), read from JSON booleans only:

- ``read-only``: ``readOnlyHint: true``: called by default;
- ``writes``: ``destructiveHint: false`` without ``readOnlyHint: true`` (additive writes): needs
  ``fuzz_writes`` (CLI ``--fuzz-writes``, tool input ``fuzzWrites: true``);
- ``destructive``: everything else: needs ``fuzz_destructive`` (``--fuzz-destructive``,
  ``fuzzDestructive: true``), which implies writes.

The reasons are written in the words of the front-end that asked (``words``, ``core/knobs.py``)
and carry their ``SkipCause``, which is what code compares.

**Isolation first** (SPEC §5 Safety, ``core/isolation.py``): when the target runs isolated (a
stdio target in the sandbox), its effects stay in private copies inside a namespace with no
network, so every tool is called whatever its level (``isolated=True``). The consent levels
apply only without isolation (``--sandbox off``, no sandbox possible, an HTTP target).
``skip`` names tools the user does not want called at all (``--skip-tools``, tool input
``skipTools``), isolated or not. Every selected tool carries why it was called
(``Selection.why_called``), every other tool why not.

The skip reason is the same sentence for every tool of one level (and front-end), so the report
can name each level's skipped tools once, grouped. Naming a tool in ``include`` narrows the
selection, it is not consent.

Rules, in the order they are applied to each tool:

1. an entry that is not an object with a non-empty string ``name`` is skipped (named
   ``tools[i]``, its position in the listing);
2. a second definition of a name already seen is skipped (``tools/call`` addresses tools by
   name, so it could not be called on its own);
3. with ``include``, a tool not named there is skipped;
4. a tool whose definition says ``execution: {taskSupport: "required"}`` is skipped, consent or
   not: MCP 2025-11-25 lets such a tool refuse a plain ``tools/call`` (it must be called as a
   task), and mcprobe sends plain calls, so every case would measure the refusal, not the tool;
5. a tool named in ``skip`` is skipped (the user's choice);
   without isolation, a tool above the consented level is skipped with its level's reason;
6. the remaining tools are selected in listing order up to ``max_tools``; the rest are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from mcprobe.core.knobs import FUZZ_DESTRUCTIVE, FUZZ_WRITES, MAX_TOOLS, SKIP_TOOLS, FrontEnd
from mcprobe.core.model import JSON, SkipCause, SkippedTool

__all__ = [
    "DEFAULT_MAX_TOOLS",
    "NOT_REQUESTED",
    "TASK_REQUIRED",
    "UNKNOWN_REQUESTED",
    "ConsentLevel",
    "Selection",
    "beyond_max_tools",
    "called_with_consent",
    "consent_level",
    "consent_problem",
    "needs_destructive",
    "needs_writes",
    "real_values_allowed",
    "requires_task",
    "select_tools",
    "skipped_by_user",
    "unknown_requested",
    "unknown_tool_name",
]

DEFAULT_MAX_TOOLS = 50
UNKNOWN_TOOL_BASE = "mcprobe_nonexistent_tool"

NOT_REQUESTED = "not in the requested tools"
CALLED_ISOLATED = "isolated: every tool is called inside the sandbox (its effects stay there)"
CALLED_READ_ONLY = "read-only (readOnlyHint: true)"
UNKNOWN_REQUESTED = "requested, but the server lists no tool of that name"
TASK_REQUIRED = (
    'requires task-augmented calls (execution.taskSupport: "required", MCP 2025-11-25 tasks); '
    "mcprobe sends plain tools/call requests, which such a tool may refuse, so it is not fuzzed"
)


def needs_writes(words: FrontEnd = "cli") -> str:
    """The skip reason of an additive-write tool without consent, in ``words``."""
    return (
        "additive writes (destructiveHint: false, not readOnlyHint: true); pass "
        f"{FUZZ_WRITES.set(words)} to call it"
    )


def needs_destructive(words: FrontEnd = "cli") -> str:
    """The skip reason of a possibly destructive tool without consent, in ``words``."""
    return (
        "may be destructive (neither readOnlyHint: true nor destructiveHint: false); pass "
        f"{FUZZ_DESTRUCTIVE.set(words)} to call it"
    )


def skipped_by_user(words: FrontEnd = "cli") -> str:
    """The skip reason of a tool the user named in ``skip``, in ``words``."""
    return f"named in {SKIP_TOOLS.named(words)}"


def beyond_max_tools(max_tools: int, words: FrontEnd = "cli") -> str:
    """The skip reason of a tool past the ``max_tools`` limit, in ``words``."""
    return f"beyond {MAX_TOOLS.set(words, max_tools)}"


def called_with_consent(level: ConsentLevel, words: FrontEnd = "cli") -> str:
    """Why a writes or destructive tool was called without isolation, in ``words``."""
    if level is ConsentLevel.WRITES:
        return f"additive writes (destructiveHint: false), with {FUZZ_WRITES.set(words)} consent"
    return f"may be destructive, with {FUZZ_DESTRUCTIVE.set(words)} consent"


@dataclass(frozen=True)
class Selection:
    """The tools to fuzz (raw definitions, listing order), the ones skipped with a reason, and
    the names in ``include`` that match no listed tool."""

    selected: tuple[JSON, ...]
    skipped: tuple[SkippedTool, ...]
    unknown_included: tuple[str, ...]
    why_called: tuple[str, ...] = ()  # one reason per selected tool (same order)

    @property
    def selected_names(self) -> tuple[str, ...]:
        return tuple(str(tool["name"]) for tool in self.selected)


def requires_task(tool: dict[str, JSON]) -> bool:
    """Whether the definition declares ``execution.taskSupport`` exactly ``"required"``."""
    execution = tool.get("execution")
    return isinstance(execution, dict) and execution.get("taskSupport") == "required"


class ConsentLevel(Enum):
    """What calling a tool may do, by its annotations; each level needs its own consent."""

    READ_ONLY = "read-only"
    WRITES = "writes"
    DESTRUCTIVE = "destructive"


def consent_level(tool: dict[str, JSON]) -> ConsentLevel:
    """The tool's level: ``readOnlyHint: true`` → read-only; else ``destructiveHint: false`` →
    writes; anything else (no annotations, non-boolean hints, ``destructiveHint: true``) →
    destructive. ``destructiveHint`` is meaningful only when the tool is not read-only (MCP)."""
    annotations = tool.get("annotations")
    if not isinstance(annotations, dict):
        return ConsentLevel.DESTRUCTIVE
    if annotations.get("readOnlyHint") is True:
        return ConsentLevel.READ_ONLY
    if annotations.get("destructiveHint") is False:
        return ConsentLevel.WRITES
    return ConsentLevel.DESTRUCTIVE


def real_values_allowed(tool: JSON, *, isolated: bool) -> bool:
    """Whether a valid call of ``tool`` may be built on values that name the user's real data
    (the paths the server was started with, values its refusals or other tools' answers list):
    always inside the sandbox (it sees private copies), otherwise only for a tool that cannot
    destroy (``consent_level`` not destructive). Consent to call a destructive tool is consent to
    mcprobe's placeholders, never to ``delete_file`` on a file the user serves."""
    if isolated:
        return True
    return isinstance(tool, dict) and consent_level(tool) is not ConsentLevel.DESTRUCTIVE


def consent_problem(
    tool: dict[str, JSON],
    *,
    fuzz_writes: bool = False,
    fuzz_destructive: bool = False,
    words: FrontEnd = "cli",
) -> SkippedTool | None:
    """Why ``tool`` may not be called with the given consent (its level's cause and sentence,
    in ``words``), or None. ``tool`` has a string name (``select_tools`` checked it)."""
    level = consent_level(tool)
    if level is ConsentLevel.READ_ONLY or fuzz_destructive:
        return None
    name = str(tool.get("name"))
    if level is ConsentLevel.WRITES:
        if fuzz_writes:
            return None
        return SkippedTool(name, needs_writes(words), SkipCause.NEEDS_WRITES)
    return SkippedTool(name, needs_destructive(words), SkipCause.NEEDS_DESTRUCTIVE)


def called_because(
    tool: dict[str, JSON],
    *,
    isolated: bool,
    fuzz_writes: bool,
    fuzz_destructive: bool,
    words: FrontEnd = "cli",
) -> str:
    """Why a selected tool is called: the isolation, or the consent its level needed."""
    if isolated:
        return CALLED_ISOLATED
    level = consent_level(tool)
    if level is ConsentLevel.READ_ONLY:
        return CALLED_READ_ONLY
    return called_with_consent(level, words)


def select_tools(
    tools: Sequence[JSON],
    *,
    max_tools: int = DEFAULT_MAX_TOOLS,
    fuzz_writes: bool = False,
    fuzz_destructive: bool = False,
    include: Sequence[str] | None = None,
    isolated: bool = False,
    skip: Sequence[str] = (),
    words: FrontEnd = "cli",
) -> Selection:
    """Choose the tools to fuzz, in listing order, and say why every other tool was skipped
    (each reason in ``words``, the vocabulary of the front-end that asked, with its cause).

    Raises ``ValueError`` for a negative ``max_tools`` (a caller bug, not target behaviour).
    """
    if max_tools < 0:
        raise ValueError(f"max_tools must be >= 0, got {max_tools}")
    wanted: tuple[str, ...] | None
    if include is None:
        wanted = None
    elif isinstance(include, str):
        wanted = (include,)
    else:
        wanted = tuple(include)
    wanted_set = set(wanted) if wanted is not None else None

    selected: list[JSON] = []
    why: list[str] = []
    skip_set = set(skip)
    skipped: list[SkippedTool] = []
    seen: set[str] = set()
    for index, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str) or not name:
            what = "not an object" if not isinstance(tool, dict) else "it has no string name"
            malformed = f"malformed tool entry: {what}"
            skipped.append(SkippedTool(f"tools[{index}]", malformed, SkipCause.MALFORMED))
            continue
        if name in seen:
            duplicate = "duplicate name: only the first definition is fuzzed"
            skipped.append(SkippedTool(name, duplicate, SkipCause.DUPLICATE))
            continue
        seen.add(name)
        if wanted_set is not None and name not in wanted_set:
            skipped.append(SkippedTool(name, NOT_REQUESTED, SkipCause.NOT_REQUESTED))
            continue
        if requires_task(tool):
            skipped.append(SkippedTool(name, TASK_REQUIRED, SkipCause.TASK_REQUIRED))
            continue
        if name in skip_set:
            skipped.append(SkippedTool(name, skipped_by_user(words), SkipCause.SKIPPED_BY_USER))
            continue
        consent = {"fuzz_writes": fuzz_writes, "fuzz_destructive": fuzz_destructive}
        problem = None if isolated else consent_problem(tool, **consent, words=words)
        if problem is not None:
            skipped.append(problem)
            continue
        if len(selected) >= max_tools:
            beyond = beyond_max_tools(max_tools, words)
            skipped.append(SkippedTool(name, beyond, SkipCause.BEYOND_MAX_TOOLS))
            continue
        selected.append(tool)
        why.append(called_because(tool, isolated=isolated, **consent, words=words))

    unknown: list[str] = []
    for name in wanted or ():
        if name not in seen and name not in unknown:
            unknown.append(name)
    return Selection(tuple(selected), tuple(skipped), tuple(unknown), tuple(why))


def unknown_requested(coverage_skipped: Iterable[SkippedTool], fuzzed: Iterable[str]) -> list[str]:
    """Each requested name the server does not list, with the nearest listed one:
    ``'ech' (did you mean 'echo'?)``, so a typo in ``--tools`` is named, not hidden in a list
    of every other tool skipped as not requested."""
    import difflib

    skipped = list(coverage_skipped)
    listed = sorted({*fuzzed, *(s.tool for s in skipped if s.reason != UNKNOWN_REQUESTED)})
    named = []
    for s in skipped:
        if s.reason != UNKNOWN_REQUESTED:
            continue
        close = difflib.get_close_matches(s.tool, listed, n=1, cutoff=0.6)
        named.append(f"{s.tool!r} (did you mean {close[0]!r}?)" if close else repr(s.tool))
    return named


def unknown_tool_name(existing: Iterable[str]) -> str:
    """A deterministic tool name that is not among ``existing``:
    ``mcprobe_nonexistent_tool``, else the first free ``mcprobe_nonexistent_tool_<n>``, n ≥ 2."""
    taken = set(existing)
    if UNKNOWN_TOOL_BASE not in taken:
        return UNKNOWN_TOOL_BASE
    n = 2
    while f"{UNKNOWN_TOOL_BASE}_{n}" in taken:
        n += 1
    return f"{UNKNOWN_TOOL_BASE}_{n}"
