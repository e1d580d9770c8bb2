"""What installing mcprobe puts into a user's environment: the ``mcprobe`` package only.

``demo_target`` (the deliberately flawed demo server) stays in the repository for the demo and
the tests; the development venv reaches it through ``scripts/install``'s path file, users never
get a generic top-level ``demo_target`` package.
"""

from __future__ import annotations

import re
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


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


# The runtime dependencies beyond what ``pip install mcp`` brings, each with why, and all they
# bring with them: small pure-Python distributions only.
BEYOND_THE_SDK = {
    "markdown-it-py": "the HTML report is the Markdown report rendered (report/render/html.py)",
}
BROUGHT_BY_THEM = {"mdurl"}


def _requirements(*roots: str) -> set[str]:
    """What installing ``roots`` brings, transitively (as installed here), without extras."""
    found: set[str] = set()
    todo = list(roots)
    while todo:
        try:
            requirements = metadata.requires(todo.pop()) or []
        except metadata.PackageNotFoundError:  # another platform's (pywin32): not walked
            continue
        for req in requirements:
            name = _name(req)
            if "extra ==" not in req and name not in found:
                found.add(name)
                todo.append(name)
    return found


def test_runtime_dependencies_install_nothing_beyond_the_mcp_sdk_but_what_is_named() -> None:
    # Every distribution mcprobe imports is declared (tests/test_architecture.py), but none may
    # add to what ``pip install mcp`` brings (mcp itself and its own requirements) unless it is
    # named above with its reason.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = {_name(dep) for dep in config["project"]["dependencies"]}
    sdk = _requirements("mcp")
    assert "mcp" in names
    beyond = names - {"mcp"} - sdk
    assert beyond == set(BEYOND_THE_SDK), f"not brought by mcp: {sorted(beyond)}"
    assert _requirements(*BEYOND_THE_SDK) - sdk == BROUGHT_BY_THEM
    assert {"anyio", "jsonschema", "pydantic", "mcp-types", "httpx2"} <= names


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
