"""Target text inside mcprobe's own sentences (reasons, notes, critical lines, check messages).

Pure. The convention of every sentence the core writes: a string the target sent is wrapped in
single backticks, so the report layer (``report.escape.md_prose``) shows it as a quote (inline
code) and never as mcprobe's words; everything outside backticks is mcprobe's. A backtick inside
the target text would end the quote early and let the rest read as prose, so it becomes ``'``
(as ``report/deaths.py`` does); the JSON report keeps the exact text in its own fields (tool
names, messages, arguments).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["quoted", "quoted_list"]


def quoted(text: str) -> str:
    """``text`` as a quote in an mcprobe sentence: ```text``` (its backticks as ``'``)."""
    return "`" + text.replace("`", "'") + "`"


def quoted_list(texts: Iterable[str]) -> list[str]:
    return [quoted(text) for text in texts]
