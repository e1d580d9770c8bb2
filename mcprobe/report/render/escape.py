"""Make untrusted text safe to place in a Markdown report.

Everything a target sends (names, descriptions, instructions, error texts, echoed arguments) may
be hostile: it may try to break a table, inject Markdown or HTML, smuggle control, bidi or
zero-width characters, or pose as mcprobe's own words to an LLM host that reads the report.

Two shapes of output, both single-line by construction (no target string can start a line):

- **Quoted target text** goes in an inline code span (``md_inline``, ``md_cell``, ``md_code``):
  CommonMark interprets nothing inside a code span (no emphasis, links, images, HTML, entities),
  and the fence is one backtick longer than any backtick run in the text, so the text cannot
  close it early. In a table cell, pipes are placed *between* code spans as ``\\|`` because GFM
  splits cells before it parses code spans.
- **mcprobe's own sentences that embed target text** (finding messages, reasons, hints, notes)
  go through ``md_text``: every character that can open an inline construct mid-line is
  backslash-escaped, ``<`` and any ``&`` that would start an entity are written as entities, so
  the text renders as plain prose and nothing in it is markup. It never starts a line.

Before either, ``clean_text`` replaces control, format (bidi overrides, zero-width joiners, BOM)
and surrogate characters with a visible ``⟨U+XXXX⟩`` marker, folds every line break and run of
whitespace into one space, and truncates to a limit (the caller adds the ellipsis outside any
code span, so a target cannot fake or hide truncation).
"""

from __future__ import annotations

import contextlib
import json
import re
import unicodedata
from collections import OrderedDict
from collections.abc import Callable

from mcprobe.core.model import JSON

ELLIPSIS = "…"

_LINE_BREAKS = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x85\u2028\u2029")
# Categories that are never shown raw: Cc control, Cf format (bidi, zero-width, BOM, soft
# hyphen, ...), Cs lone surrogates (valid in JSON, unencodable in UTF-8), Co private use,
# Cn unassigned (may become format characters in a later Unicode version).
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_WHITESPACE_RUN = re.compile(r"\s+")
_NOT_PLAIN_ASCII = re.compile(r"[^\x20-\x7e]")  # the only characters that need a look
_BACKTICK_RUN = re.compile(r"`+")
# What can open an inline construct mid-line: escapes, code, emphasis, strikethrough, links and
# images, GFM table pipes, math. Line-start constructs (#, -, +, 1., >, =) need no escape because
# md_text output never starts a line.
_INLINE_PUNCTUATION = re.compile(r"[\\`*_~\[\]!|$]")
# ``<`` opens raw HTML and autolinks; ``&`` only matters where it would start an entity.
_ENTITY_START = re.compile(r"&(?=#?[A-Za-z0-9]+;)")


def _visible(char: str) -> str:
    if char in _LINE_BREAKS:
        return " "
    if unicodedata.category(char) in _HIDDEN_CATEGORIES:
        return f"⟨U+{ord(char):04X}⟩"
    return char


def _visible_match(match: re.Match[str]) -> str:
    return _visible(match.group())


# Printable ASCII words separated by single spaces: already exactly what ``clean_text`` makes.
_CLEAN_LINE = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*")


def clean_text(text: str, limit: int | None = None) -> tuple[str, bool]:
    """One line of visible text: hidden characters marked, whitespace folded, stripped, and cut
    to ``limit`` characters. Returns the text and whether it was truncated."""
    short = limit is None or len(text) <= max(4096, 2 * limit)  # bounded work, as in ``_fold``
    if short and _CLEAN_LINE.fullmatch(text):  # the common case: nothing to mark, fold or strip
        if limit is not None and len(text) > limit:
            return cut_words(text, limit), True
        return text, False
    return _fold(text, limit)


# How far back from the limit a cut may move to reach a word boundary: beyond that the text is
# one long token (a URL, a hash) and is cut at the limit.
_WORD_REACH = 0.3
_MARKER_OPEN = "⟨U+"


def cut_words(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary (the last space within
    the final 30 % of the limit, else the limit itself), never inside a ``⟨U+XXXX⟩`` marker, with
    trailing spaces and punctuation that would dangle before the ellipsis dropped."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    marker = head.rfind(_MARKER_OPEN)
    if marker != -1 and "⟩" not in head[marker:]:
        head = head[:marker]  # a marker cut in half would show a code point that was never sent
    if not text[len(head) : len(head) + 1].isspace():
        space = head.rfind(" ")
        if space >= limit * (1 - _WORD_REACH):
            head = head[:space]
    return head.rstrip(" ,;:")


def _fold(text: str, limit: int | None) -> tuple[str, bool]:
    """``clean_text`` for text that needs work."""
    # Chunked so that a megabyte of target text costs about ``limit`` characters of work.
    step = len(text) if limit is None else max(4096, 2 * limit)
    folded = ""
    for start in range(0, len(text), step or 1):
        chunk = _NOT_PLAIN_ASCII.sub(_visible_match, text[start : start + step])
        folded = _WHITESPACE_RUN.sub(" ", folded + chunk).lstrip()
        if limit is not None and len(folded.rstrip()) > limit:
            break
    folded = folded.rstrip()
    if limit is not None and len(folded) > limit:
        return cut_words(folded, limit), True
    return folded, False


def code_span(content: str) -> str:
    """An inline code span holding ``content`` verbatim (``content`` must be one line).

    The fence is longer than the longest backtick run inside; a space pads each side when the
    content starts or ends with a backtick or a space (CommonMark strips exactly one each side).
    """
    if "`" in content:
        fence = "`" * (max(len(run) for run in _BACKTICK_RUN.findall(content)) + 1)
    else:
        fence = "`"
    if content[:1] in ("`", " ") or content[-1:] in ("`", " "):
        content = f" {content} "
    return f"{fence}{content}{fence}"


def md_inline(text: str, limit: int = 200) -> str:
    """Untrusted text quoted as inline code, one line, at most ``limit`` characters (plus an
    ellipsis after the span when cut). Not for table cells: see ``md_cell``."""
    return _remembered(_md_inline, text, limit)


def _md_inline(text: str, limit: int) -> str:
    cleaned, cut = clean_text(text, limit)
    if not cleaned:
        return "(empty)"
    return code_span(cleaned) + (ELLIPSIS if cut else "")


def md_cell(text: str, limit: int = 80) -> str:
    """Like ``md_inline`` but safe inside a GFM table cell: each pipe becomes an escaped ``\\|``
    between code spans, so the row keeps its column count in every GFM parser."""
    return _remembered(_md_cell, text, limit)


def _md_cell(text: str, limit: int) -> str:
    cleaned, cut = clean_text(text, limit)
    if not cleaned:
        return "(empty)"
    return _cell_span(cleaned) + (ELLIPSIS if cut else "")


def md_text(text: str, limit: int = 500) -> str:
    """Text rendered as plain prose: inline-markup punctuation backslash-escaped, ``<`` and
    entity-like ``&`` as entities. For mcprobe's own sentences that embed target strings. Safe in
    a table cell; never at the start of a line."""
    cleaned, cut = clean_text(text, limit)
    return _escape_prose(cleaned) + (ELLIPSIS if cut else "")


# Anything ``_escape_prose`` would change: inline punctuation, ``<`` and ``&``.
_PROSE_SPECIAL = re.compile(r"[\\`*_~\[\]!|$<&]")


def _escape_prose(cleaned: str) -> str:
    if _PROSE_SPECIAL.search(cleaned) is None:
        return cleaned
    escaped = _INLINE_PUNCTUATION.sub(r"\\\g<0>", _ENTITY_START.sub("&amp;", cleaned))
    return escaped.replace("<", "&lt;")


_QUOTED = re.compile(r"`([^`]+)`")


def md_prose(text: str, limit: int = 500, *, cell: bool = False) -> str:
    """mcprobe's own sentence in which target strings are quoted with single backticks (the
    lint and score convention, e.g. ``Tool `greet` has no description``): each quoted part
    becomes a safe code span (``md_cell`` style when ``cell``), the rest is ``md_text``. A stray
    backtick (a target name containing one) only shifts what is shown as code; every piece is
    escaped either way. Never at the start of a line."""
    return _remembered(_md_prose_cell if cell else _md_prose, text, limit)


def _md_prose_cell(text: str, limit: int) -> str:
    return _prose(text, limit, _cell_span)


def _md_prose(text: str, limit: int) -> str:
    return _prose(text, limit, code_span)


def _prose(text: str, limit: int, quote: Callable[[str], str]) -> str:
    cleaned, cut = clean_text(text, limit)
    if not cut:
        # Prose, quote, prose, ... (``split`` keeps the group): the loop below, in C.
        parts = _QUOTED.split(cleaned)
        parts[0::2] = map(_escape_prose, parts[0::2])
        parts[1::2] = map(quote, parts[1::2])
        return "".join(parts)
    pieces: list[str] = []
    last = 0
    for match in _QUOTED.finditer(cleaned):
        pieces.append(_escape_prose(cleaned[last : match.start()]))
        pieces.append(quote(match.group(1)))
        last = match.end()
    rest = cleaned[last:]
    opened = rest.find("`") if cut else -1
    if opened >= 0 and opened + 1 < len(rest):
        # The cut fell inside a quoted (target) string: what is left of it stays quoted.
        pieces += [_escape_prose(rest[:opened]), quote(rest[opened + 1 :] + ELLIPSIS)]
        return "".join(pieces)
    pieces.append(_escape_prose(rest))
    return "".join(pieces) + (ELLIPSIS if cut else "")


# A report repeats the same short strings (tool names, case labels, notes) thousands of times;
# the escapes are pure, so recent answers are remembered. Long texts are not kept.
_MEMO_SIZE = 4096
_MEMO_TEXT_LIMIT = 512
_MEMO: OrderedDict[tuple[Callable[[str, int], str], str, int], str] = OrderedDict()


def forget_escapes() -> None:
    """Empty the memo of recent escapes (benchmarks start each run cold with it)."""
    _MEMO.clear()


def _remembered(escape: Callable[[str, int], str], text: str, limit: int) -> str:
    if len(text) > _MEMO_TEXT_LIMIT:
        return escape(text, limit)
    key = (escape, text, limit)
    known = _MEMO.get(key)
    if known is None:
        known = _MEMO[key] = escape(text, limit)
        if len(_MEMO) > _MEMO_SIZE:
            with contextlib.suppress(KeyError):  # emptied meanwhile by another thread
                _MEMO.popitem(last=False)
    return known


def _cell_span(content: str) -> str:
    if "|" not in content:
        return code_span(content) if content else ""
    return "\\|".join(code_span(piece) if piece else "" for piece in content.split("|"))


def json_text(value: JSON) -> str:
    """Compact JSON, ASCII only (every control, bidi or non-ASCII character is a ``\\uXXXX``
    escape), keys in the order they were sent."""
    return json.dumps(value, ensure_ascii=True, separators=(", ", ": "), default=repr)


def md_code(value: JSON, limit: int = 300) -> str:
    """A JSON value (e.g. the arguments of a fuzz case) as inline code, cut to ``limit``
    characters with an ellipsis after the span. Not for table cells.

    The JSON is printable ASCII already, so it is not folded: whitespace inside strings stays
    exactly as sent and the arguments remain reproducible (unless cut)."""
    text = json_text(value)
    if len(text) > limit:
        return code_span(cut_json(text, limit)) + ELLIPSIS
    return code_span(text)


# One JSON token of ``json_text`` output: an escape (``\uXXXX``, ``\"``, ``\\``...) or a
# character. A cut between two tokens never splits an escape.
_JSON_TOKEN = re.compile(r"\\u[0-9a-fA-F]{4}|\\.|.", re.DOTALL)
_HIGH_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}$")


def cut_json(text: str, limit: int) -> str:
    """Compact JSON (``json_text``) cut to at most ``limit`` characters: never inside an
    escape, never between the two escapes of a surrogate pair, and at a space (after a
    separator or between words of a string) when one is within the final 30 % of the limit."""
    end = 0
    for token in _JSON_TOKEN.finditer(text):
        if token.end() > limit:
            break
        end = token.end()
    head = text[:end]
    if _HIGH_SURROGATE_ESCAPE.search(head):
        head = head[:-6]  # its low half did not fit: a lone high surrogate would be a new value
    if not text[len(head) : len(head) + 1].isspace():
        space = head.rfind(" ")
        if space >= limit * (1 - _WORD_REACH):
            head = head[:space]
    return head.rstrip(" ,:")
