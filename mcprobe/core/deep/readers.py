"""Which read-only tools re-read after a writing tool's ok edge (read-after-write, issue 25).

A write corrupts what its own kind of read shows: ``save_note`` → ``read_notes``, ``add_row`` →
``query_rows``. The readers whose names share a noun with the writer's come first (nouns compared
singular, the usual verbs left out), then the others in listing order, cut at the limit. Pure and
linear in the number of readers.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcprobe.core.cases.param_hints import name_words

__all__ = ["related_readers"]

_VERBS = frozenset(
    [
        "get",
        "set",
        "read",
        "write",
        "save",
        "load",
        "list",
        "create",
        "update",
        "delete",
        "remove",
        "add",
        "put",
        "post",
        "fetch",
        "query",
        "find",
        "search",
        "show",
        "describe",
        "insert",
        "append",
        "edit",
        "modify",
        "make",
        "new",
        "do",
        "run",
        "call",
        "open",
        "close",
        "all",
        "by",
        "of",
        "to",
        "from",
        "for",
        "the",
        "a",
        "an",
    ]
)


def _nouns(name: str) -> frozenset[str]:
    words = (w for w in name_words(name) if w not in _VERBS)
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words)


def related_readers(writer: str, readers: Sequence[str], limit: int) -> list[str]:
    """Up to ``limit`` of ``readers`` (tool names, in listing order): those sharing a noun with
    ``writer`` first, most shared first, then the rest in listing order."""
    mine = _nouns(writer)
    ranked = sorted(
        range(len(readers)),
        key=lambda i: (-len(mine & _nouns(readers[i])), i),
    )
    return [readers[i] for i in ranked[:limit]]
