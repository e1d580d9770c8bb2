"""The demo target misbehaves exactly as documented (SPEC §9), in-memory over real JSON-RPC.

The SDK's typed client would refuse the demo's malformed tool list, so these tests speak raw
JSON-RPC through ``JSONRPCDispatcher``, the way mcprobe itself does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from anyio.abc import ByteReceiveStream
from mcp import ClientSession, MCPError
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.memory import create_client_server_memory_streams

from demo_target.server import build_server
from mcprobe.core.schema.dialect import instance_errors

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parent.parent
INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"},
}


@asynccontextmanager
async def in_memory(server: Server[Any]) -> AsyncIterator[tuple[Any, Any]]:
    """The client's (read, write) streams to ``server`` running in-process: the SDK's public
    memory streams plus ``server.run`` in a task group (its ``InMemoryTransport`` is private)."""
    async with (
        create_client_server_memory_streams() as (client, (server_read, server_write)),
        anyio.create_task_group() as tg,
    ):
        options = server.create_initialization_options()
        tg.start_soon(server.run, server_read, server_write, options)
        try:
            yield client
        finally:
            tg.cancel_scope.cancel()


@asynccontextmanager
async def raw_demo(*, hazards: bool = False) -> AsyncIterator[JSONRPCDispatcher]:
    async with in_memory(build_server(hazards=hazards)) as (read, write):
        disp = JSONRPCDispatcher(read, write)
        async with ClientSession(dispatcher=disp):
            await disp.send_raw_request("initialize", INIT, {"timeout": 5})
            await disp.notify("notifications/initialized", None)
            yield disp


async def call(disp: JSONRPCDispatcher, name: str, arguments: Any, wait: float = 5) -> Any:
    return await disp.send_raw_request(
        "tools/call", {"name": name, "arguments": arguments}, {"timeout": wait}
    )


def text_of(result: Any) -> str:
    return "".join(block.get("text", "") for block in result["content"])


async def test_tool_list_is_served_raw_including_malformed_schemas() -> None:
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            tools = (await disp.send_raw_request("tools/list", {}, {"timeout": 5}))["tools"]
    names = [t["name"] for t in tools]
    assert names == [
        "greet",
        "divide",
        "set_mode",
        "well_behaved",
        "lookup_user",
        "get_status",
        "ping_backend",
        "open_repo",
        "fetch_page",
        "backup_status",
        "search docs",
        "reset_database",
        "reset_database",
    ]
    by_name = {t["name"]: t for t in tools}
    assert "description" not in by_name["greet"]
    assert by_name["get_status"]["inputSchema"] == {}
    assert tools[-1]["inputSchema"]["type"] == "array"
    assert "annotations" not in tools[-2]
    assert by_name["search docs"]["inputSchema"]["properties"]["limit"]["minimum"] == "one"


async def test_initialize_advertises_tools_resources_prompts_completions_and_no_instructions() -> (
    None
):
    with anyio.fail_after(10):
        async with in_memory(build_server()) as (read, write):
            disp = JSONRPCDispatcher(read, write)
            async with ClientSession(dispatcher=disp):
                init = await disp.send_raw_request("initialize", INIT, {"timeout": 5})
    assert init["capabilities"] == {
        "tools": {"listChanged": False},
        "resources": {"subscribe": False, "listChanged": False},
        "prompts": {"listChanged": False},
        "completions": {},
    }
    assert init["serverInfo"] == {"name": "demo-target", "version": "0.3.0"}
    assert "instructions" not in init


async def test_divide_answers_garbage_instead_of_rejecting_it() -> None:
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            strings = await call(disp, "divide", {"a": "x", "b": "y"})
            missing = await call(disp, "divide", {"a": 1})
            fine = await call(disp, "divide", {"a": 6, "b": 3})
    assert (text_of(strings), strings["isError"]) == ("NaN", False)
    assert (text_of(missing), missing["isError"]) == ("None", False)
    assert text_of(fine) == "2.0"


async def test_greet_accepts_anything_and_defaults_the_name() -> None:
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            assert text_of(await call(disp, "greet", {})) == "Hello, world!"
            assert text_of(await call(disp, "greet", {"name": 7})) == "Hello, 7!"


async def test_set_mode_rejects_bad_input_with_a_jsonrpc_invalid_params_error() -> None:
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            assert text_of(await call(disp, "set_mode", {"mode": "fast"})) == "Mode set to fast."
            with pytest.raises(MCPError) as excinfo:
                await call(disp, "set_mode", {"mode": "turbo"})
    assert excinfo.value.code == -32602


async def test_well_behaved_rejects_invalid_input_with_is_error_and_validates_output() -> None:
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            tools = (await disp.send_raw_request("tools/list", {}, {"timeout": 5}))["tools"]
            bad = await call(disp, "well_behaved", {"text": 1})
            extra = await call(disp, "well_behaved", {"text": "a", "zzz": 1})
            good = await call(disp, "well_behaved", {"text": "hi", "count": 2})
    assert bad["isError"] is True and "is not of type 'string'" in text_of(bad)
    assert extra["isError"] is True
    assert good["structuredContent"] == {"echo": "hi hi", "count": 2}
    schema = next(t for t in tools if t["name"] == "well_behaved")["outputSchema"]
    assert instance_errors(schema, good["structuredContent"]) == ()


async def test_lookup_user_leaks_a_traceback_when_rejecting() -> None:
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            bad = await call(disp, "lookup_user", {"user_id": "x"})
            good = await call(disp, "lookup_user", {"user_id": 3})
    assert bad["isError"] is True
    assert "Traceback (most recent call last)" in text_of(bad)
    assert text_of(good) == "User 3: demo-user-3"


async def test_get_status_structured_content_violates_its_own_output_schema() -> None:
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            tools = (await disp.send_raw_request("tools/list", {}, {"timeout": 5}))["tools"]
            result = await call(disp, "get_status", {})
    schema = next(t for t in tools if t["name"] == "get_status")["outputSchema"]
    assert result["isError"] is False
    assert instance_errors(schema, result["structuredContent"]) != ()


async def test_ping_backend_succeeds_with_no_content_and_rejects_arguments_as_invalid_params() -> (
    None
):
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            empty = await call(disp, "ping_backend", {})
            with pytest.raises(MCPError) as excinfo:
                await call(disp, "ping_backend", {"x": 1})
    assert empty["content"] == [] and empty["isError"] is False
    assert "structuredContent" not in empty
    assert excinfo.value.code == -32602


async def test_unknown_tool_is_rejected_with_invalid_params() -> None:
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            with pytest.raises(MCPError) as excinfo:
                await call(disp, "no_such_tool_xyz", {})
    assert excinfo.value.code == -32602
    assert "Unknown tool" in excinfo.value.message


async def test_hazard_tools_exist_only_when_asked_for_and_hang_never_answers() -> None:
    with anyio.fail_after(10):
        async with raw_demo() as disp:
            plain = (await disp.send_raw_request("tools/list", {}, {"timeout": 5}))["tools"]
        async with raw_demo(hazards=True) as disp:
            hazardous = (await disp.send_raw_request("tools/list", {}, {"timeout": 5}))["tools"]
            with pytest.raises(MCPError) as excinfo:
                await call(disp, "hang", {}, wait=0.2)
    assert {"explode", "hang"}.isdisjoint(t["name"] for t in plain)
    assert {"explode", "hang"} <= {t["name"] for t in hazardous}
    assert excinfo.value.code == -32001


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["--http", "--sse"])
async def test_http_modes_require_the_bearer_token_from_the_named_env_var(mode: str) -> None:
    env = {**os.environ, "DEMO_TARGET_TOKEN": "tok-1234567"}
    argv = [sys.executable, "-m", "demo_target", mode, "0"]
    argv += ["--bearer-token-env", "DEMO_TARGET_TOKEN"]
    with anyio.fail_after(20):
        async with await anyio.open_process(argv, env=env, cwd=ROOT, stderr=None) as proc:
            try:
                assert proc.stdout is not None
                ready = (await _read_line(proc.stdout)).split()
                assert ready[0] == "READY"
                url = ready[1]
                async with httpx2.AsyncClient() as anonymous:
                    denied = await anonymous.post(url, json={})
                assert denied.status_code == 401
                auth = {"Authorization": "Bearer tok-1234567"}
                async with httpx2.AsyncClient(headers=auth) as http:
                    if mode == "--http":
                        async with streamable_http_client(url, http_client=http) as (read, write):
                            greeting = await _greet_over(read, write)
                    else:
                        async with sse_client(url, headers=auth) as (read, write):
                            greeting = await _greet_over(read, write)
            finally:
                proc.terminate()
    assert greeting == "Hello, http!"


async def _read_line(stream: ByteReceiveStream) -> str:
    buf = b""
    while not buf.endswith(b"\n"):
        buf += await stream.receive(1)
    return buf.decode()


async def _greet_over(read: Any, write: Any) -> str:
    disp = JSONRPCDispatcher(read, write)
    async with ClientSession(dispatcher=disp):
        await disp.send_raw_request("initialize", INIT, {"timeout": 5})
        await disp.notify("notifications/initialized", None)
        return text_of(await call(disp, "greet", {"name": "http"}))


async def test_the_demo_has_one_flawed_resource_one_flawed_prompt_and_one_protocol_defect() -> None:
    with anyio.fail_after(10):
        async with in_memory(build_server()) as (read, write):
            disp = JSONRPCDispatcher(read, write)
            async with ClientSession(dispatcher=disp):
                await disp.send_raw_request("initialize", INIT, {"timeout": 5})
                logo = await disp.send_raw_request(
                    "resources/read", {"uri": "demo://docs/logo"}, {"timeout": 5}
                )
                prompt = await disp.send_raw_request(
                    "prompts/get", {"name": "summarise", "arguments": {}}, {"timeout": 5}
                )
                try:
                    await disp.send_raw_request(
                        "completion/complete",
                        {
                            "ref": {"type": "ref/prompt", "name": "summarise"},
                            "argument": {"name": "topic", "value": ""},
                        },
                        {"timeout": 5},
                    )
                except MCPError as exc:
                    completion_code = exc.code
    assert logo["contents"][0]["blob"] == "<not base64>"
    assert prompt["messages"][0]["role"] == "user"  # answered although "topic" is missing
    assert completion_code == -32601
