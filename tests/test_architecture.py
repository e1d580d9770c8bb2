"""The layers of ARCHITECTURE.md hold: the pure core imports no I/O, and nothing imports upwards.

Checked on the source (AST), so a violating import anywhere in a module fails, even one inside a
function body.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mcprobe"

PURE_CORE = {
    "model",
    "report_model",
    "schema_dialect",
    "schema_view",
    "lint",
    "lint_rules",
    "cases",
    "values",
    "param_hints",
    "classify",
    "selection",
    "score",
    "report_build",
    "fix_plan",
    "escape",
    "render_markdown",
    "render_json",
    "render_sarif",
    "render_junit",
    "target_spec",
    "target_protocol",
}
IO_LAYER = {
    "target_client",
    "stdio_transport",
    "http_transport",
    "raw_session",
    "wire_events",
    "registry",
    "fuzz_runner",
    "errors",
}
FRONT_ENDS = {"audit", "server", "server_models", "cli", "demo_client", "__init__"}

# Modules that do I/O, keep time or draw randomness: none of them may appear in the pure core.
IMPURE_TOP_LEVEL = {
    "anyio",
    "asyncio",
    "mcp",
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


def imported_names(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_every_module_of_the_package_is_placed_in_a_layer() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    assert modules == PURE_CORE | IO_LAYER | FRONT_ENDS


@pytest.mark.parametrize("module", sorted(PURE_CORE))
def test_a_pure_core_module_imports_neither_io_nor_the_upper_layers(module: str) -> None:
    names = imported_names(module)
    impure = {n for n in names if n.split(".")[0] in IMPURE_TOP_LEVEL}
    upward = {n for n in names if n.startswith("mcprobe.") and n.split(".")[1] not in PURE_CORE}
    assert not impure, f"{module} imports I/O or clock modules: {sorted(impure)}"
    assert not upward, f"{module} imports from an upper layer: {sorted(upward)}"


@pytest.mark.parametrize("module", sorted(IO_LAYER))
def test_the_io_layer_does_not_import_the_front_ends(module: str) -> None:
    upward = {
        n
        for n in imported_names(module)
        if n.startswith("mcprobe.") and n.split(".")[1] in FRONT_ENDS
    }
    assert not upward, f"{module} imports a front-end: {sorted(upward)}"
