"""ARCHITECTURE.md's layers hold: each folder of ``mcprobe/`` imports only what its rule allows.

Checked on the source (AST), so a violating import anywhere in a module fails, even one inside a
function body, and in every form: ``import mcprobe``, ``import mcprobe.x.y``, ``from mcprobe
import x``, ``from mcprobe.x import y``, relative imports (``from .. import x``) and dynamic ones
(``importlib.import_module("mcprobe.x")``, ``__import__("mcprobe.x")``).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mcprobe"

# Each layer (a sub-package of mcprobe, or "front" for the modules at the top) and the layers its
# modules may import. A module may always import its own layer.
ALLOWED: dict[str, frozenset[str]] = {
    "core": frozenset({"core"}),
    "report": frozenset({"core", "report"}),
    "client": frozenset({"core", "client"}),
    "engine": frozenset({"core", "report", "client", "engine"}),
    "server": frozenset({"core", "report", "client", "engine", "server"}),
    "front": frozenset({"core", "report", "client", "engine", "server", "front"}),
    # The command: anything, the library included (``mcprobe.__main__`` belongs here too).
    "cli": frozenset({"core", "report", "client", "engine", "server", "front", "cli"}),
}

# Modules that do I/O, keep time or draw randomness: none of them may appear in the pure layers.
IMPURE_TOP_LEVEL = {
    "anyio",
    "asyncio",
    "mcp",
    "mcp_types",
    "httpx2",
    "httpx",
    "subprocess",
    "socket",
    "os",
    "time",
    "random",
    "secrets",
    "threading",
    "signal",
    "pathlib",
    "logging",
    "uvicorn",
    "starlette",
}
PURE_LAYERS = {"core", "report"}


def layer_of_module(dotted: str) -> str:
    """``mcprobe.core.lint.rules`` → ``core``; ``mcprobe``, ``mcprobe.cli`` → ``front``."""
    if dotted == "mcprobe.__main__":
        return "cli"
    parts = dotted.split(".")
    if len(parts) >= 2 and parts[1] in ALLOWED and parts[1] != "front":
        return parts[1]
    return "front"


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def imported_modules(source: str, own: str, *, is_package: bool = False) -> set[str]:
    """Every module ``source`` (module ``own``) imports, as absolute dotted names."""
    tree = ast.parse(source)
    package = own if is_package else own.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts)
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.add(module)
            if module == "mcprobe" or module.startswith("mcprobe."):
                # ``from mcprobe import x`` may name a sub-package: count it as imported too.
                names.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.add(first.value)
    return names


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in {"__import__", "import_module"}
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def violations(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    return violations_in(source, module_name(path), is_package=path.name == "__init__.py")


def violations_in(source: str, own: str, *, is_package: bool = False) -> list[str]:
    own_layer = layer_of_module(own)
    problems: list[str] = []
    for name in sorted(imported_modules(source, own, is_package=is_package)):
        if name == "mcprobe" or name.startswith("mcprobe."):
            target = layer_of_module(name)
            if name == "mcprobe" and "front" not in ALLOWED[own_layer]:
                problems.append(f"imports the top-level package {name!r} (a front-end)")
            elif target not in ALLOWED[own_layer]:
                problems.append(f"imports {name!r} from layer {target!r}")
        elif own_layer in PURE_LAYERS and name.split(".")[0] in IMPURE_TOP_LEVEL:
            problems.append(f"imports the I/O or clock module {name!r}")
    return problems


def test_every_folder_of_the_package_is_a_known_layer() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders - {"schemas"} == set(ALLOWED) - {"front"}


@pytest.mark.parametrize("path", all_modules(), ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_a_module_imports_only_the_layers_its_folder_allows(path: Path) -> None:
    assert violations(path) == []


PLANTED = {
    "bare package import": "import mcprobe\n",
    "dotted import": "import mcprobe.engine.audit\n",
    "from-package import": "from mcprobe import cli\n",
    "from-module import": "from mcprobe.server.app import main\n",
    "relative import": "from ..engine import audit\n",
    "dynamic import": "import importlib\nimportlib.import_module('mcprobe.server.app')\n",
    "dunder import": "__import__('mcprobe.engine.fuzz_runner')\n",
    "import inside a function": "def f():\n    from mcprobe.engine import audit\n",
}


@pytest.mark.parametrize("source", PLANTED.values(), ids=list(PLANTED))
def test_a_planted_upward_import_of_each_kind_is_caught(source: str) -> None:
    assert violations_in(source, "mcprobe.client.planted"), f"not caught: {source!r}"


def test_a_planted_clock_import_in_the_core_is_caught() -> None:
    assert violations_in("import time\n", "mcprobe.core.planted") == [
        "imports the I/O or clock module 'time'"
    ]


def test_an_allowed_downward_import_is_not_flagged() -> None:
    source = "from mcprobe.core.model import Finding\nfrom ..client import connection\n"
    assert violations_in(source, "mcprobe.engine.planted") == []


# --------------------------------------------------------------------------- dependencies

ROOT = PACKAGE.parent
SOURCE_TREES = ("mcprobe", "tests", "demo_target", "scripts")
STDLIB = sys.stdlib_module_names
LOCAL = {"mcprobe", "tests", "demo_target", "scripts", "__future__"}


def _python_files() -> list[Path]:
    found: list[Path] = []
    for tree in SOURCE_TREES:
        found += [p for p in (ROOT / tree).rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(found)


def _third_party_imports(path: Path) -> set[str]:
    own = module_name(path) if path.is_relative_to(PACKAGE) else path.stem
    names = imported_modules(path.read_text(encoding="utf-8"), own)
    return {n for n in names if n and n.split(".")[0] not in STDLIB | LOCAL}


def private_imports_in(source: str) -> list[str]:
    """Imports of a private module (a dotted part starting with ``_``) of a third-party package."""
    names = imported_modules(source, "planted")
    return sorted(
        n
        for n in names
        if n.split(".")[0] not in STDLIB | LOCAL
        and any(part.startswith("_") for part in n.split(".")[1:])
    )


@pytest.mark.parametrize("path", _python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_a_private_module_of_a_dependency(path: Path) -> None:
    assert private_imports_in(path.read_text(encoding="utf-8")) == []


def test_a_planted_private_sdk_import_is_caught() -> None:
    assert private_imports_in("from mcp.shared._stream_protocols import ReadStream\n")
    assert private_imports_in("import mcp.client._memory\n")
    assert private_imports_in("from mcp.shared.memory import x\n") == []


def _declared() -> set[str]:
    """The import names of every distribution pyproject.toml declares (runtime and dev)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(config["dependencies"])
    for extra in config.get("optional-dependencies", {}).values():
        requirements += extra
    distributions = {re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0].lower() for r in requirements}
    provided = importlib.metadata.packages_distributions()
    return {
        name
        for name, dists in provided.items()
        if any(d.lower().replace("_", "-") in distributions for d in dists)
    }


def test_every_imported_distribution_is_declared_in_pyproject() -> None:
    declared = _declared()
    undeclared = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in _python_files()
        for name in _third_party_imports(path)
        if name.split(".")[0] not in declared
    }
    assert undeclared == set()
