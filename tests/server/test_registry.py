"""The connection registry: owner tasks in a task group, real stdio targets."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from mcprobe.core.errors import ConnectFailed, UnknownConnection
from mcprobe.core.model import RawKind
from mcprobe.core.target_spec import TargetSpec
from mcprobe.server.registry import ConnectionRegistry
from tests.targets import RAWSERVER
from tests.targets.processes import group_gone

pytestmark = pytest.mark.anyio


def spec(*argv: str) -> TargetSpec:
    return TargetSpec(
        "stdio", command=sys.executable, args=(str(RAWSERVER), *argv), connect_timeout=5.0
    )


@asynccontextmanager
async def registry() -> AsyncIterator[ConnectionRegistry]:
    """A registry inside a task group, closed like the server's lifespan closes it."""
    async with anyio.create_task_group() as tg:
        reg = ConnectionRegistry(tg)
        try:
            yield reg
        finally:
            await reg.aclose()


async def test_three_concurrent_connections_are_used_and_closed_in_any_order() -> None:
    with anyio.fail_after(20):
        async with registry() as reg:
            async with anyio.create_task_group() as tg:
                for _ in range(3):
                    tg.start_soon(reg.connect, spec())
            assert sorted(reg.ids()) == ["c1", "c2", "c3"]
            a, b, c = (reg.get(cid) for cid in ("c1", "c2", "c3"))
            for conn in (a, b, c):
                call = await conn.target.call_tool("echo", {"x": conn.id})
                assert call.kind is RawKind.RESULT
                assert conn.id in call.result["content"][0]["text"]
            pids: dict[str, int] = {}
            for conn in (a, b, c):
                assert conn.target.pid is not None
                pids[conn.id] = conn.target.pid

            assert await reg.disconnect("c2") == ["c2"]
            assert group_gone(pids["c2"]) and not group_gone(pids["c1"])
            assert await reg.disconnect("c1") == ["c1"]
            assert group_gone(pids["c1"]) and not group_gone(pids["c3"])
            assert reg.ids() == ["c3"]
            still = await c.target.call_tool("echo", {})
            assert still.kind is RawKind.RESULT
            assert await reg.disconnect("c3") == ["c3"]
            assert reg.ids() == []
    assert all(group_gone(pid) for pid in pids.values())


async def test_the_default_connection_is_the_most_recent_still_open_one() -> None:
    with anyio.fail_after(20):
        async with registry() as reg:
            assert reg.default_id is None
            first = await reg.connect(spec())
            second = await reg.connect(spec())
            assert (first.id, second.id) == ("c1", "c2")
            assert reg.default_id == "c2"
            assert reg.get() is second
            assert await reg.disconnect() == ["c2"]
            assert reg.default_id == "c1"
            assert reg.get() is first
            third = await reg.connect(spec())
            assert third.id == "c3" and reg.default_id == "c3"


async def test_an_unknown_id_names_the_open_connections() -> None:
    with anyio.fail_after(20):
        async with registry() as reg:
            with pytest.raises(UnknownConnection) as none_open:
                reg.get()
            await reg.connect(spec())
            await reg.connect(spec())
            with pytest.raises(UnknownConnection) as unknown:
                reg.get("c9")
            with pytest.raises(UnknownConnection):
                await reg.disconnect("c9")
    assert str(none_open.value) == "no open connection; call probe_connect first"
    assert str(unknown.value) == "unknown connection id 'c9'; open connections: c1, c2"
    assert unknown.value.open_ids == ["c1", "c2"]


async def test_disconnecting_a_dead_target_completes() -> None:
    with anyio.fail_after(20):
        async with registry() as reg:
            conn = await reg.connect(spec())
            call = await conn.target.call_tool("die", {})
            assert call.kind is RawKind.TRANSPORT_LOST
            assert not conn.alive
            assert reg.ids() == ["c1"]  # a dead target stays listed until disconnected
            assert await reg.disconnect("c1") == ["c1"]
            assert reg.ids() == []


async def test_disconnecting_a_hung_target_completes_and_kills_it() -> None:
    with anyio.fail_after(20):
        async with registry() as reg:
            conn = await reg.connect(spec("ignore_term"))
            pid = conn.target.pid
            assert pid is not None
            hung = await conn.target.call_tool("hang", {}, timeout=0.2)
            assert hung.kind is RawKind.TIMEOUT
            assert await reg.disconnect() == ["c1"]
            assert group_gone(pid)


async def test_a_failed_connect_raises_to_the_caller_and_leaves_the_registry_working() -> None:
    with anyio.fail_after(20):
        async with registry() as reg:
            with pytest.raises(ConnectFailed, match="No such file or directory"):
                await reg.connect(TargetSpec("stdio", command="/nonexistent/target"))
            with pytest.raises(ConnectFailed, match="exited with code 3"):
                await reg.connect(spec("exit_at_start"))
            conn = await reg.connect(spec())
            assert conn.id == "c1"
            assert (await conn.target.call_tool("echo", {})).kind is RawKind.RESULT


async def test_disconnect_all_and_aclose_close_everything() -> None:
    with anyio.fail_after(20):
        async with registry() as reg:
            opened = [await reg.connect(spec()) for _ in range(2)]
            assert await reg.disconnect(all=True) == ["c1", "c2"]
            assert reg.ids() == [] and reg.default_id is None
            last = await reg.connect(spec())
        # leaving the registry() block ran aclose()
        assert reg.ids() == []
    pids = [conn.target.pid for conn in [*opened, last]]
    assert all(pid is not None and group_gone(pid) for pid in pids)
