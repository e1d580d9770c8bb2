"""An HTTP target whose session is lost mid-fuzz gets a new session and the run goes on
(a real HTTP server on 127.0.0.1)."""

from __future__ import annotations

import anyio
import pytest

from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from tests.targets.hostile_http import serve
from tests.targets.session_http import SessionServer

pytestmark = pytest.mark.anyio


async def test_a_lost_http_session_is_replaced_and_every_healthy_case_is_judged() -> None:
    app = SessionServer()
    with anyio.fail_after(60):
        async with serve(app) as base:
            spec = TargetSpec("http", url=f"{base}/mcp", call_timeout=5, connect_timeout=10)
            report = await audit(AuditRequest(spec, fuzz=True, concurrency=1))
    crashes = [(r.name, r.case) for r in report.fuzz if r.outcome == "protocolCrash"]
    assert crashes and all(name == "forget" for name, _ in crashes)
    echo = [r for r in report.fuzz if r.name == "echo"]
    assert echo and all(r.outcome in ("ok", "toolError") for r in echo)
    assert app.opened >= 2  # a new session after the first was lost
    assert report.deaths and report.deaths[0].restarts
    assert report.deaths[0].cause == "HTTP session lost: the server answered 404 to its session id"
    assert any(d.replay and d.verdict == "crash" for d in report.deaths)
