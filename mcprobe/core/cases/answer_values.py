"""Values another tool's answer names, as realistic bases for a refused valid call (issue 23
item 8, issue 25 item 1: "discovery: values the server itself lists … a workbook, a table").

A placeholder ``"example"`` for ``describe_table(table)`` is refused by every server that serves
a fixed set of tables; the server's own ``list_tables`` already answered ``["users", "orders"]``
in the same fuzz run. ``answer_values`` reads such an answer (one the fuzz already got: no new
call is ever made for it) into candidate values per *kind* — table, file, directory, sheet,
database, repository, or any other noun a listing tool names (``list_users`` → user) — and
``answer_retry_arguments`` picks, for one refused valid call, the field and the value to send it
again with (``engine/answer_retry.py``).

Where the kind comes from: the listing tool's name or description (``list_tables``, "Lists the
tables") for an answer that is a bare list; the label of a labelled list ("Tables: users,
orders", ``{"tables": [...]}``) for any answer. Shapes read: a JSON list of short strings, a list
of objects with ``name``/``id``/``path``/``title``, such a list under one key of an object (also
in ``structuredContent``), a Python-repr list (``[{'name': 'users'}]``), a "Label: a, b, c" line,
a "Label:" line followed by one value per line, and one value per line (``[FILE] a.txt``,
``- users``) in a listing tool's text.

Bounded: at most ``MAX_SCAN`` characters of each answer are read, at most ``MAX_ITEMS`` items of
each list, at most ``MAX_PER_KIND`` values kept per kind; every step is linear in what is read.
Untrusted: an answer is the target's text. A value is only ever sent back to the same server as
an argument string, never read as a path on this machine, must be a short printable string, and
is used only when the receiving arguments stay valid against the tool's input schema
(``core/schema/dialect.is_valid``). A value found here is still mcprobe's choice: a case built on
it keeps the provenance ``synthesized`` (a refusal of it stays inconclusive).

Pure: JSON in, strings out.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcprobe.core.cases.discovery import (
    DATABASE_NAMES,
    DIRECTORY_NAMES,
    FILE_NAMES,
    REPOSITORY_NAMES,
    normalised,
)
from mcprobe.core.cases.param_hints import name_words
from mcprobe.core.model import JSON
from mcprobe.core.schema.dialect import is_valid

__all__ = [
    "MAX_ITEMS",
    "MAX_PER_KIND",
    "MAX_SCAN",
    "AnswerValue",
    "answer_retry_arguments",
    "answer_values",
    "empty_answer",
    "field_kinds",
    "listed_kind",
    "pool_values",
]

MAX_SCAN = 8000  # characters of one answer read
MAX_ITEMS = 50  # items of one list read
MAX_PER_KIND = 5  # values kept per kind, per answer and per pool
_MAX_VALUE = 256  # characters of one value
_MAX_WORDS = 4  # words of a value read from a line of prose-like text
_MAX_LINES = 200

# Nouns (singular) and the kind they name; a noun not here is its own kind (``user``).
_KIND_OF = {
    "table": "table",
    "view": "table",
    "file": "file",
    "document": "file",
    "doc": "file",
    "workbook": "file",
    "spreadsheet": "file",
    "note": "file",
    "directory": "directory",
    "dir": "directory",
    "folder": "directory",
    "sheet": "sheet",
    "worksheet": "sheet",
    "tab": "sheet",
    "database": "database",
    "db": "database",
    "repository": "repository",
    "repo": "repository",
}
_LIST_VERBS = frozenset(
    {"list", "ls", "show", "get", "search", "find", "enumerate", "browse", "all", "available"}
)
# Words that are no noun of what is listed (``list_allowed_directories``, ``get_all_tables``).
_NOT_NOUNS = frozenset(
    {
        "allowed",
        "available",
        "all",
        "my",
        "the",
        "recent",
        "known",
        "existing",
        "by",
        "for",
        "of",
        "in",
        "info",
        "details",
        "status",
        "contents",
        "content",
        "data",
        "result",
        "results",
        "items",
        "entries",
        "list",
        "names",
        "name",
        "ids",
        "id",
        "paths",
        "path",
    }
)
# Keys of an object under which a bare listing sits (the listing tool's kind applies).
_GENERIC_KEYS = frozenset(
    {"result", "results", "items", "data", "entries", "content", "contents", "values", "list"}
)
# Fields whose name says nothing of the kind: the tool's own noun decides (describe_table(name)).
_GENERIC_FIELDS = frozenset({"name", "id", "key", "identifier", "ref", "target", "item", "value"})
# The keys of a listed object that hold its value, by kind.
_PATH_KEYS = ("path", "fullPath", "full_path", "uri", "name", "filename", "file", "id", "title")
_NAME_KEYS = ("name", "id", "title", "key", "path", "slug", "tableName", "table_name")
_ID_KEYS = ("id", "key", "name", "slug", "title", "path")
_JUNK = frozenset({"", ".", "..", "none", "null", "undefined", "n/a", "-", "true", "false"})
_MARKER = re.compile(r"^(?:\[(?:file|dir|directory|folder|f|d)\]|[-*•]|\d{1,3}[.)])\s+", re.I)
_DIR_MARKER = re.compile(r"^\[(?:dir|directory|folder|d)\]\s+", re.I)
_LABEL = re.compile(r"^\s*(?P<label>[A-Za-z][\w \-]{0,40}?)\s*:\s*(?P<rest>.*)$")


@dataclass(frozen=True, slots=True)
class AnswerValue:
    """One value an answer named: its kind, the value, and the tool whose answer named it."""

    kind: str
    value: str
    lister: str


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _noun_kind(word: str) -> str | None:
    """The kind a (plural or singular) noun names, or None for a word that names no thing."""
    word = word.lower()
    if word in _NOT_NOUNS or not word.isalpha() or len(word) < 2:
        return None
    single = _singular(word)
    if single in _NOT_NOUNS:
        return None
    return _KIND_OF.get(single, single)


def _label_kind(label: str) -> str | None:
    """The kind a list's label names ("Tables", "allowed directories", ``files``): its last
    word, which must be a plural (a singular label such as "Error" or "Name" lists nothing)."""
    words = name_words(label)
    if not words:
        return None
    last = words[-1]
    if not last.endswith("s") or last.endswith("ss"):
        return None
    return _noun_kind(last)


_DESCRIBED = re.compile(
    r"\b(?:lists?|listing|enumerates?|returns?\s+(?:a\s+list\s+of|all)|shows?)\s+"
    r"(?:(?:all|the|every|available|allowed|existing|known|of)\s+){0,3}([A-Za-z]+)",
    re.IGNORECASE,
)


def listed_kind(tool: Mapping[str, Any]) -> str | None:
    """What a tool lists, from its name (``list_tables``, ``getAllUsers``,
    ``list_allowed_directories``, ``list_directory`` → its entries: files) or the first
    sentence of its description ("Lists the tables …"); None for a tool that lists nothing."""
    name = tool.get("name")
    words = name_words(name) if isinstance(name, str) else []
    if words and words[0] in _LIST_VERBS and len(words) >= 2:
        last = words[-1]
        kind = _noun_kind(last)
        if kind == "directory" and _singular(last) == last:
            return "file"  # list_directory lists what is in one directory
        if kind is not None and (last.endswith("s") or kind in _KIND_OF.values()):
            return kind
    description = tool.get("description")
    if isinstance(description, str):
        match = _DESCRIBED.search(description[:300])
        if match and match.group(1).lower().endswith("s"):
            return _noun_kind(match.group(1))
    return None


def _clean(value: Any) -> str | None:
    """A value fit to send back: a short printable single-line string (a number becomes its
    text), stripped of quotes; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`":
        text = text[1:-1].strip()
    if not text or len(text) > _MAX_VALUE or not text.isprintable() or text.lower() in _JUNK:
        return None
    return text


def _object_value(item: Mapping[str, Any], kind: str) -> str | None:
    keys: tuple[str, ...]
    if kind in ("file", "directory"):
        keys = _PATH_KEYS
    elif kind in _KIND_OF.values():
        keys = _NAME_KEYS
    else:
        keys = _ID_KEYS
    for key in keys:
        value = _clean(item.get(key))
        if value is not None:
            return value
    return None


def _item_kind(item: Mapping[str, Any], kind: str) -> str:
    """A directory entry object says whether it is a directory (``type``/``kind``: dir)."""
    if kind not in ("file", "directory"):
        return kind
    marker = item.get("type", item.get("kind"))
    if isinstance(marker, str) and marker.lower() in ("dir", "directory", "folder"):
        return "directory"
    if item.get("isDirectory") is True or item.get("is_dir") is True:
        return "directory"
    return kind


class _Found:
    """Values collected from one answer, capped per kind (insertion order kept)."""

    def __init__(self, base: str | None) -> None:
        self.base = base  # the directory the listing tool was asked about, if any
        self.values: dict[str, list[str]] = {}

    def add(self, kind: str, value: str | None) -> None:
        if value is None:
            return
        if kind in ("file", "directory") and self.base and not value.startswith("/"):
            self._put(kind, f"{self.base}/{value}")
        self._put(kind, value)

    def _put(self, kind: str, value: str) -> None:
        kept = self.values.setdefault(kind, [])
        if value not in kept and len(kept) < MAX_PER_KIND:
            kept.append(value)


def _read_list(items: Sequence[Any], kind: str, found: _Found) -> None:
    for item in items[:MAX_ITEMS]:
        if isinstance(item, Mapping):
            found.add(_item_kind(item, kind), _object_value(item, kind))
        else:
            found.add(kind, _clean(item))


def _read_json(value: Any, kind: str | None, found: _Found, depth: int = 0) -> None:
    """A list (of the listing tool's kind), or an object whose keys label its lists."""
    if isinstance(value, list):
        if kind is not None:
            _read_list(value, kind, found)
        return
    if not isinstance(value, Mapping) or depth > 1:
        return
    for index, (key, inner) in enumerate(value.items()):
        if index >= MAX_ITEMS or not isinstance(key, str):
            break
        labelled = _label_kind(key)
        if key.lower() in _GENERIC_KEYS:
            labelled = kind
        if isinstance(inner, list) and labelled is not None:
            _read_list(inner, labelled, found)
        elif isinstance(inner, Mapping):
            _read_json(inner, labelled if labelled is not None else kind, found, depth + 1)


def _parsed(text: str) -> Any:
    """``text`` read as JSON, or as a Python literal (``[{'name': 'users'}]``), or None."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{" or stripped[-1] not in "]}":
        return None
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _line_value(line: str) -> tuple[str | None, bool]:
    """(the value one line of a listing names, whether it is marked a directory)."""
    directory = bool(_DIR_MARKER.match(line))
    bare = _MARKER.sub("", line, count=1).strip()
    if len(bare.split()) > _MAX_WORDS or bare.endswith((":", ".", "!", "?")):
        return None, False
    return _clean(bare), directory


def _read_text(text: str, kind: str | None, found: _Found) -> None:
    """Labelled lists anywhere; one value per line only in a listing tool's text."""
    current = kind  # the kind of the bare lines that follow (a "Label:" line sets it)
    for number, line in enumerate(text.splitlines()):
        if number >= _MAX_LINES:
            break
        if not line.strip():
            continue
        label = _LABEL.match(line)
        if label is not None and not _MARKER.match(line):
            labelled = _label_kind(label.group("label"))
            rest = label.group("rest").strip()
            if labelled is None:
                current = None if kind is None else current
                continue
            if rest:
                for part in rest.split(",")[:MAX_ITEMS]:
                    value, _ = _line_value(part)
                    found.add(labelled, value)
            else:
                current = labelled
            continue
        if current is not None:
            value, directory = _line_value(line)
            found.add("directory" if directory and current == "file" else current, value)


def _text_and_structured(result: JSON) -> tuple[str, JSON]:
    if not isinstance(result, dict):
        return "", None
    texts: list[str] = []
    content = result.get("content")
    if isinstance(content, list):
        for item in content[:MAX_ITEMS]:
            if isinstance(item, dict) and item.get("type") == "text":
                text = item.get("text")
                if isinstance(text, str):
                    texts.append(text[:MAX_SCAN])
    return "\n".join(texts)[:MAX_SCAN], result.get("structuredContent")


def _base(arguments: JSON) -> str | None:
    """The absolute directory the listing call was about (its ``path``/``directory``
    argument), to which the relative names it answers belong."""
    if not isinstance(arguments, dict):
        return None
    for key, value in arguments.items():
        if (
            isinstance(key, str)
            and normalised(key) in DIRECTORY_NAMES
            and isinstance(value, str)
            and value.startswith("/")
            and len(value) <= _MAX_VALUE
            and value.isprintable()
        ):
            return value.rstrip("/") or None
    return None


def answer_values(tool: Mapping[str, Any], arguments: JSON, result: JSON) -> list[AnswerValue]:
    """The values one ok answer (``result``, a ``tools/call`` result) of ``tool``, called with
    ``arguments``, names: per kind, in the order answered, at most ``MAX_PER_KIND`` each.
    Relative names a listing of an absolute directory answers are offered joined to it first
    (``/srv/docs/a.txt``, then ``a.txt``)."""
    kind = listed_kind(tool)
    found = _Found(_base(arguments))
    text, structured = _text_and_structured(result)
    if isinstance(structured, list | dict):
        _read_json(structured, kind, found)
    parsed = _parsed(text)
    if parsed is not None:
        _read_json(parsed, kind, found)
    elif text:
        _read_text(text, kind, found)
    name = str(tool.get("name", ""))
    return [AnswerValue(k, v, name) for k, values in found.values.items() for v in values]


def empty_answer(result: JSON) -> bool:
    """Whether an ok answer is an empty listing and nothing else: its text is ``[]``, ``{}``
    or ``null`` (``describe_table("example")`` → ``[]``: no such table, no rows), and its
    ``structuredContent``, if any, is empty too."""
    text, structured = _text_and_structured(result)
    if structured not in (None, [], {}):
        return False
    return "".join(text.split()) in ("[]", "{}", "null")


def pool_values(answers: Sequence[Sequence[AnswerValue]]) -> dict[str, tuple[AnswerValue, ...]]:
    """Several answers' values merged per kind (first answer first, once per value), at most
    ``MAX_PER_KIND`` per kind."""
    pool: dict[str, list[AnswerValue]] = {}
    for answer in answers:
        for found in answer:
            kept = pool.setdefault(found.kind, [])
            if len(kept) < MAX_PER_KIND and all(v.value != found.value for v in kept):
                kept.append(found)
    return {kind: tuple(values) for kind, values in pool.items()}


def field_kinds(field: str, tool: str = "") -> tuple[str, ...]:
    """The kinds a field's name says it takes, best first: ``table``/``table_name`` → table,
    ``sheet_name`` → sheet, ``repo_path`` → repository, ``db_path`` → database, ``file_path`` →
    file, ``path`` → file and directory (directory first unless ``tool`` works on one file),
    ``user_id`` → user; a generic ``name``/``id`` → none (the tool's noun decides)."""
    key = normalised(field)
    words = name_words(field)
    if not words:
        return ()
    kinds: list[str] = []
    if key in REPOSITORY_NAMES:
        kinds.append("repository")
    if key in DATABASE_NAMES:
        kinds.append("database")
    if key in FILE_NAMES or key == "filename":
        kinds.append("file")
    if key in DIRECTORY_NAMES:
        tool_words = name_words(tool)
        one_file = any(_KIND_OF.get(_singular(w)) == "file" for w in tool_words)
        kinds += ["file", "directory"] if one_file else ["directory", "file"]
    last = words[-1]
    if len(words) >= 2 and last in ("name", "id", "path", "key", "ids", "names"):
        noun = _noun_kind(words[-2])
        if noun is not None:
            kinds.append(noun)
    elif last not in _GENERIC_FIELDS:
        noun = _noun_kind(last)
        if noun is not None:
            kinds.append(noun)
    return tuple(dict.fromkeys(kinds))


def _tool_kinds(tool: str) -> tuple[str, ...]:
    """The kinds a tool's name speaks of (``describe_table`` → table), last word first."""
    kinds = [_noun_kind(w) for w in reversed(name_words(tool)) if w not in _LIST_VERBS]
    return tuple(dict.fromkeys(k for k in kinds if k is not None))


def answer_retry_arguments(
    tool: Mapping[str, Any],
    arguments: Mapping[str, Any],
    pool: Mapping[str, Sequence[AnswerValue]],
    *,
    same_kind_only: bool = False,
) -> tuple[dict[str, Any], str, AnswerValue] | None:
    """``(arguments with one string field set to a value another tool's answer named, that
    field, that value)``, or None. Fields whose name names the value's kind come first
    (``table`` ← tables); then, unless ``same_kind_only``, a generic field (``name``, ``id``,
    ``key`` …, never one whose name is a noun of its own such as ``query``) with the kind the
    tool's own name speaks of (``describe_table(name)`` ← tables). Values the tool's own
    answers named, and the value already sent, are skipped; the first value that keeps the
    arguments valid against the input schema wins."""
    schema = tool.get("inputSchema")
    name = str(tool.get("name", ""))
    if not pool or not isinstance(schema, Mapping):
        return None
    strings = [k for k, v in arguments.items() if isinstance(k, str) and isinstance(v, str)]
    plans: list[tuple[str, str]] = []
    for field in strings:
        plans += [(field, kind) for kind in field_kinds(field, name) if kind in pool]
    generic = [] if same_kind_only else [f for f in strings if normalised(f) in _GENERIC_FIELDS]
    for field in generic:
        plans += [(field, kind) for kind in _tool_kinds(name) if kind in pool]
    for field, kind in dict.fromkeys(plans):
        for found in pool[kind]:
            if found.lister == name or found.value == arguments[field]:
                continue
            candidate = {**arguments, field: found.value}
            if is_valid(schema, candidate):
                return candidate, field, found
    return None
