"""A 50-tool MCP server (the SDK's ``MCPServer``), the size of a real-world catalogue.

Every tool is annotated read-only, so a default fuzz run calls all of them. They are mostly
well-behaved (the SDK validates arguments), with the faults a large server typically has spread
over many tools, so the report has many places to group: no parameter descriptions anywhere
(the SDK writes none), every seventh tool answers an empty success, every eleventh reports a
failure as plain success text. ``python many_tools.py [N]`` serves N tools (default 50).
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

TOOLS = 50


def _handler(n: int):  # type: ignore[no-untyped-def]
    def lookup(query: str, limit: int = 10) -> str:
        if n % 7 == 3:
            return ""  # an empty success
        if n % 11 == 5:
            return f"Error: index {n} is not loaded"  # failure reported as success
        return f"record {n}: {len(query)} characters searched, up to {limit} hits"

    return lookup


def build_server(tools: int = TOOLS) -> MCPServer:
    server = MCPServer(
        name="many-tools",
        title="Many Tools",
        version="1.0.0",
        instructions="Fifty read-only lookup tools over one catalogue, one per record type.",
        log_level="WARNING",
    )
    for n in range(tools):
        server.tool(
            name=f"lookup_record_type_{n:02d}",
            description=f"Look up records of type {n:02d} matching a free-text query.",
            annotations=ToolAnnotations(read_only_hint=True),
            structured_output=False,  # text only, so an empty string is an empty success
        )(_handler(n))
    return server


if __name__ == "__main__":
    build_server(int(sys.argv[1]) if len(sys.argv) > 1 else TOOLS).run()
