"""The user's examples (``--examples FILE``, ``examples=``, the ``examples`` tool input): checked
against the listed tools before anything is called.

Shape: tool name → one argument object, or a list of them. Every example must validate against
its tool's ``inputSchema``; an example for a tool the server does not list, or one that does not
validate, is a usage error naming the tool and the schema error — a typo must never turn a
realistic example into a silently synthesized one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mcprobe.core.cases.generate import example_errors
from mcprobe.core.errors import UsageError
from mcprobe.core.model import JSON

__all__ = ["checked_examples", "normalise_examples"]


def normalise_examples(raw: JSON, *, source: str = "examples") -> dict[str, tuple[JSON, ...]]:
    """``raw`` as tool name → tuple of argument objects; a usage error when the shape is wrong."""
    if not isinstance(raw, Mapping):
        raise UsageError(f"{source}: expected a JSON object mapping tool names to examples")
    found: dict[str, tuple[JSON, ...]] = {}
    for name, value in raw.items():
        items = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        if not items:
            raise UsageError(f"{source}: tool {name!r} has an empty list of examples")
        bad = [i for i, item in enumerate(items, start=1) if not isinstance(item, Mapping)]
        if bad:
            raise UsageError(
                f"{source}: tool {name!r}: example {bad[0]} is not a JSON object of arguments"
            )
        found[str(name)] = tuple(dict(item) for item in items)
    return found


def checked_examples(
    tools: Sequence[JSON], examples: Mapping[str, Sequence[JSON]], *, source: str = "examples"
) -> dict[str, tuple[JSON, ...]]:
    """``examples`` after checking them against the listed ``tools``; raises ``UsageError`` for
    an unknown tool name or an example its tool's schema rejects."""
    by_name = {str(t.get("name")): t for t in tools if isinstance(t, dict)}
    unknown = [name for name in examples if name not in by_name]
    if unknown:
        listed = ", ".join(sorted(by_name)) or "none"
        raise UsageError(
            f"{source}: the server lists no tool named {', '.join(map(repr, unknown))} "
            f"(tools: {listed})"
        )
    checked: dict[str, tuple[JSON, ...]] = {}
    for name, items in examples.items():
        problems = example_errors(by_name[name], list(items))
        if problems:
            raise UsageError(f"{source}: tool {name!r}: {problems[0]}")
        checked[name] = tuple(items)
    return checked
