"""probe_connect's ``clientCapabilities`` and ``protocol``: the CLI's ``--client-capabilities``
and ``--protocol`` on the MCP server, driven through mcprobe's real stdio server process against
a server that lists a tool only to clients declaring roots (tests/targets/surface_server.py
``roots_tool``) and the SDK era server (tests/targets/era_server.py: modern-only and dual)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, get_args

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from mcprobe.core.client_capabilities import (
    CLIENT_CAPABILITIES,
    ClientCapability,
    describe_capabilities,
)
from mcprobe.core.target_spec import PROTOCOL_CHOICES, ProtocolChoice
from mcprobe.server.models import ConnectInput
from tests.support.paths import REPO_ROOT

pytestmark = pytest.mark.anyio

MCPROBE = StdioServerParameters(
    command=sys.executable, args=["-m", "mcprobe.server.app"], cwd=str(REPO_ROOT)
)
TARGETS = REPO_ROOT / "tests" / "targets"


def _surface(*words: str) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(TARGETS / "surface_server.py"), "roots_tool", "echo_caps", *words],
    }


def _era(mode: str) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(TARGETS / "era_server.py"), mode],
        "connectTimeoutSeconds": 20,
    }


@asynccontextmanager
async def mcprobe_session() -> AsyncIterator[ClientSession]:
    """mcprobe's MCP server as a subprocess over real stdio, as a host starts it."""
    async with stdio_client(MCPROBE) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def _call(
    session: ClientSession, name: str, arguments: dict[str, Any]
) -> tuple[bool, str, Any]:
    result = await session.call_tool(name, arguments)
    text = "".join(getattr(block, "text", "") for block in result.content)
    return bool(result.is_error), text, result.structured_content


def _tool_count(connected: dict[str, Any]) -> int:
    count: int = connected["counts"]["tools"]
    return count


def test_the_input_choices_are_the_catalogues_and_the_clis() -> None:
    assert get_args(ClientCapability) == tuple(CLIENT_CAPABILITIES)
    assert get_args(ProtocolChoice) == PROTOCOL_CHOICES
    from mcprobe.cli.audit_args import audit_parser  # the CLI's own --protocol choices

    parser = audit_parser(sys.stdout)
    (action,) = [a for a in parser._actions if "--protocol" in a.option_strings]
    assert tuple(action.choices or ()) == PROTOCOL_CHOICES
    schema = ConnectInput.model_json_schema(by_alias=True)["properties"]
    assert "clientCapabilities" in schema and "protocol" in schema


async def test_client_capabilities_decide_what_initialize_declares_and_which_tools_show() -> None:
    with anyio.fail_after(90):
        async with mcprobe_session() as session:
            # The default: all three, so the roots-only tool shows (as with --client-capabilities
            # left out).
            error, text, default = await _call(session, "probe_connect", _surface())
            assert not error, text
            assert default["clientCapabilities"] == ["roots", "elicitation", "sampling"]
            assert default["era"] == "handshake"
            assert _tool_count(default) == 2
            assert json.loads(default["instructions"]) == {
                "elicitation": {"form": {}},
                "roots": {"listChanged": False},
                "sampling": {},
            }
            # A subset, in any order and with repeats: declared once each, in catalogue order.
            error, text, some = await _call(
                session,
                "probe_connect",
                _surface() | {"clientCapabilities": ["sampling", "elicitation", "sampling"]},
            )
            assert not error, text
            assert some["clientCapabilities"] == ["elicitation", "sampling"]
            assert json.loads(some["instructions"]) == {"elicitation": {"form": {}}, "sampling": {}}
            assert _tool_count(some) == 1  # no roots: the gated tool is not listed
            # [] is --client-capabilities none.
            error, text, none = await _call(
                session, "probe_connect", _surface() | {"clientCapabilities": []}
            )
            assert not error, text
            assert none["clientCapabilities"] == [] and json.loads(none["instructions"]) == {}
            assert _tool_count(none) == 1 and "declared client capabilities: none" in text
            # roots alone shows the tool again, and the report says what was declared.
            error, text, roots = await _call(
                session, "probe_connect", _surface() | {"clientCapabilities": ["roots"]}
            )
            assert not error, text
            assert _tool_count(roots) == 2
            error, text, report = await _call(
                session, "probe_report", {"connectionId": roots["connectionId"]}
            )
            assert not error, text
            assert report["target"]["clientCapabilities"] == describe_capabilities(["roots"])
            assert "- mcprobe declared client capabilities: roots (answers roots/list" in text
            await _call(session, "probe_disconnect", {"all": True})


async def test_protocol_chooses_the_era_on_the_sdk_era_servers() -> None:
    with anyio.fail_after(120):
        async with mcprobe_session() as session:
            # modern-only: auto falls back to 2026-07-28, modern goes straight there.
            for arguments in (_era("modern"), _era("modern") | {"protocol": "modern"}):
                error, text, modern = await _call(session, "probe_connect", arguments)
                assert not error, text
                assert modern["era"] == "modern" and modern["protocolVersion"] == "2026-07-28"
                assert modern["clientCapabilities"] == []  # 2026-07-28 has no initialize
                assert _tool_count(modern) == 1 and "modern era" in text
            error, text, report = await _call(session, "probe_report", {})
            assert not error, text
            assert (report["server"]["era"], report["server"]["eras"]) == ("modern", ["modern"])
            # handshake refuses to speak 2026-07-28: a clear isError, and mcprobe stays up.
            error, text, _ = await _call(
                session, "probe_connect", _era("modern") | {"protocol": "handshake"}
            )
            assert error and "initialize was rejected" in text
            assert "use protocol auto (CLI: --protocol auto)" in text  # what to do about it
            assert len(text.strip().splitlines()) == 1
            # a dual-era server is met in the era asked for.
            error, text, dual = await _call(session, "probe_connect", _era("dual"))
            assert not error and dual["era"] == "handshake", text
            error, text, dual = await _call(
                session, "probe_connect", _era("dual") | {"protocol": "modern"}
            )
            assert not error and dual["era"] == "modern", text
            error, text, closed = await _call(session, "probe_disconnect", {"all": True})
            assert not error and len(closed["removed"]) == 4


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"clientCapabilities": ["roots", "telepathy"]},
            "clientCapabilities.1: Input should be 'roots', 'elicitation' or 'sampling'",
        ),
        ({"clientCapabilities": "roots"}, "clientCapabilities: Input should be a valid list"),
        ({"clientCapabilities": "none"}, "clientCapabilities: Input should be a valid list"),
        ({"protocol": "2026-07-28"}, "protocol: Input should be 'auto', 'handshake' or 'modern'"),
        ({"protocol": None}, "protocol: Input should be 'auto', 'handshake' or 'modern'"),
    ],
)
async def test_a_bad_value_is_a_one_line_is_error_naming_the_field_and_the_choices(
    arguments: dict[str, Any], expected: str
) -> None:
    with anyio.fail_after(60):
        async with mcprobe_session() as session:
            error, text, _ = await _call(session, "probe_connect", _surface() | arguments)
            assert error and expected in text, text
            assert len(text.strip().splitlines()) == 1
            assert "telepathy" not in text and "2026-07-28" not in text  # values never echoed
            # nothing was started
            error, text, closed = await _call(session, "probe_disconnect", {"all": True})
            assert not error and closed["removed"] == []
