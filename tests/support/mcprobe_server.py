"""Helpers several test modules share, from tests/server/test_server_tools.py
(no test module imports another)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import Client

from mcprobe.server.app import build_server
from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT


DEMO = {"command": sys.executable, "args": ["-m", "demo_target"], "cwd": str(ROOT)}


@asynccontextmanager
async def mcprobe_client() -> AsyncIterator[Client]:
    async with Client(build_server(), mode="legacy") as client:
        yield client


async def call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, str, Any]:
    result = await client.call_tool(name, arguments)
    text = "".join(getattr(block, "text", "") for block in result.content)
    return result.is_error, text, result.structured_content
