"""Values to try first for parameters with well-known names (the ``valid`` case, SPEC §5).

A schema that only says ``{"type": "string"}`` for ``timezone`` gets ``"example"`` from the
generic synthesis, which a real time server rightly rejects; the report would then blame
Liveness for what is really a schema that does not say what it accepts. So, after the schema's
own words (``default``, ``const``, ``examples``, ``enum``) and before the generic synthesis, the
synthesizer tries the values in ``NAME_HINTS`` for the parameter's name. Every candidate is still
validated against the parameter's schema; one that does not validate is skipped. The schema's
own ``examples`` always win, so declaring them is the real fix the report recommends.

The table is small and deliberately boring: one neutral, widely accepted value per concept, no
guessing from descriptions. A name matches when, lower-cased with ``_``, ``-``, spaces and
camelCase boundaries taken as word breaks, the whole name, its last word or its last two words
joined equal a key (``source_timezone``, ``targetTimeZone`` and ``tz`` all match). Pure and
deterministic.
"""

from __future__ import annotations

import re

from mcprobe.core.model import JSON

__all__ = ["NAME_HINTS", "hinted_values", "name_words"]

_URL = "https://example.com/"
NAME_HINTS: dict[str, tuple[JSON, ...]] = {
    # time
    "timezone": ("UTC",),
    "tz": ("UTC",),
    "time": ("12:00",),
    "date": ("2024-01-15",),
    "datetime": ("2024-01-15T12:00:00Z",),
    "timestamp": ("2024-01-15T12:00:00Z",),
    # the web
    "url": (_URL,),
    "uri": (_URL,),
    "link": (_URL,),
    "href": (_URL,),
    "email": ("user@example.com",),
    # files: a relative name, never an absolute path
    "path": ("example.txt",),
    "file": ("example.txt",),
    "filename": ("example.txt",),
    "filepath": ("example.txt",),
    # language
    "language": ("en",),
    "lang": ("en",),
    "locale": ("en",),
    # search
    "query": ("test",),
    "q": ("test",),
    "search": ("test",),
    # places and money
    "country": ("US",),
    "currency": ("USD",),
}

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def name_words(name: str) -> list[str]:
    """A parameter's (or tool's) name as lower-case words: ``_``, ``-``, spaces and camelCase
    boundaries are word breaks (``targetTimeZone`` -> ``["target", "time", "zone"]``)."""
    return [w.lower() for w in _WORD.findall(name[:128])]


def _keys(name: str) -> list[str]:
    """The lookup keys for a parameter name: whole, last two words, last word."""
    words = name_words(name)
    if not words:
        return []
    keys = ["".join(words)]
    if len(words) >= 2:
        keys.append("".join(words[-2:]))
    keys.append(words[-1])
    return list(dict.fromkeys(keys))


def hinted_values(name: str | None) -> tuple[JSON, ...]:
    """The candidate values for a parameter called ``name`` (empty when none is known).
    The caller validates each against the parameter's schema before using it."""
    if not name or len(name) > 128:
        return ()
    for key in _keys(name):
        if key in NAME_HINTS:
            return NAME_HINTS[key]
    return ()
