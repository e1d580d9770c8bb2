"""An MCP server on the SDK's low-level ``Server``, served over stdio in the era(s) chosen on the
command line:

    python era_server.py modern      # 2026-07-28 only: initialize is refused with -32601
    python era_server.py dual        # both eras (the SDK's default: the first request decides)
    python era_server.py handshake   # initialize only: server/discover is -32601

The SDK serves both eras on one stdio connection (``Server.run`` → ``serve_dual_era_loop``); the
modern-only and handshake-only servers filter the opening request before the SDK sees it, so
everything else on the wire is the SDK's own 2026-07-28 or 2025-11-25 behaviour.
Extra words: ``no_result_type`` strips ``resultType`` from every modern result (a defect);
``accept_any_version`` answers requests whose ``_meta`` names an unknown version (a defect).
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse

TOOL = types.Tool(
    name="add",
    description="Add two integers and return the sum.",
    input_schema={
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "The first addend."},
            "b": {"type": "integer", "description": "The second addend."},
        },
        "required": ["a", "b"],
        "additionalProperties": False,
    },
    annotations=types.ToolAnnotations(read_only_hint=True),
)


HEADER_TOOL = types.Tool(
    name="region_time",
    description="Say which region a request is routed to (its region is mirrored in a header).",
    input_schema={
        "type": "object",
        "properties": {
            "region": {
                "type": "string",
                "description": "The region, e.g. eu-west.",
                "x-mcp-header": "Region",
            },
        },
        "required": ["region"],
        "additionalProperties": False,
    },
    annotations=types.ToolAnnotations(read_only_hint=True),
)
"""A tool whose argument 2026-07-28 HTTP clients mirror in an ``Mcp-Param-Region`` header (the
SDK's server refuses a call whose header is missing or disagrees with the body)."""


def _lister(tools: list[types.Tool]) -> Any:
    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    return list_tools


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "region_time" and set(args) == {"region"} and isinstance(args["region"], str):
        text = f"routed to {args['region'][:40]}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    if params.name == "region_time":
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="region must be a string")],
            is_error=True,
        )
    if params.name != "add":
        raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name[:40]}")
    a, b = args.get("a"), args.get("b")
    if set(args) != {"a", "b"} or type(a) is not int or type(b) is not int:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="a and b must be integers")],
            is_error=True,
        )
    return types.CallToolResult(content=[types.TextContent(type="text", text=str(a + b))])


def build_server(*, header_tool: bool = False) -> Server[Any]:
    """``header_tool`` adds ``HEADER_TOOL`` (for the 2026-07-28 HTTP tests)."""
    return Server(
        "era-server",
        version="1.0.0",
        title="Era test server",
        instructions="Adds two integers; speaks the protocol era(s) it was started with.",
        on_list_tools=_lister([TOOL, HEADER_TOOL] if header_tool else [TOOL]),
        on_call_tool=call_tool,
    )


def _refusal(request: JSONRPCRequest, what: str) -> SessionMessage:
    return SessionMessage(
        JSONRPCError(
            jsonrpc="2.0",
            id=request.id,
            error=types.ErrorData(code=types.METHOD_NOT_FOUND, message=f"{what} not supported"),
        )
    )


async def main(mode: str, defects: set[str]) -> None:
    server = build_server()
    async with stdio_server() as (read, write):
        to_sdk_send, to_sdk_read = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        from_sdk_send, from_sdk_read = anyio.create_memory_object_stream[SessionMessage](16)

        async def inbound() -> None:
            async with to_sdk_send:
                async for item in read:
                    message = item.message if isinstance(item, SessionMessage) else None
                    if isinstance(message, JSONRPCRequest):
                        params = message.params or {}
                        meta = params.get("_meta") if isinstance(params, dict) else None
                        if mode == "modern" and message.method == "initialize":
                            await write.send(_refusal(message, "initialize"))
                            continue
                        if mode == "handshake" and message.method == "server/discover":
                            await write.send(_refusal(message, "server/discover"))
                            continue
                        if (
                            "accept_any_version" in defects
                            and isinstance(meta, dict)
                            and meta.get("io.modelcontextprotocol/protocolVersion") == "2099-01-01"
                        ):
                            meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
                    await to_sdk_send.send(item)

        async def outbound() -> None:
            async for outgoing in from_sdk_read:
                message = outgoing.message
                if "no_result_type" in defects and isinstance(message, JSONRPCResponse):
                    message.result.pop("resultType", None)
                await write.send(outgoing)

        async with anyio.create_task_group() as tg:
            tg.start_soon(inbound)
            tg.start_soon(outbound)
            await server.run(to_sdk_read, from_sdk_send, server.create_initialization_options())
            tg.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main, sys.argv[1] if len(sys.argv) > 1 else "dual", set(sys.argv[2:]))


def modern_only_http(app: Any) -> Any:
    """Wrap the SDK's Streamable HTTP app (which serves both eras: a request whose
    MCP-Protocol-Version header is not a handshake version goes to its 2026-07-28 handler) so it
    speaks 2026-07-28 only: a POST without such a header (initialize, the 2025 session requests)
    gets a JSON-RPC -32601 error, GET and DELETE get 405 (2026-07-28 has no GET stream and no
    sessions). Everything a 2026-07-28 request meets is the SDK's own handling."""
    import json

    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        version = headers.get("mcp-protocol-version")
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            await app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await send({"type": "http.response.start", "status": 405, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        try:
            rid = json.loads(body).get("id")
        except (ValueError, AttributeError):
            rid = None
        error = {"code": types.METHOD_NOT_FOUND, "message": "only 2026-07-28 is spoken here"}
        payload = json.dumps({"jsonrpc": "2.0", "id": rid, "error": error}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    return wrapped


def handshake_only_http(app: Any) -> Any:
    """The SDK's Streamable HTTP app as a 2025-only server: a request whose MCP-Protocol-Version
    header is not a handshake version gets 400 (what a 2025 server answers a request outside its
    sessions); everything else is the SDK's own handling."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
            }
            version = headers.get("mcp-protocol-version")
            if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
                await send({"type": "http.response.start", "status": 400, "headers": []})
                await send({"type": "http.response.body", "body": b"Bad Request"})
                return
        await app(scope, receive, send)

    return wrapped
