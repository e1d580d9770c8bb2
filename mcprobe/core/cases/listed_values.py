"""Values a server lists in its own words (issue 24 item 4): enum-like prose in a parameter's
description ("one of: users, orders", "valid ids are 7, 9") and the refusal of a valid call
("unknown table 'example'; tables: users, orders").

A placeholder such as ``"example"`` for a ``table`` is refused by every server that serves a
fixed set of tables, so the valid call proves nothing and neither do the malformed cases judged
against it. The description's values are tried first when the value is synthesized
(``values.ValueSynthesizer``); the refusal's values make one retry of the valid call
(``engine/listed_retry.py``). Either way the value is still mcprobe's choice, validated against
the schema before it is sent, so a case built on it keeps the provenance ``synthesized``: a
refusal of it stays inconclusive, and a value read wrongly costs only a retry.

Pure: text in, candidate strings out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mcprobe.core.schema.dialect import is_valid

__all__ = ["listed_values", "retry_arguments"]

_MAX_VALUES = 10
_MAX_TEXT = 4000  # characters of a description or refusal read
_ITEM = r"""(?:'[^'\n]{1,64}'|"[^"\n]{1,64}"|`[^`\n]{1,64}`|[\w][\w.\-/@]{0,63})"""
_SEP = r"(?:\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+|\s*\|\s*|\s*/\s*)"
_LIST = rf"(?P<list>{_ITEM}(?:{_SEP}{_ITEM})*)"
# The phrases that introduce a list of accepted values, in descriptions and refusals alike.
_LEAD = (
    r"(?:must\s+be\s+)?(?:one|any)\s+of(?:\s+the\s+following)?"
    r"|(?:valid|allowed|accepted|supported|available|known|possible|existing)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:are|is|include|includes)"
    r"|(?:valid|allowed|accepted|supported|available|known|possible|existing)\s+[\w-]+s"
    r"|(?:options|choices|values)(?:\s+are)?"
    r"|(?:choose|pick|select)\s+(?:from|one\s+of)"
    r"|expected"
)
_INTRO = re.compile(rf"\b(?:{_LEAD})\s*[:=]?\s*[(\[]?\s*{_LIST}", re.IGNORECASE)
# A refusal's own list: "unknown table 'x'; tables: users, orders" (a plural noun, a colon).
_NOUN_LIST = re.compile(rf"\b[a-z][\w-]*s\s*:\s*{_LIST}", re.IGNORECASE)
_ITEMS = re.compile(_ITEM)
_WORDS = frozenset({"or", "and", "the", "a", "an", "etc", "e.g", "i.e", "default", "none"})


def _items(text: str) -> list[str]:
    found = []
    for raw in _ITEMS.findall(text):
        item = raw[1:-1] if raw[:1] in "'\"`" else raw.rstrip(".-/")
        if item and item.lower() not in _WORDS:
            found.append(item)
    return found


def listed_values(text: str, *, refusal: bool = False) -> tuple[str, ...]:
    """The values ``text`` lists as accepted, in order, once: after "one of", "valid … are",
    "available …s:", "options:", "expected" …; a list needs two values or more (a lone word
    after "expected" is prose). ``refusal``: ``text`` is an error message, where a plural noun
    and a colon ("tables: users, orders") introduces a list too."""
    text = text[:_MAX_TEXT]
    patterns = (_INTRO, _NOUN_LIST) if refusal else (_INTRO,)
    found: list[str] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            items = _items(match.group("list"))
            if len(items) >= 2:
                found += items
    return tuple(dict.fromkeys(found))[:_MAX_VALUES]


def retry_arguments(
    tool: Mapping[str, Any], arguments: Mapping[str, Any], refusal: str
) -> tuple[dict[str, Any], str, str] | None:
    """``(arguments with one string parameter set to a value the refusal lists, that parameter,
    that value)``, or None. The parameter is the string argument whose value the refusal
    quotes (or the only string argument); the value is the first listed one, not the value
    sent, that keeps the arguments valid against the tool's input schema."""
    values = listed_values(refusal, refusal=True)
    schema = tool.get("inputSchema")
    if not values or not isinstance(schema, Mapping):
        return None
    strings = [k for k, v in arguments.items() if isinstance(v, str)]
    named = [k for k in strings if arguments[k] and arguments[k] in refusal]
    params = named or (strings if len(strings) == 1 else [])
    for param in params[:1]:
        for value in values:
            if value == arguments[param]:
                continue
            candidate = {**arguments, param: value}
            if is_valid(schema, candidate):
                return candidate, param, value
    return None
