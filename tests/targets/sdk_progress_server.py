"""An SDK ``MCPServer`` with one read-only tool that reports progress (``ctx.report_progress``)
three times, 0.3 s apart, then answers: the SDK's own progress and cancellation behaviour.

Run as a script it serves stdio; the HTTP tests mount ``build_server().streamable_http_app()``.
"""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations


def build_server() -> MCPServer:
    server = MCPServer(name="sdk-progress", version="1.0.0", log_level="WARNING")

    @server.tool(
        description="Do three steps of work, reporting progress after each.",
        annotations=ToolAnnotations(read_only_hint=True),
    )
    async def work(ctx: Context) -> str:
        for step in range(1, 4):
            await anyio.sleep(0.3)
            await ctx.report_progress(step, 3, f"step {step} of 3")
        return "done"

    return server


if __name__ == "__main__":
    build_server().run()
