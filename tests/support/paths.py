"""Where things are, for tests at any depth of ``tests/``."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
TESTS = REPO_ROOT / "tests"
TARGETS = TESTS / "targets"
GOLDEN = TESTS / "golden"
CLI_TARGET = str(TARGETS / "cli_target.py")
