"""Outside the sandbox, a tool that may destroy is never sent the user's real values (the paths
the server was started with, values a refusal lists), even with consent to call it: consent to a
destructive call is consent to mcprobe's placeholders (``selection.real_values_allowed``)."""

from __future__ import annotations

import anyio

from mcprobe.core.model import JSON, RawCall
from mcprobe.engine.fuzz_runner import run_fuzz
from tests.support.fake_target import FakeTarget, ok_text, snapshot_of, tool_error

REAL = "/srv/user-docs/notes.txt"


def _path_tool(name: str, annotations: JSON) -> dict[str, JSON]:
    return {
        "name": name,
        "description": "Works on one file.",
        "annotations": annotations,
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "The file path."}},
            "required": ["path"],
        },
    }


TOOLS = (
    _path_tool("read_file", {"readOnlyHint": True}),
    _path_tool("delete_file", {"readOnlyHint": False, "destructiveHint": True}),
)


def _valid_paths(target: FakeTarget) -> dict[str, set[str]]:
    sent: dict[str, set[str]] = {}
    for name, arguments in target.calls:
        if isinstance(arguments, dict) and isinstance(arguments.get("path"), str):
            sent.setdefault(name, set()).add(arguments["path"])
    return sent


def _audit(*, isolated: bool, respond: object = None) -> dict[str, set[str]]:
    target = FakeTarget(snapshot_of(TOOLS), respond=respond)  # type: ignore[arg-type]

    async def go() -> None:
        await run_fuzz(
            target,
            TOOLS,
            fuzz_destructive=True,
            isolated=isolated,
            discovered={"path": (REAL,)},
        )

    anyio.run(go)
    return _valid_paths(target)


def test_a_destructive_tool_outside_the_sandbox_gets_no_discovered_real_path() -> None:
    sent = _audit(isolated=False)
    assert REAL in sent["read_file"]
    assert REAL not in sent["delete_file"]


def test_inside_the_sandbox_the_destructive_tool_gets_the_private_copy_of_the_path() -> None:
    assert REAL in _audit(isolated=True)["delete_file"]


def test_a_listed_value_is_not_retried_on_a_destructive_tool_outside_the_sandbox() -> None:
    async def refuse(name: str, arguments: JSON) -> RawCall:
        if isinstance(arguments, dict) and arguments.get("path") == "precious.txt":
            return ok_text("deleted")
        return tool_error("unknown file 'example.txt'; files: precious.txt, other.txt")

    async def go(isolated: bool) -> set[str]:
        tools = (TOOLS[1],)
        target = FakeTarget(snapshot_of(tools), respond=refuse)
        await run_fuzz(target, tools, fuzz_destructive=True, isolated=isolated)
        return _valid_paths(target).get("delete_file", set())

    assert "precious.txt" not in anyio.run(go, False)
    assert "precious.txt" in anyio.run(go, True)
