"""What installing mcprobe puts into a user's environment: the ``mcprobe`` package only.

``demo_target`` (the deliberately flawed demo server) stays in the repository for the demo and
the tests; the development venv reaches it through ``scripts/install``'s path file, users never
get a generic top-level ``demo_target`` package.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_installed_distribution_has_mcprobe_as_its_only_top_level_package() -> None:
    dist = metadata.distribution("mcprobe-audit")
    top_level = (dist.read_text("top_level.txt") or "").split()
    assert top_level == ["mcprobe"]


def test_package_discovery_includes_only_mcprobe() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    assert include == ["mcprobe*"]


def test_runtime_dependencies_stay_the_four_lean_ones() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = sorted(
        dep.split(">")[0].split("<")[0].split("=")[0] for dep in config["project"]["dependencies"]
    )
    assert names == ["anyio", "jsonschema", "mcp", "pydantic"]


def test_the_demo_target_still_starts_from_outside_the_repository(tmp_path: Path) -> None:
    # The development venv finds demo_target from any working directory (scripts/install).
    done = subprocess.run(
        [sys.executable, "-c", "import demo_target.server; print('ok')"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "ok", done.stderr
