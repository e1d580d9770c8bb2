"""Every string literal written in the test suite: a corpus of realistic and hostile texts
(target descriptions, error messages, injections, odd Unicode) for tests that compare a fast
path with the plain one it replaces."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

__all__ = ["suite_strings"]

_TESTS = Path(__file__).resolve().parent.parent


@cache
def suite_strings() -> tuple[str, ...]:
    """The string constants of every ``tests/**/*.py``, sorted, each once."""
    strings: set[str] = set()
    for path in sorted(_TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                strings.add(node.value)
    return tuple(sorted(strings))
