"""The paths the user's examples name (issue 20): known before the target starts, so the
sandbox gives the existing ones private writable copies, like the paths in the target's
arguments and env. Pure and standard library only: the CLI builds its ``TargetSpec`` (and
starts a stdio target) before the heavy imports."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["example_paths"]

# Bounds of the walk over the user's examples.
_MAX_PATH_CHARS = 4096
_MAX_PATHS = 64
_MAX_DEPTH = 16


def example_paths(examples: object) -> tuple[str, ...]:
    """The path-shaped strings anywhere in the user's examples (any shape: the raw file, tool
    input or keyword argument; values and nested values, not keys), in order, without
    duplicates: absolute, home- or dot-relative, or containing a ``/``; never ``/`` itself, a
    URL, a string with a newline or longer than 4096 characters; at most 64 of them, 16 levels
    deep. The sandbox gives the ones that exist private writable copies, as it does the paths
    in the target's arguments (``client/transports/sandbox.py``): the user pointed mcprobe at
    them, so a write-tool call on them is judged, on a copy, never on the real file."""
    found: list[str] = []

    def walk(value: object, depth: int) -> None:
        if len(found) >= _MAX_PATHS or depth > _MAX_DEPTH:
            return
        if isinstance(value, str):
            if _path_shaped(value) and value not in found:
                found.append(value)
        elif isinstance(value, Mapping):
            for item in value.values():
                walk(item, depth + 1)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, depth + 1)

    walk(examples, 0)
    return tuple(found)


def _path_shaped(value: str) -> bool:
    if not value or len(value) > _MAX_PATH_CHARS or "\n" in value or "\0" in value:
        return False
    if value.strip("/") == "" or "://" in value:
        return False
    return value.startswith(("/", "./", "../", "~")) or "/" in value
