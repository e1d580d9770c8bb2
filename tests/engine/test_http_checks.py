"""The Streamable HTTP transport checks against real SDK servers on 127.0.0.1: one with the
SDK's DNS-rebinding protection on (conforming) and one without (the Origin/Host checks fail),
plus the pure judges in both directions and the loopback-only rule."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from mcprobe.client.http_probe import is_loopback_url
from mcprobe.core.checks.http import (
    HTTP_ORIGIN,
    HttpAnswer,
    judge_foreign,
    judge_get_stream,
    judge_session_delete,
)
from mcprobe.core.checks.records import Verdict
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.http_probes import HTTP_CHECKS
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.targets.era_server import build_server
from tests.targets.hostile_http import serve

pytestmark = pytest.mark.anyio


async def _audit(protected: bool) -> ConformanceReport:
    security = (
        TransportSecuritySettings(
            allowed_hosts=["127.0.0.1:*"], allowed_origins=["http://127.0.0.1:*"]
        )
        if protected
        else TransportSecuritySettings(enable_dns_rebinding_protection=False)
    )
    app = build_server().streamable_http_app(transport_security=security)
    with anyio.fail_after(60):
        async with serve(app) as base:
            spec = TargetSpec("http", url=f"{base}/mcp", connect_timeout=10, call_timeout=5)
            return await audit(AuditRequest(spec, fuzz=False, overall_timeout=50))


def _http(report: ConformanceReport) -> dict[str, str]:
    assert report.surface is not None
    return {c.check: c.verdict for c in report.surface.checks if c.area == "http"}


async def test_a_protected_sdk_server_passes_every_http_check() -> None:
    verdicts = _http(await _audit(protected=True))
    assert verdicts == {
        "http.content_type": "pass",
        "http.origin": "pass",
        "http.host": "pass",
        "http.protocol_version_header": "pass",
        "http.get_stream": "pass",
        "http.session_unknown": "pass",
        "http.session_delete": "pass",
    }


async def test_without_dns_rebinding_protection_the_origin_and_host_checks_fail() -> None:
    report = await _audit(protected=False)
    verdicts = _http(report)
    assert verdicts["http.origin"] == "fail"
    assert verdicts["http.host"] == "fail"
    assert {v for k, v in verdicts.items() if k not in ("http.origin", "http.host")} == {"pass"}
    metadata = next(d for d in report.dimensions if d.key == "metadata")
    assert any("http.origin" in r for r in metadata.reasons)  # a MUST: it costs points
    assert not any("http.host" in r for r in metadata.reasons)  # a SHOULD: advice only


def test_only_loopback_urls_get_the_http_checks() -> None:
    assert is_loopback_url("http://127.0.0.1:8000/mcp")
    assert is_loopback_url("http://localhost/mcp")
    assert is_loopback_url("http://[::1]:9/mcp")
    assert not is_loopback_url("https://example.com/mcp")
    assert not is_loopback_url("http://10.0.0.1/mcp")


def test_the_judges_refuse_to_blame_without_an_answer_or_past_authentication() -> None:
    assert (
        judge_foreign(HTTP_ORIGIN, HttpAnswer("r", error="reset")).verdict is Verdict.INCONCLUSIVE
    )
    assert judge_foreign(HTTP_ORIGIN, HttpAnswer("r", 401)).verdict is Verdict.INCONCLUSIVE
    assert judge_foreign(HTTP_ORIGIN, HttpAnswer("r", 403)).verdict is Verdict.PASS
    assert judge_foreign(HTTP_ORIGIN, HttpAnswer("r", 200)).verdict is Verdict.FAIL
    sse = HttpAnswer("r", 200, "text/event-stream")
    assert judge_get_stream(sse).verdict is Verdict.PASS
    assert judge_get_stream(HttpAnswer("r", 405)).verdict is Verdict.PASS
    assert judge_get_stream(HttpAnswer("r", 200, "application/json")).verdict is Verdict.FAIL
    ok = HttpAnswer("d", 200)
    assert judge_session_delete(ok, HttpAnswer("a", 404)).verdict is Verdict.PASS
    assert judge_session_delete(ok, HttpAnswer("a", 200)).verdict is Verdict.FAIL
    assert judge_session_delete(HttpAnswer("d", 405), None).verdict is Verdict.PASS


def _sse_only_app() -> Starlette:
    """A legacy HTTP+SSE server (GET /sse, POST /messages/): no Streamable HTTP endpoint."""
    server = build_server()
    sse = SseServerTransport("/messages/")

    async def handle_sse(request: Request) -> Response:
        async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
            await server.run(streams[0], streams[1], server.create_initialization_options())
        return Response()

    return Starlette(
        routes=[
            Route("/sse", endpoint=handle_sse, methods=["GET"]),
            Mount("/messages/", app=sse.handle_post_message),
        ]
    )


async def test_after_a_fallback_to_legacy_sse_the_streamable_http_checks_do_not_apply() -> None:
    """Issue 23 item 3: POSTing initialize to an SSE endpoint got 404 text/html, two MUST
    failures and three unearned passes; the audit spoke SSE, so none of them applies."""
    with anyio.fail_after(60):
        async with serve(_sse_only_app()) as base:
            spec = TargetSpec("http", url=f"{base}/sse", connect_timeout=10, call_timeout=5)
            report = await audit(AuditRequest(spec, fuzz=False, overall_timeout=50))
    verdicts = _http(report)
    assert set(verdicts) == {c.check for c in HTTP_CHECKS}
    assert set(verdicts.values()) == {"notApplicable"}
    assert report.surface is not None
    why = {c.message for c in report.surface.checks if c.area == "http"}
    assert len(why) == 1 and "fell back to the legacy HTTP+SSE transport" in why.pop()
    metadata = next(d for d in report.dimensions if d.key == "metadata")
    assert not any("http." in r for r in metadata.reasons)
