"""The built wheel is what a user installs (issue 26 item 7): it carries the LICENSE it declares,
``python -m mcprobe`` works, nothing that needs the repository (demo_target, tests) is in it, and
every dependency has an upper bound. ``scripts/check_wheel`` (run by CI) also installs it in a
fresh virtualenv and runs ``mcprobe --version``, ``python -m mcprobe --version`` and
``mcprobe audit --help`` from there."""

from __future__ import annotations

import email
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mcprobe import __version__
from tests.support.paths import REPO_ROOT

_NOT_SOURCE = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".bench")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    # From a clean copy of the tree: an in-tree build/ left by an earlier build would be reused
    # by setuptools (and ship a module deleted since).
    source = out / "source"
    shutil.copytree(REPO_ROOT, source, ignore=shutil.ignore_patterns(*_NOT_SOURCE))
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    (path,) = out.glob("mcprobe_audit-*.whl")
    return zipfile.ZipFile(path)


def _metadata(wheel: zipfile.ZipFile) -> email.message.Message:
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    return email.message_from_bytes(wheel.read(name))


@pytest.mark.slow
def test_the_wheel_carries_the_license_it_declares(wheel: zipfile.ZipFile) -> None:
    meta = _metadata(wheel)
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    licence = next(n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE"))
    assert wheel.read(licence) == (REPO_ROOT / "LICENSE").read_bytes()
    assert b"MIT License" in wheel.read(licence)


@pytest.mark.slow
def test_the_wheel_ships_the_package_and_nothing_that_needs_the_repository(
    wheel: zipfile.ZipFile,
) -> None:
    names = wheel.namelist()
    assert "mcprobe/__main__.py" in names and "mcprobe/schemas/report.schema.json" in names
    tops = {name.split("/", 1)[0] for name in names}
    assert tops == {"mcprobe", f"mcprobe_audit-{__version__}.dist-info"}
    assert not [n for n in names if "demo_client" in n or "demo_target" in n]


@pytest.mark.slow
def test_every_dependency_has_an_upper_bound_and_classifiers_say_what_it_is(
    wheel: zipfile.ZipFile,
) -> None:
    meta = _metadata(wheel)
    runtime = [r for r in meta.get_all("Requires-Dist") or [] if "extra ==" not in r]
    assert runtime and all("<" in r for r in runtime), runtime
    classifiers = meta.get_all("Classifier") or []
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)


def test_python_dash_m_mcprobe_is_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcprobe", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"mcprobe {__version__}\n"


def test_the_readme_install_line_has_no_placeholder_owner() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    installs = [line for line in readme.splitlines() if "pip install" in line]
    assert installs and not [line for line in installs if re.search(r"\bOWNER\b", line)]


def test_ci_builds_and_installs_the_wheel_in_a_fresh_venv() -> None:
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/check_wheel" in ci
    script = (REPO_ROOT / "scripts" / "check_wheel").read_text(encoding="utf-8")
    for command in ("--version", "-m mcprobe --version", "audit --help"):
        assert command in script, command
    assert Path(REPO_ROOT / "scripts" / "check_wheel").stat().st_mode & 0o111
