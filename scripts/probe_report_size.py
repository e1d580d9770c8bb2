"""How big probe_report's result is for an LLM host: spawn mcprobe's stdio MCP server, connect
to a target, call probe_report (fuzz: true) once per requested detail, and print the bytes of
the text content, of the structured content (compact JSON) and of the whole result.

    .venv/bin/python scripts/probe_report_size.py [--detail summary] [--detail full] \
        -- COMMAND [ARG ...]

With no --detail the call sends none (the server's default). Sizes, not timings: the same
target gives the same sizes run after run, up to latencies and the canary's random name.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment


async def _sizes(target: list[str], details: list[str | None]) -> list[dict[str, Any]]:
    # This interpreter's mcprobe; PYTHONPATH is passed on (the SDK's stdio client drops it), so
    # PYTHONPATH=<an older checkout> measures that version.
    env = {
        **get_default_environment(),
        **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mcprobe.server.app"], env=env
    )
    rows: list[dict[str, Any]] = []
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=600) as session,
    ):
        await session.initialize()
        for detail in details:
            connected = await session.call_tool(
                "probe_connect", {"command": target[0], "args": target[1:]}
            )
            cid = (connected.structured_content or {})["connectionId"]
            arguments: dict[str, Any] = {"connectionId": cid, "fuzz": True}
            if detail is not None:
                arguments["detail"] = detail
            result = await session.call_tool("probe_report", arguments)
            await session.call_tool("probe_disconnect", {"connectionId": cid})
            text = "".join(getattr(block, "text", "") for block in result.content)
            structured = json.dumps(result.structured_content, separators=(",", ":"))
            whole = result.model_dump_json(by_alias=True, exclude_none=True)
            markdown = (result.structured_content or {}).get("markdown") or ""
            rows.append(
                {
                    "detail": detail or "(default)",
                    "isError": result.is_error,
                    "text": len(text.encode()),
                    "structured": len(structured.encode()),
                    "markdownInStructured": len(markdown.encode()),
                    "total": len(whole.encode()),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detail", action="append", choices=("summary", "full"))
    parser.add_argument("target", nargs="+", help="the target's command line (after --)")
    args = parser.parse_args()
    details: list[str | None] = list(args.detail or [None])
    for row in anyio.run(_sizes, args.target, details):
        print(json.dumps(row))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
