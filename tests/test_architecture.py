"""ARCHITECTURE.md's layers hold: each folder of ``mcprobe/`` imports only what its rule allows.

Checked on the source (AST), so a violating import anywhere in a module fails, even one inside a
function body, and in every form: ``import mcprobe``, ``import mcprobe.x.y``, ``from mcprobe
import x``, ``from mcprobe.x import y``, relative imports (``from .. import x``) and dynamic ones
(``importlib.import_module("mcprobe.x")``, ``__import__("mcprobe.x")``). A dynamic import
whose module is not a constant is an error of its own (the check could not see it), except the
library's ``_LAZY`` table, whose values are read as imports.

Beyond the layers: no import circle between modules of the package (function-level and
``TYPE_CHECKING`` imports count: a circle is a circle however late it closes), no module using a
private name (``_x``) of another module or of a dependency, no clock, UUID or ``open()`` in the
pure layers, no development-only distribution imported by shipped code, and no test module
importing another test module (shared helpers live in ``tests/support/``).
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
    "datetime",
    "uuid",
    "io",
    "shutil",
    "tempfile",
}
IMPURE_BUILTINS = {"open", "input", "print", "breakpoint"}  # calls the pure layers never make
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
        elif _is_lazy_table(node):
            assert isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
            names.update(
                v.value
                for v in node.value.values
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
    return names


def _is_lazy_table(node: ast.AST) -> bool:
    """``_LAZY = {"Name": "mcprobe.module", ...}``: the library's lazy attributes."""
    return (
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Dict)
        and any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in node.targets)
    )


def unseen_dynamic_imports(source: str) -> list[str]:
    """Dynamic imports whose module is not a string constant (the layer check cannot see
    them), by line; ``importlib.import_module(_LAZY[...])``-style lookups of the lazy table are
    seen (``_is_lazy_table``) and allowed."""
    tree = ast.parse(source)
    lazy = any(_is_lazy_table(node) for node in ast.walk(tree))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_dynamic_import(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                continue
            if lazy and isinstance(first, ast.Name):
                continue  # the module comes from the lazy table (read as imports above)
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def impure_calls(source: str) -> list[str]:
    """Calls of the builtins that do I/O (``open``, ``print``…), by line."""
    return [
        f"line {node.lineno}: {node.func.id}()"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in IMPURE_BUILTINS
    ]


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in {"__import__", "import_module"}
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def violations(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    return violations_in(source, module_name(path), is_package=path.name == "__init__.py")


def violations_in(source: str, own: str, *, is_package: bool = False) -> list[str]:
    own_layer = layer_of_module(own)
    problems: list[str] = [
        f"a dynamic import it cannot check, {u}" for u in unseen_dynamic_imports(source)
    ]
    if own_layer in PURE_LAYERS:
        problems += [f"calls a builtin that does I/O, {c}" for c in impure_calls(source)]
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


def test_a_planted_uuid_datetime_or_open_in_the_pure_layers_is_caught() -> None:
    assert violations_in("import uuid\n", "mcprobe.report.planted")
    assert violations_in("from datetime import datetime\n", "mcprobe.core.planted")
    assert violations_in("def f():\n    return open('x').read()\n", "mcprobe.core.planted") == [
        "calls a builtin that does I/O, line 2: open()"
    ]
    assert violations_in("def f():\n    return open('x')\n", "mcprobe.client.planted") == []


def test_a_planted_non_constant_dynamic_import_is_caught_anywhere() -> None:
    source = "import importlib\nname = 'mcprobe.server.app'\nimportlib.import_module(name)\n"
    assert violations_in(source, "mcprobe.cli.planted") == [
        "a dynamic import it cannot check, line 3: importlib.import_module(name)"
    ]
    lazy = "import importlib\n_LAZY = {'A': 'mcprobe.server.app'}\nimportlib.import_module(m)\n"
    assert violations_in(lazy, "mcprobe.cli.planted") == []
    assert violations_in(lazy, "mcprobe.client.planted") == [
        "imports 'mcprobe.server.app' from layer 'server'"
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


def _declared(*, extras: bool = True) -> set[str]:
    """The import names of every distribution pyproject.toml declares (runtime, and with
    ``extras`` the optional ones: dev)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(config["dependencies"])
    for extra in config.get("optional-dependencies", {}).values() if extras else ():
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


def test_shipped_code_imports_no_development_only_distribution() -> None:
    """A user's ``pip install mcprobe`` has the runtime dependencies only: an import of a dev
    extra (pytest, hypothesis, uvicorn, markdown-it…) in ``mcprobe/`` fails for them."""
    runtime = _declared(extras=False)
    shipped = [p for p in _python_files() if p.is_relative_to(PACKAGE)]
    dev_only = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in shipped
        for name in _third_party_imports(path)
        if name.split(".")[0] not in runtime
    }
    assert dev_only == set()


# --------------------------------------------------------------------------- the module graph


def module_graph() -> dict[str, set[str]]:
    """Module → the package's modules it imports (every form, at any depth of the source)."""
    modules = {module_name(p): p for p in all_modules()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imported = imported_modules(
            path.read_text(encoding="utf-8"), name, is_package=path.name == "__init__.py"
        )
        graph[name] = {m for m in imported if m in modules and m != name}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(circles)


def test_the_package_has_no_import_circle() -> None:
    assert import_circles(module_graph()) == []


def test_a_planted_import_circle_is_caught() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_circles(graph) == [["a", "b", "c"]]
    assert import_circles({"a": {"b"}, "b": set()}) == []


def private_names_used(source: str, own: str, *, is_package: bool = False) -> list[str]:
    """``from X import _y`` and ``X._y`` (``X`` an imported module) where X is another module of
    the package or a dependency: a private name is its module's own business."""
    tree = ast.parse(source)
    package = own if is_package else own.rpartition(".")[0]
    found: list[str] = []
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                module = f"{base}.{module}" if node.module else base
            if module.split(".")[0] in STDLIB or module == own:
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"from {module} import {alias.name}")
                aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in STDLIB:
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{aliases[node.value.id]}.{node.attr}")
    return sorted(set(found))


@pytest.mark.parametrize("path", all_modules(), ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_module_uses_a_private_name_of_another_module(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert (
        private_names_used(source, module_name(path), is_package=path.name == "__init__.py") == []
    )


def test_a_planted_private_name_of_a_module_or_a_dependency_is_caught() -> None:
    own = "mcprobe.cli.planted"
    assert private_names_used("from mcprobe.cli.commands import _invocation\n", own) == [
        "from mcprobe.cli.commands import _invocation"
    ]
    assert private_names_used("from mcprobe.cli import commands as cli\ncli._x()\n", own) == [
        "mcprobe.cli.commands._x"
    ]
    assert private_names_used("from mcp.shared.session import _helper\n", own) == [
        "from mcp.shared.session import _helper"
    ]
    assert private_names_used("import re\nre._parser\nfrom . import _own\n", own) == [
        "from mcprobe.cli import _own"
    ]
    assert private_names_used("from mcprobe.cli.commands import run\n", own) == []


# --------------------------------------------------------------------------- the tests' tree

TESTS = ROOT / "tests"


def imported_test_modules(path: Path) -> list[str]:
    """The test modules (``test_*.py``) ``path`` imports."""
    own = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return sorted(
        name
        for name in imported_modules(path.read_text(encoding="utf-8"), own)
        if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_")
    )


@pytest.mark.parametrize(
    "path",
    sorted(p for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_test_module_imports_another_test_module(path: Path) -> None:
    """Shared helpers live in tests/support/: a test module imported by another runs its
    module-level code twice and hides which file owns the helper."""
    assert imported_test_modules(path) == []
