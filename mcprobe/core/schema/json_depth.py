"""One nesting limit for every JSON value a target sends, and where a value breaks it.

A hostile target can nest one value thousands of levels deep (``[[[[…]]]]`` costs two bytes a
level). Recursive code anywhere — a JSON parser, the schema validator, the case generator, a
renderer's ``json.dumps`` — then dies with ``RecursionError``, and before this limit a single
deep ``tools/list`` page took the whole connection down. So every place where target bytes
become data checks ``MAX_JSON_DEPTH`` first (``client/transports/stdio.py`` on the bytes,
``client/raw_session.py`` on results over HTTP), and a message over it is dropped with a finding
that names where the limit was hit; the pure core and the renderers clip what they walk at the
same limit (``clip``), so data handed in by a library caller cannot break them either.

Nothing here recurses: the walks use explicit stacks, so they work at any depth. Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "DeepScan", "clip", "format_path", "scan_bytes", "too_deep"]

MAX_JSON_DEPTH = 100
"""Levels of arrays/objects a message may nest, the message object itself counting as level 1.
Real MCP traffic stays far below it (a deeply nested JSON Schema is a dozen levels); the JSON
parser of the SDK (jiter) stops at about 200, Python's recursion limit is 1000."""

CLIPPED = "⟨nested deeper than the limit⟩"
"""What ``clip`` puts where a value was nested too deep."""

_SHOWN = 8  # path components shown before an ellipsis
_Path = tuple[str | int, ...]


def format_path(path: _Path) -> str:
    """``$.result.tools[1].inputSchema…`` — the first few components, then an ellipsis and the
    number of levels left out. Keys are quoted when they are not plain identifiers, and cut."""
    parts = ["$"]
    for component in path[:_SHOWN]:
        if isinstance(component, int):
            parts.append(f"[{component}]")
        elif re.fullmatch(r"[A-Za-z_$][\w$-]{0,40}", component):
            parts.append(f".{component}")
        else:
            parts.append(f"[{json.dumps(component[:40], ensure_ascii=True)}]")
    if len(path) > _SHOWN:
        parts.append(f"… ({len(path) - _SHOWN} more levels)")
    return "".join(parts)


def too_deep(value: Any, limit: int = MAX_JSON_DEPTH) -> _Path | None:
    """The path to the first container nested deeper than ``limit`` levels (``value`` itself is
    level 1), or None when the whole value is within the limit.

    Nearly every value is within it (every schema and result of a listing is walked): one walk
    that keeps only depths says so; the path is worked out only for a value that breaks it."""
    if not _exceeds(value, limit):
        return None
    return _first_too_deep(value, limit)


_CONTAINERS = (dict, list, tuple)


def _exceeds(value: Any, limit: int) -> bool:
    """Whether some container of ``value`` is nested deeper than ``limit`` levels: the walk of
    ``_first_too_deep`` without the paths."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if isinstance(node, dict):
            items: Any = node.values()
        elif isinstance(node, list | tuple):
            items = node
        else:
            continue
        if depth > limit:
            return True
        deeper = depth + 1
        for item in items:
            if isinstance(item, _CONTAINERS):
                push((item, deeper))
    return False


def _first_too_deep(value: Any, limit: int) -> _Path | None:
    """``too_deep``'s answer, walked with the path to every container."""
    stack: list[tuple[Any, int, _Path]] = [(value, 1, ())]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, dict):
            items: Any = node.items()
        elif isinstance(node, list | tuple):
            items = enumerate(node)
        else:
            continue
        if depth > limit:
            return path
        for key, item in items:
            if isinstance(item, dict | list | tuple):
                stack.append((item, depth + 1, (*path, key)))
    return None


def clip(value: Any, limit: int = MAX_JSON_DEPTH) -> Any:
    """``value`` with every container deeper than ``limit`` levels replaced by ``CLIPPED``;
    ``value`` itself when it is within the limit (the common case costs one walk, no copy)."""
    if too_deep(value, limit) is None:
        return value
    return _clipped_copy(value, limit)


def _clipped_copy(value: Any, limit: int) -> Any:
    def shell(node: Any) -> Any:
        return {} if isinstance(node, dict) else []

    root = shell(value)
    stack: list[tuple[Any, Any, int]] = [(value, root, 1)]
    while stack:
        source, target, depth = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, dict | list | tuple):
                if depth + 1 > limit:
                    copied: Any = CLIPPED
                else:
                    copied = shell(item)
                    stack.append((item, copied, depth + 1))
            else:
                copied = item
            if isinstance(target, dict):
                target[key] = copied
            else:
                target.append(copied)
    return root


class DeepScan:
    """What ``scan_bytes`` found: ``path`` to where ``limit`` was exceeded (None: it was not),
    and the message's top-level ``id`` when it appeared before that point (a JSON number or
    string; None otherwise)."""

    __slots__ = ("path", "request_id")

    def __init__(self, path: _Path | None, request_id: int | str | None) -> None:
        self.path = path
        self.request_id = request_id


_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}:,]|[^\s\[\]{}:,"]+')


def _decoded(token: bytes) -> Any:
    try:
        return json.loads(token)
    except ValueError:
        return None


def scan_bytes(data: bytes, limit: int = MAX_JSON_DEPTH) -> DeepScan:
    """Scan raw JSON text for its nesting without building it (for text too deep to parse).

    Tolerant: it tracks brackets, keys and array indexes only, so it gives a path for malformed
    text too. Bounded by ``len(data)``; the caller caps the size."""
    # One frame per open container: [is_object, current key or index, after the colon].
    frames: list[list[Any]] = []
    request_id: int | str | None = None
    for match in _TOKEN.finditer(data):
        token = match.group()
        first = token[:1]
        if first in (b"{", b"["):
            if len(frames) >= limit:
                return DeepScan(_frames_path(frames), request_id)
            frames.append([first == b"{", None if first == b"{" else 0, False])
        elif first in (b"}", b"]"):
            if frames:
                frames.pop()
        elif first == b":":
            if frames and frames[-1][0]:
                frames[-1][2] = True
        elif first == b",":
            if frames:
                top = frames[-1]
                if top[0]:
                    top[2] = False
                else:
                    top[1] += 1
        elif frames:
            top = frames[-1]
            if top[0] and not top[2]:
                key = _decoded(token)
                top[1] = key if isinstance(key, str) else "?"
            elif len(frames) == 1 and top[0] and top[1] == "id":
                value = _decoded(token)
                if isinstance(value, int | str) and not isinstance(value, bool):
                    request_id = value
    return DeepScan(None, request_id)


def _frames_path(frames: list[list[Any]]) -> _Path:
    path: list[str | int] = []
    for is_object, key, _ in frames:
        path.append(key if not is_object or key is not None else "?")
    return tuple(path)
