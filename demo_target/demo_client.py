"""The demo, as a host would run it: spawn mcprobe's stdio MCP server, ``probe_connect`` to the
demo target, ``probe_report`` with fuzz, print the Markdown, ``probe_disconnect``.

``scripts/demo`` runs ``python -m demo_target.demo_client``; progress goes to stderr, the report to
stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import Implementation

import mcprobe

__all__ = ["default_mcprobe_command", "demo_target_command", "main", "run_demo"]


def default_mcprobe_command() -> list[str]:
    """The installed ``mcprobe`` console script next to this interpreter, else
    ``python -m mcprobe.server.app``."""
    script = Path(sys.executable).with_name("mcprobe")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "mcprobe.server.app"]


def demo_target_command() -> list[str]:
    return [sys.executable, "-m", "demo_target"]


class DemoFailed(Exception):
    """A probe_* call came back with isError (the message says which and why)."""


async def _call(session: ClientSession, name: str, arguments: dict[str, Any], **kw: Any) -> Any:
    result = await session.call_tool(name, arguments, **kw)
    if result.is_error:
        text = "".join(getattr(block, "text", "") for block in result.content)
        raise DemoFailed(text)
    return result.structured_content


async def run_demo(
    *,
    mcprobe_command: Sequence[str] | None = None,
    target_command: Sequence[str] | None = None,
    cwd: str | None = None,
    progress_out: TextIO | None = None,
    sandbox: str | None = None,
) -> dict[str, Any]:
    """Run the demo and return ``probe_report``'s structured content (the full report), its
    ``markdown`` filled from the text content."""
    server = list(mcprobe_command or default_mcprobe_command())
    target = list(target_command or demo_target_command())
    params = StdioServerParameters(command=server[0], args=server[1:], cwd=cwd)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if progress_out is not None and message:
            print(f"  {message}", file=progress_out, flush=True)

    async with (
        stdio_client(params) as (read, write),
        ClientSession(
            read,
            write,
            read_timeout_seconds=120,
            client_info=Implementation(name="mcprobe-demo", version=mcprobe.__version__),
        ) as session,
    ):
        await session.initialize()
        connected = await _call(
            session,
            "probe_connect",
            {
                "command": target[0],
                "args": target[1:],
                **({"cwd": cwd} if cwd else {}),
                **({"sandbox": sandbox} if sandbox else {}),
            },
        )
        connection_id = connected["connectionId"]
        try:
            result = await session.call_tool(
                "probe_report",
                {"connectionId": connection_id, "fuzz": True, "detail": "full"},
                progress_callback=on_progress,
            )
            text = "".join(getattr(block, "text", "") for block in result.content)
            if result.is_error:
                raise DemoFailed(text)
            # The server sends the Markdown once, as the text content.
            report: dict[str, Any] = {**(result.structured_content or {}), "markdown": text}
        finally:
            await _call(session, "probe_disconnect", {"connectionId": connection_id})
    return report


def main() -> None:
    report = anyio.run(lambda: run_demo(progress_out=sys.stderr))
    sys.stdout.write(report["markdown"])


if __name__ == "__main__":
    main()
