"""What the paths the server was started with hold (issue 23 item 8): the I/O half of
``core/cases/discovery.py``.

The pure discovery reads the target's arguments and environment as text; a directory alone is
no file, so ``read_file(path=<the allowed directory>)`` is refused and proves nothing. Here the
named paths are looked at (never written): a directory's first few regular files, found
breadth-first two levels down (hidden names, symlinks and install directories skipped), or the
path itself when it is a file. A stdio target that runs isolated sees private copies of the
same paths with the same contents; a target that does not is called only with its read-only
tools unless the user consented to more (``core/cases/selection.py``), so naming a file it was
given to serve changes nothing about what may be called.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from mcprobe.core.cases.discovery import discover_values, start_env_paths
from mcprobe.core.model import JSON

__all__ = ["start_values"]

_FILES = 3  # regular files per directory
_ENTRIES = 200  # directory entries read per directory, at most
_DEPTH = 2


def _files_in(directory: str) -> tuple[str, ...]:
    found: list[str] = []
    level = [directory]
    for _ in range(_DEPTH):
        below: list[str] = []
        for folder in level:
            try:
                with os.scandir(folder) as entries:
                    listed = sorted(
                        (e for _, e in zip(range(_ENTRIES), entries, strict=False)),
                        key=lambda e: e.name,
                    )
            except OSError:
                continue
            for entry in listed:
                if entry.name.startswith(".") or entry.is_symlink():
                    continue
                if entry.is_file(follow_symlinks=False):
                    found.append(entry.path)
                elif entry.is_dir(follow_symlinks=False) and entry.name != "node_modules":
                    below.append(entry.path)
            if len(found) >= _FILES:
                return tuple(found[:_FILES])
        level = below
    return tuple(found)


def start_values(
    args: Sequence[str], env: Mapping[str, str], secrets: Sequence[str] = ()
) -> Mapping[str, tuple[JSON, ...]]:
    """``discover_values`` of the target's arguments and start environment, with what is at
    each named absolute path."""
    pairs = start_env_paths(env, secrets)
    candidates = [a for a in args if a.startswith("/")]
    candidates += [a.partition("=")[2] for a in args if a.startswith("-") and "=/" in a]
    candidates += [value for _, value in pairs]
    files: dict[str, tuple[str, ...] | None] = {}
    for path in dict.fromkeys(p.rstrip("/") or "/" for p in candidates):
        if os.path.isdir(path):
            files[path] = _files_in(path)
        elif os.path.isfile(path):
            files[path] = None
    return discover_values(args, pairs, files)
