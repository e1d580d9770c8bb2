"""A minimal, well-behaved MCP server built on the SDK's ``MCPServer``.

Run as a script it serves stdio; tests that need HTTP or SSE import ``build_server()`` and mount
``streamable_http_app()`` / ``sse_app()`` under uvicorn themselves.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations


def build_server() -> MCPServer:
    server = MCPServer(
        name="sdk-target",
        title="SDK Target",
        version="1.2.3",
        instructions="A tiny well-behaved target for mcprobe's tests.",
        log_level="WARNING",
    )

    @server.tool(
        description="Add two integers and return their sum.",
        annotations=ToolAnnotations(read_only_hint=True),
    )
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Always fails with a clean tool error.")
    def refuse(reason: str) -> str:
        raise ToolError(f"refused: {reason}")

    return server


if __name__ == "__main__":
    build_server().run()
