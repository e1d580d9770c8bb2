"""The target client against real processes over real stdio, and real HTTP/SSE on 127.0.0.1."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

from mcprobe.client.connection import TargetConnection, open_target
from mcprobe.core.errors import ConnectFailed
from mcprobe.core.model import RawKind
from mcprobe.core.target_protocol import Target
from mcprobe.core.target_spec import TargetSpec
from tests.targets import RAWSERVER, SDK_SERVER
from tests.targets.hostile_http import serve
from tests.targets.processes import _stat, group_gone
from tests.targets.sdk_server import build_server

pytestmark = pytest.mark.anyio

PY = sys.executable
SLACK = 5.0
"""Added to every upper time bound: a loaded 2-core machine stalls processes for seconds. The
bounds prove "bounded, not hung"; the quick-close bound stays below the EOF grace instead."""


def raw_spec(*argv: str, connect_timeout: float = 5.0, **kwargs: Any) -> TargetSpec:
    return TargetSpec(
        "stdio",
        command=PY,
        args=(str(RAWSERVER), *argv),
        connect_timeout=connect_timeout,
        call_timeout=5.0,
        **kwargs,
    )


def sdk_spec() -> TargetSpec:
    return TargetSpec("stdio", command=PY, args=(str(SDK_SERVER),), connect_timeout=10.0)


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (a zombie waiting for its reaper counts as gone)."""
    stat = _stat(str(pid))
    return stat is None or stat[0] in ("Z", "X")


def read_pids(pidfile: Path) -> list[int]:
    return [int(p) for p in pidfile.read_text().split()]


async def wait_for_file(path: Path) -> None:
    target = anyio.Path(path)
    with anyio.fail_after(30):  # a process start on a loaded machine, not a timed check
        while not await target.exists() or not (await target.read_text()).strip():  # noqa: ASYNC110
            await anyio.sleep(0.01)


# --------------------------------------------------------------------------- stdio: happy path


async def test_a_well_behaved_sdk_target_is_listed_called_and_closed_quickly() -> None:
    # One spawn for several checks: the SDK target alone takes ~0.5-3 s to import.
    with anyio.fail_after(20):
        async with open_target(sdk_spec()) as target:
            snap = target.snapshot
            ok = await target.call_tool("add", {"a": 2, "b": 3})
            refused = await target.call_tool("refuse", {"reason": "no"})
            assert target.alive
            pid = target.pid
            assert pid is not None
            closing = time.monotonic()
    # An MCPServer takes ~0.5-1.8 s to exit on EOF; the close sequence is at most ~2.5 s.
    assert time.monotonic() - closing < 2.5 + SLACK
    assert group_gone(pid)
    assert (snap.name, snap.version, snap.title) == ("sdk-target", "1.2.3", "SDK Target")
    assert snap.protocol_version == "2025-11-25"
    assert snap.instructions == "A tiny well-behaved target for mcprobe's tests."
    assert snap.server_info["name"] == "sdk-target"
    assert "tools" in snap.capabilities
    assert [t["name"] for t in snap.tools] == ["add", "refuse"]
    assert snap.prompts_count == 0 and snap.resources_count == 0
    assert ok.kind is RawKind.RESULT
    assert ok.result["structuredContent"] == {"result": 5}
    assert ok.latency_ms > 0
    assert refused.kind is RawKind.RESULT  # isError is a result, not an exception
    assert refused.result["isError"] is True
    assert "refused: no" in refused.result["content"][0]["text"]


async def test_jsonrpc_error_reply_keeps_code_message_and_data() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec()) as target:
            call = await target.call_tool("rpc_error", {})
    assert call.kind is RawKind.JSONRPC_ERROR
    assert (call.error_code, call.error_message) == (-32602, "x must be a number")
    assert call.error_data == {"field": "x"}


async def test_genuine_minus_32000_error_reply_from_a_live_target_is_a_jsonrpc_error() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec()) as target:
            call = await target.call_tool("fake_closed", {})
            assert target.alive
    assert call.kind is RawKind.JSONRPC_ERROR
    assert call.error_code == -32000


async def test_call_that_never_answers_times_out_and_the_session_stays_usable() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec()) as target:
            started = time.monotonic()
            call = await target.call_tool("hang", {}, timeout=0.5)
            elapsed = time.monotonic() - started
            after = await target.call_tool("echo", {"x": "still here"})
    assert call.kind is RawKind.TIMEOUT
    assert 0.45 <= elapsed < 0.5 + SLACK
    assert after.kind is RawKind.RESULT


async def test_target_dying_mid_call_is_transport_lost_and_not_alive() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec()) as target:
            call = await target.call_tool("die", {})
            assert not target.alive
            later = await target.call_tool("echo", {})
    assert call.kind is RawKind.TRANSPORT_LOST
    assert call.detail == "target exited with code 7"
    assert later.kind is RawKind.TRANSPORT_LOST


async def test_unknown_fields_and_schema_violating_structured_content_are_kept_intact() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec()) as target:
            call = await target.call_tool("weird", {})
            weird_tool = next(t for t in target.snapshot.tools if t["name"] == "weird")
    assert call.kind is RawKind.RESULT
    assert call.result["x-unknown"] == {"a": 1}
    assert call.result["structuredContent"] == {"n": "not an int"}
    assert weird_tool["outputSchema"]["properties"]["n"] == {"type": "integer"}


async def test_unknown_server_info_fields_survive_in_the_snapshot() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec()) as target:
            assert target.snapshot.server_info["x-vendor"] == "kept"
            assert target.snapshot.prompts_count == 2
            assert target.snapshot.resources_count is None  # not advertised


async def test_an_initialize_result_breaking_the_schema_is_a_finding_not_a_failure() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec("no_version")) as target:
            snap = target.snapshot
            call = await target.call_tool("echo", {})
    assert (snap.name, snap.version) == ("raw", None)
    assert [f.code for f in snap.listing_findings] == ["server.invalid_initialize"]
    assert "serverInfo/version" in snap.listing_findings[0].message
    assert call.kind is RawKind.RESULT


# --------------------------------------------------------------------------- listing


async def test_malformed_tools_are_kept_among_the_good_ones() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec("malformed_tool")) as target:
            tools = target.snapshot.tools
    assert "not-an-object" in tools
    assert {"name": "no_schema", "description": "lacks inputSchema"} in tools
    assert any(isinstance(t, dict) and t.get("name") == "echo" for t in tools)


async def test_tools_are_collected_across_three_pages() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec("pages3")) as target:
            names = [t["name"] for t in target.snapshot.tools]
            findings = target.snapshot.listing_findings
    assert names[:2] == ["echo", "fail"] and len(names) > 3
    assert findings == ()


async def test_a_repeated_cursor_stops_listing_with_a_pagination_loop_finding() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec("cursor_repeat")) as target:
            names = [t["name"] for t in target.snapshot.tools]
            codes = [f.code for f in target.snapshot.listing_findings]
    assert names == ["echo", "fail"]
    assert codes == ["server.pagination_loop"]


async def test_an_endless_cursor_stops_at_the_page_cap() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec("cursor_endless"), page_cap=5) as target:
            names = [t["name"] for t in target.snapshot.tools]
            codes = [f.code for f in target.snapshot.listing_findings]
    assert names == ["t1", "t2", "t3", "t4", "t5"]
    assert codes == ["server.pagination_cap"]


# --------------------------------------------------------------------------- connect failures


async def test_missing_executable_fails_with_a_clear_message() -> None:
    spec = TargetSpec("stdio", command="/nonexistent/mcp-target", connect_timeout=5)
    with anyio.fail_after(5), pytest.raises(ConnectFailed) as info:
        async with open_target(spec):
            pass
    assert str(info.value) == "could not start `/nonexistent/mcp-target`: No such file or directory"


async def test_target_exiting_at_start_is_reported_with_its_exit_code_and_stderr() -> None:
    with anyio.fail_after(10), pytest.raises(ConnectFailed) as info:
        async with open_target(raw_spec("exit_at_start")):
            pass
    message = str(info.value)
    assert message.startswith("target exited with code 3 before answering initialize")
    assert "fatal: config file /etc/target.toml missing" in message
    assert "config file" in info.value.stderr_tail


async def test_env_secret_printed_by_a_failing_target_is_scrubbed() -> None:
    spec = raw_spec("leak_env_exit", env={"PROBE_TOKEN": "s3cr3t-value"})
    with anyio.fail_after(10), pytest.raises(ConnectFailed) as info:
        async with open_target(spec):
            pass
    assert "token=[redacted]" in str(info.value)
    assert "s3cr3t-value" not in str(info.value)
    assert "s3cr3t-value" not in info.value.stderr_tail


async def test_silent_target_fails_within_the_connect_timeout_and_its_group_is_killed(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pids"
    spec = raw_spec("silent", "ignore_term", f"pidfile={pidfile}", connect_timeout=1.0)
    started = time.monotonic()
    with anyio.fail_after(10), pytest.raises(ConnectFailed) as info:
        async with open_target(spec):
            pass
    elapsed = time.monotonic() - started
    assert str(info.value) == "no answer to initialize within 1.0 s"
    assert elapsed < 1.0 + 2.5 + SLACK
    leader, child = read_pids(pidfile)
    assert group_gone(leader)
    assert process_gone(leader) and process_gone(child)


async def test_target_ignoring_sigterm_and_its_child_are_both_gone_after_close(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pids"
    with anyio.fail_after(10):
        async with open_target(raw_spec("ignore_term", f"pidfile={pidfile}")) as target:
            await wait_for_file(pidfile)
            leader, child = read_pids(pidfile)
            assert target.pid == leader
            assert not process_gone(child)
            started = time.monotonic()
    close_seconds = time.monotonic() - started
    assert close_seconds < 2.5 + SLACK
    assert group_gone(leader)
    assert process_gone(leader) and process_gone(child)


# --------------------------------------------------------------------------- stdio: adopted


async def test_a_target_started_before_the_connect_is_adopted_not_started_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import mcprobe.client.transports.stdio as stdio_transport

    spec = raw_spec()
    assert spec.command is not None
    popen = stdio_transport.spawn_target(spec.command, spec.args, env={}, cwd=None)

    def no_second_start(*_: object, **__: object) -> None:
        raise AssertionError("the transport started a second target")

    monkeypatch.setattr(stdio_transport, "spawn_target", no_second_start)
    with anyio.fail_after(10):
        async with open_target(spec, started=popen) as target:
            assert target.pid == popen.pid
            call = await target.call_tool("echo", {"text": "hi"})
    assert call.kind is RawKind.RESULT
    assert popen.returncode is not None  # stopped and reaped by the transport
    assert group_gone(popen.pid)


async def test_an_adopted_target_that_never_answers_is_gone_with_its_child_after_the_timeout(
    tmp_path: Path,
) -> None:
    from mcprobe.client.transports.stdio import spawn_target

    pidfile = tmp_path / "pids"
    spec = raw_spec("silent", "ignore_term", f"pidfile={pidfile}", connect_timeout=1.0)
    assert spec.command is not None
    popen = spawn_target(spec.command, spec.args, env={}, cwd=None)
    started = time.monotonic()
    with anyio.fail_after(10), pytest.raises(ConnectFailed) as info:
        async with open_target(spec, started=popen):
            pass
    assert str(info.value) == "no answer to initialize within 1.0 s"
    assert time.monotonic() - started < 1.0 + 2.5 + SLACK
    leader, child = read_pids(pidfile)
    assert leader == popen.pid
    assert group_gone(leader)
    assert process_gone(leader) and process_gone(child)


async def test_a_started_target_handed_to_a_failing_connect_is_still_killed() -> None:
    from mcprobe.client.transports.stdio import spawn_target

    spec = raw_spec("silent")
    assert spec.command is not None
    popen = spawn_target(spec.command, spec.args, env={}, cwd=None)
    # An HTTP spec never reaches the stdio transport: open_target must still own the process.
    http = TargetSpec("http", url="http://127.0.0.1:9/mcp", connect_timeout=1.0)
    with anyio.fail_after(10), pytest.raises(ConnectFailed):
        async with open_target(http, started=popen):
            pass
    assert popen.returncode is not None
    assert group_gone(popen.pid)


def test_spawn_target_reports_a_missing_command_and_a_missing_cwd() -> None:
    from mcprobe.client.transports.stdio import spawn_target

    with pytest.raises(ConnectFailed, match="could not start `/no/such/binary`: No such file"):
        spawn_target("/no/such/binary", (), env={}, cwd=None)
    with pytest.raises(ConnectFailed, match="working directory '/no/such/dir' not found"):
        spawn_target(PY, (), env={}, cwd="/no/such/dir")


async def test_closing_a_target_that_exits_on_eof_is_quick() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec()) as target:
            pid = target.pid
            assert pid is not None
            closing = time.monotonic()
    # Below the 1 s EOF grace (0.5 s before): a close that missed the exit would wait it out.
    assert time.monotonic() - closing < 1.0
    assert group_gone(pid)


async def test_env_and_cwd_reach_the_target_but_the_parent_environment_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPROBE_TEST_PARENT_SECRET", "parent-only")
    spec = raw_spec(env={"PROBE_TOKEN": "hello"}, cwd=str(tmp_path))
    with anyio.fail_after(10):
        async with open_target(spec) as target:
            call = await target.call_tool("env", {})
    assert call.result["structuredContent"] == {
        "probeVar": "hello",
        "parentSecret": None,
        "cwd": str(tmp_path),
    }


async def test_missing_working_directory_fails_with_a_clear_message(tmp_path: Path) -> None:
    spec = raw_spec(cwd=str(tmp_path / "nope"))
    with anyio.fail_after(5), pytest.raises(ConnectFailed) as info:
        async with open_target(spec):
            pass
    assert "working directory" in str(info.value) and "not found" in str(info.value)


# --------------------------------------------------------------------------- misbehaviour


async def test_garbage_on_stdout_is_a_counted_session_finding_not_a_crash() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec("banner")) as target:
            call = await target.call_tool("noisy", {})
            findings = target.session_findings()
    assert call.kind is RawKind.RESULT
    assert [f.code for f in findings] == ["server.stdout_noise"]
    assert "3 non-JSON-RPC line(s)" in findings[0].message


async def test_an_invalid_reply_is_transport_lost_with_a_finding_and_the_session_survives() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec()) as target:
            call = await target.call_tool("invalid_reply", {})
            after = await target.call_tool("echo", {})
            codes = [f.code for f in target.session_findings()]
    assert call.kind is RawKind.TRANSPORT_LOST
    assert call.detail is not None and "result is a JSON list" in call.detail
    assert after.kind is RawKind.RESULT
    assert codes == ["server.invalid_message"]


async def test_an_oversize_reply_is_dropped_with_a_note_and_the_session_survives() -> None:
    with anyio.fail_after(20):
        async with open_target(raw_spec(), max_response_bytes=1024 * 1024) as target:
            call = await target.call_tool("huge", {}, timeout=15)
            after = await target.call_tool("echo", {})
            codes = [f.code for f in target.session_findings()]
    assert call.kind is RawKind.RESULT
    assert call.result is None
    assert call.detail is not None and "exceeds the 1048576-byte cap" in call.detail
    assert after.kind is RawKind.RESULT
    assert codes == ["server.oversize_message"]


async def test_a_request_for_an_undeclared_capability_is_declined_and_recorded() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec("elicit_first", client_capabilities=())) as target:
            findings = target.session_findings()
            assert target.alive
    assert [f.code for f in findings] == ["server.unexpected_request"]
    assert "elicitation/create" in findings[0].message


async def test_a_request_for_a_declared_capability_is_answered_and_counted_not_a_finding() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec("elicit_first")) as target:
            findings = target.session_findings()
            served = target.served_requests()
    assert findings == ()
    assert served == {"elicitation/create": 1}


async def test_a_stderr_flood_does_not_block_and_only_a_bounded_tail_is_kept() -> None:
    with anyio.fail_after(10):
        async with open_target(raw_spec("stderr_flood")) as target:
            call = await target.call_tool("echo", {})
            tail = target.stderr_tail()
    assert call.kind is RawKind.RESULT
    assert len(tail) <= 8 * 1024
    assert tail.endswith("flood done\n")


async def test_calls_after_the_deadline_are_not_run() -> None:
    with anyio.fail_after(10):
        deadline = anyio.current_time() + 3.0
        async with open_target(raw_spec(), deadline=deadline) as target:
            first = await target.call_tool("echo", {})
            target._deadline = anyio.current_time() - 1  # the audit ran out of time
            second = await target.call_tool("echo", {})
    assert first.kind is RawKind.RESULT
    assert second.kind is RawKind.NOT_RUN


def _satisfies_target_protocol(connection: TargetConnection) -> Target:
    """Not a test: mypy checks here that TargetConnection satisfies the Target protocol."""
    return connection


# --------------------------------------------------------------------------- HTTP and SSE

TOKEN = "tok-9f8e7d6c5b4a"


def bearer_gate(app: ASGIApp, token: str) -> ASGIApp:
    async def gated(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            auth = dict(scope["headers"]).get(b"authorization")
            if auth != f"Bearer {token}".encode():
                challenge = b'Bearer realm="mcp", error="invalid_token"'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"www-authenticate", challenge), (b"content-length", b"0")],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return
        await app(scope, receive, send)

    return gated


def http_spec(
    url: str, transport: Literal["http", "sse"] = "http", connect_timeout: float = 5.0, **kw: Any
) -> TargetSpec:
    return TargetSpec(transport, url=url, connect_timeout=connect_timeout, call_timeout=5.0, **kw)


async def test_streamable_http_target_is_listed_and_called_raw() -> None:
    with anyio.fail_after(20):
        async with (
            serve(build_server().streamable_http_app()) as base,
            open_target(http_spec(f"{base}/mcp")) as target,
        ):
            assert target.transport == "http"
            assert target.snapshot.name == "sdk-target"
            call = await target.call_tool("add", {"a": 1, "b": 2})
    assert call.kind is RawKind.RESULT
    assert call.result["structuredContent"] == {"result": 3}


async def test_sse_target_is_listed_and_called() -> None:
    with anyio.fail_after(20):
        async with (
            serve(build_server().sse_app()) as base,
            open_target(http_spec(f"{base}/sse", "sse")) as target,
        ):
            assert target.transport == "sse"
            names = [t["name"] for t in target.snapshot.tools]
            call = await target.call_tool("add", {"a": 2, "b": 2})
    assert names == ["add", "refuse"]
    assert call.result["structuredContent"] == {"result": 4}


async def test_http_falls_back_to_sse_when_the_server_refuses_streamable_http() -> None:
    with anyio.fail_after(20):
        async with (
            serve(build_server().sse_app()) as base,
            open_target(http_spec(f"{base}/sse")) as target,
        ):
            assert target.transport == "sse"
            call = await target.call_tool("add", {"a": 5, "b": 5})
    assert call.result["structuredContent"] == {"result": 10}


async def test_bearer_gated_server_rejects_a_missing_or_wrong_token_without_echoing_it() -> None:
    with anyio.fail_after(20):
        async with serve(bearer_gate(build_server().streamable_http_app(), TOKEN)) as base:
            url = f"{base}/mcp"
            with pytest.raises(ConnectFailed) as missing:
                async with open_target(http_spec(url)):
                    pass
            with pytest.raises(ConnectFailed) as wrong:
                async with open_target(http_spec(url, bearer="wrong-token-123")):
                    pass
            async with open_target(http_spec(url, bearer=TOKEN)) as target:
                call = await target.call_tool("add", {"a": 1, "b": 1})
    assert str(missing.value) == (
        f"HTTP 401 Unauthorized from {url} (WWW-Authenticate: Bearer …): "
        "authentication failed; check the bearer token or headers"
    )
    assert "401" in str(wrong.value)
    assert "wrong-token-123" not in str(wrong.value)
    assert call.kind is RawKind.RESULT
    assert TOKEN not in repr(call) and TOKEN not in repr(target.snapshot)


async def test_connection_refused_is_a_clear_connect_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    with anyio.fail_after(10), pytest.raises(ConnectFailed) as info:
        async with open_target(http_spec(url)):
            pass
    assert str(info.value).startswith(f"could not connect to {url}")


async def test_a_server_that_accepts_but_never_answers_fails_at_the_connect_timeout() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)  # the kernel accepts; nobody ever reads or answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
        started = time.monotonic()
        with anyio.fail_after(10), pytest.raises(ConnectFailed) as info:
            async with open_target(http_spec(url, connect_timeout=1.0)):
                pass
    assert time.monotonic() - started < 1.0 + 1.0 + SLACK
    assert str(info.value) == "no answer to initialize within 1.0 s"


async def redirect_loop(scope: Scope, receive: Receive, send: Send) -> None:
    """/a redirects to /b and /b back to /a, forever."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    other = b"/b" if scope["path"] == "/a" else b"/a"
    await send(
        {
            "type": "http.response.start",
            "status": 307,
            "headers": [(b"location", other), (b"content-length", b"0")],
        }
    )
    await send({"type": "http.response.body", "body": b""})


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_a_redirect_loop_is_a_clear_connect_error(transport: Literal["http", "sse"]) -> None:
    with anyio.fail_after(15):
        async with serve(redirect_loop) as base:
            with pytest.raises(ConnectFailed) as info:
                async with open_target(http_spec(f"{base}/a", transport)):
                    pass
    assert str(info.value).startswith(f"too many redirects from {base}/a")
    assert "redirect loop" in str(info.value)


async def test_an_http_target_dying_mid_session_makes_calls_transport_lost() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = (
        f"import sys; sys.path.insert(0, {str(RAWSERVER.parents[2])!r})\n"
        "from tests.targets.sdk_server import build_server\n"
        f"build_server().run('streamable-http', host='127.0.0.1', port={port})"
    )
    async with await anyio.open_process([PY, "-c", code]) as server:
        with anyio.fail_after(20):
            while True:
                try:
                    await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                    break
                except OSError:
                    await anyio.sleep(0.05)
            async with open_target(http_spec(f"http://127.0.0.1:{port}/mcp")) as target:
                before = await target.call_tool("add", {"a": 1, "b": 1})
                server.kill()
                await server.wait()
                after = await target.call_tool("add", {"a": 1, "b": 1})
                alive = target.alive
    assert before.kind is RawKind.RESULT
    assert after.kind is RawKind.TRANSPORT_LOST
    assert not alive
