"""Which of a target's tools may be fuzzed (SPEC §5 Safety, ``maxTools``, the ``tools`` filter).

Pure and deterministic: tools are considered in listing order and every tool that is not
selected is named with the reason.

By the MCP specification a tool without annotations may be destructive (``readOnlyHint``
defaults to false, ``destructiveHint`` to true). So by default only tools that declare
``readOnlyHint: true`` or ``destructiveHint: false`` (JSON booleans, nothing else) are fuzzed;
``fuzz_destructive=True`` is the caller's explicit consent to call the others. Naming a tool in
``include`` narrows the selection, it is not consent.

Rules, in the order they are applied to each tool:

1. an entry that is not an object with a non-empty string ``name`` is skipped (named
   ``tools[i]``, its position in the listing);
2. a second definition of a name already seen is skipped (``tools/call`` addresses tools by
   name, so it could not be called on its own);
3. with ``include``, a tool not named there is skipped;
4. a tool whose definition says ``execution: {taskSupport: "required"}`` is skipped, consent or
   not: MCP 2025-11-25 lets such a tool refuse a plain ``tools/call`` (it must be called as a
   task), and mcprobe sends plain calls, so every case would measure the refusal, not the tool;
5. without consent, a tool lacking a safety hint is skipped;
6. the remaining tools are selected in listing order up to ``max_tools``; the rest are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mcprobe.core.model import JSON, SkippedTool

__all__ = [
    "DEFAULT_MAX_TOOLS",
    "Selection",
    "requires_task",
    "safety_problem",
    "select_tools",
    "unknown_tool_name",
]

DEFAULT_MAX_TOOLS = 50
UNKNOWN_TOOL_BASE = "mcprobe_nonexistent_tool"

_CONSENT = "pass fuzzDestructive: true (CLI --fuzz-destructive) to fuzz it anyway"
TASK_REQUIRED = (
    'requires task-augmented calls (execution.taskSupport: "required", MCP 2025-11-25 tasks); '
    "mcprobe sends plain tools/call requests, which such a tool may refuse, so it is not fuzzed"
)


@dataclass(frozen=True)
class Selection:
    """The tools to fuzz (raw definitions, listing order), the ones skipped with a reason, and
    the names in ``include`` that match no listed tool."""

    selected: tuple[JSON, ...]
    skipped: tuple[SkippedTool, ...]
    unknown_included: tuple[str, ...]

    @property
    def selected_names(self) -> tuple[str, ...]:
        return tuple(str(tool["name"]) for tool in self.selected)


def requires_task(tool: dict[str, JSON]) -> bool:
    """Whether the definition declares ``execution.taskSupport`` exactly ``"required"``."""
    execution = tool.get("execution")
    return isinstance(execution, dict) and execution.get("taskSupport") == "required"


def safety_problem(tool: dict[str, JSON]) -> str | None:
    """Why ``tool`` may not be fuzzed without consent, or None when it declares itself safe."""
    annotations = tool.get("annotations")
    if annotations is None:
        return (
            "no annotations: by MCP default a tool may be destructive "
            f"(needs readOnlyHint: true or destructiveHint: false); {_CONSENT}"
        )
    if not isinstance(annotations, dict):
        return f"`annotations` is not an object, so no safety hint can be read; {_CONSENT}"
    if annotations.get("readOnlyHint") is True or annotations.get("destructiveHint") is False:
        return None
    read_only = annotations.get("readOnlyHint")
    destructive = annotations.get("destructiveHint")
    if destructive is True:
        seen = "declares destructiveHint: true"
    elif read_only is False:
        seen = "declares readOnlyHint: false and no destructiveHint: false"
    elif read_only is not None or destructive is not None:
        seen = "has non-boolean readOnlyHint/destructiveHint values"
    else:
        seen = "declares neither readOnlyHint: true nor destructiveHint: false"
    return f"{seen}, so it may be destructive; {_CONSENT}"


def select_tools(
    tools: Sequence[JSON],
    *,
    max_tools: int = DEFAULT_MAX_TOOLS,
    fuzz_destructive: bool = False,
    include: Sequence[str] | None = None,
) -> Selection:
    """Choose the tools to fuzz, in listing order, and say why every other tool was skipped.

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
    skipped: list[SkippedTool] = []
    seen: set[str] = set()
    for index, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str) or not name:
            what = "not an object" if not isinstance(tool, dict) else "it has no string name"
            skipped.append(SkippedTool(f"tools[{index}]", f"malformed tool entry: {what}"))
            continue
        if name in seen:
            skipped.append(SkippedTool(name, "duplicate name: only the first definition is fuzzed"))
            continue
        seen.add(name)
        if wanted_set is not None and name not in wanted_set:
            skipped.append(SkippedTool(name, "not in the requested tools"))
            continue
        if requires_task(tool):
            skipped.append(SkippedTool(name, TASK_REQUIRED))
            continue
        if not fuzz_destructive:
            problem = safety_problem(tool)
            if problem is not None:
                skipped.append(SkippedTool(name, problem))
                continue
        if len(selected) >= max_tools:
            skipped.append(SkippedTool(name, f"beyond maxTools={max_tools}"))
            continue
        selected.append(tool)

    unknown: list[str] = []
    for name in wanted or ():
        if name not in seen and name not in unknown:
            unknown.append(name)
    return Selection(tuple(selected), tuple(skipped), tuple(unknown))


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
