"""Two-space indented, ASCII-only JSON text: ``json.dumps(value, indent=2, ensure_ascii=True)``,
byte for byte, at the speed of pydantic-core's serialiser.

With an ``indent`` Python's ``json`` leaves its C encoder for a pure-Python one (one generator
step per value): 1.4 s of CPU for the 31 MB JSON report of 1,000 tools, 0.3 s for its SARIF log.
pydantic-core writes the same layout (``",\\n"`` between items, ``": "`` after keys, ``[]`` and
``{}`` for empty containers, the same ``\\uXXXX`` escapes, NaN/Infinity as Python writes them
with ``inf_nan_mode="constants"``), with two differences, both repaired here:

- DEL (U+007F) is printed raw where ``json`` escapes it (``\\u007f``); it can only stand inside
  a string, so a plain replacement is exact;
- floats of magnitude 1e-9 to 1e-4 are spelled otherwise (``1e-7`` or ``0.0000123`` where
  Python's ``repr`` writes ``1e-07``, ``1.23e-05``): every such spelling holds ``0.0000`` or
  ``e-5`` … ``e-9``, so only the lines holding one of those are looked at, and a line that is
  one number value (after an optional key) gets the number's ``repr`` (the float is the same:
  both spellings round-trip).

``value`` must be plain JSON data with string keys (what ``model_dump(mode="json")`` returns):
for anything else (a tuple key, a None key, bytes...) the two serialisers disagree, so callers
that cannot promise it check first (``plain_json``) and fall back to ``json.dumps``. A string
the serialiser refuses (a lone surrogate) falls back too. ``tests/report/test_json_text.py``
compares both on floats of every magnitude and on awkward text. Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ConfigDict, TypeAdapter

__all__ = ["dumps_indented", "plain_json"]

_SERIALISER: TypeAdapter[Any] = TypeAdapter(Any, config=ConfigDict(ser_json_inf_nan="constants"))
_SMALL_EXPONENT = re.compile("e-[5-9]")
"""With ``0.0000``: what every float spelling that differs from ``repr`` holds (one regex scan
of 31 MB costs a tenth of five ``find`` scans)."""
_NUMBER_LINE = re.compile(r' *(?:"(?:[^"\\\n]|\\.)*": )?(-?\d[\d.e+-]*),?')
"""One line of indented JSON that is a number value: indentation, an optional key, the number
(group 1), an optional comma. Strings hold no raw newline, so a line is never inside one."""


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=True)`` of plain JSON data (string keys)."""
    try:
        raw = _SERIALISER.dump_json(value, indent=2, ensure_ascii=True)
    except ValueError:  # PydanticSerializationError (a string it cannot write) is one
        return json.dumps(value, indent=2, ensure_ascii=True)
    return _python_floats(raw.decode("ascii").replace("\x7f", "\\u007f"))


def _python_floats(text: str) -> str:
    """``text`` with every number line whose float ``repr`` spells otherwise respelled."""
    hits = [match.start() for match in _SMALL_EXPONENT.finditer(text)]
    at = text.find("0.0000")
    while at != -1:
        hits.append(at)
        at = text.find("0.0000", at + 1)
    starts = {text.rfind("\n", 0, hit) + 1 for hit in hits}
    if not starts:
        return text
    parts: list[str] = []
    done = 0
    for start in sorted(starts):
        end = text.find("\n", start)
        match = _NUMBER_LINE.fullmatch(text, start, len(text) if end == -1 else end)
        if match is None or not any(c in match[1] for c in ".e"):
            continue  # not a number line, or an integer (spelled alike)
        parts += [text[done : match.start(1)], repr(float(match[1]))]
        done = match.end(1)
    parts.append(text[done:])
    return "".join(parts)


def plain_json(value: Any) -> bool:
    """Whether ``value`` is plain JSON data: dicts with string keys, lists, strings, integers,
    floats, booleans, None (tuples count as lists: both serialisers write them so). Recursive
    without a limit of its own: callers pass report values, clipped to ``MAX_JSON_DEPTH``."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return True
    if kind is dict:
        return all(type(key) is str and plain_json(item) for key, item in value.items())
    if kind is list or kind is tuple:
        return all(plain_json(item) for item in value)
    return False
