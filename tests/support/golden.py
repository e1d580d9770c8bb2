"""The one golden-file helper: compare a rendering with ``tests/golden/<name>``, or rewrite it.

Regenerate with ``MCPROBE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest <the golden tests>`` and read
the diff of ``tests/golden/`` before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.paths import GOLDEN

UPDATE = os.environ.get("MCPROBE_UPDATE_GOLDEN") == "1"


def check_golden(name: str | Path, actual: str) -> None:
    """``actual`` equals the golden file ``name`` (relative to ``tests/golden``, or a path);
    with ``MCPROBE_UPDATE_GOLDEN=1`` the file is rewritten first."""
    path = name if isinstance(name, Path) else GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"{path.name} missing: run with MCPROBE_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{path.name} differs (regenerate with MCPROBE_UPDATE_GOLDEN=1)"
