"""2026-07-28 over Streamable HTTP, against the SDK's own HTTP app on 127.0.0.1: a modern-only
server (``era_server.modern_only_http``) and the SDK's default dual-era app, audited with
``--protocol auto`` and ``modern``; plus the routing headers every 2026-07-28 POST carries."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.transport_security import TransportSecuritySettings

from mcprobe.client.modern_http import header_maps, routing_headers
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.targets.era_server import HEADER_TOOL, build_server, modern_only_http
from tests.targets.hostile_http import serve

pytestmark = pytest.mark.anyio

_PROTECTED = TransportSecuritySettings(
    allowed_hosts=["127.0.0.1:*"], allowed_origins=["http://127.0.0.1:*"]
)


async def _audit(
    *, modern_only: bool, protocol: str, protected: bool = True, fuzz: bool = True
) -> ConformanceReport:
    security = (
        _PROTECTED
        if protected
        else TransportSecuritySettings(enable_dns_rebinding_protection=False)
    )
    app = build_server(header_tool=True).streamable_http_app(transport_security=security)
    with anyio.fail_after(90):
        async with serve(modern_only_http(app) if modern_only else app) as base:
            spec = TargetSpec(
                "http",
                url=f"{base}/mcp",
                connect_timeout=10,
                call_timeout=5,
                protocol=protocol,  # type: ignore[arg-type]
            )
            return await audit(AuditRequest(spec, fuzz=fuzz, overall_timeout=80))


def _verdicts(report: ConformanceReport) -> dict[str, str]:
    assert report.surface is not None
    return {c.check: c.verdict for c in report.surface.checks}


@pytest.mark.parametrize("protocol", ["auto", "modern"])
async def test_a_modern_only_http_server_is_audited_in_2026_07_28(protocol: str) -> None:
    report = await _audit(modern_only=True, protocol=protocol)
    assert (report.server.era, report.server.eras) == ("modern", ["modern"])
    assert report.server.protocol_version == "2026-07-28"
    verdicts = _verdicts(report)
    for check in ("modern.discover", "modern.result_type", "modern.unsupported_version"):
        assert verdicts[check] == "pass", check
    assert "protocol.ping" not in verdicts  # removed in 2026-07-28
    # The transport checks in that revision's form: the security ones on server/discover, the
    # ones about what 2026-07-28 removed not applicable.
    assert verdicts["http.origin"] == verdicts["http.host"] == "pass"
    assert verdicts["http.content_type"] == "pass"
    for check in (
        "http.get_stream",
        "http.session_unknown",
        "http.session_delete",
        "http.protocol_version_header",
    ):
        assert verdicts[check] == "notApplicable", check
    # Every call reached the tools: the valid ones succeed (the header tool's only because its
    # Mcp-Param-Region header mirrors the argument), the malformed ones are tool errors.
    outcomes = {(r.name, r.case): r.outcome for r in report.fuzz}
    assert outcomes[("add", "valid")] == outcomes[("region_time", "valid")] == "ok"
    assert outcomes[("region_time", "wrong_type:region")] == "toolError"
    assert report.overall == 100


async def test_a_modern_only_http_server_without_origin_checks_fails_them_in_its_own_era() -> None:
    report = await _audit(modern_only=True, protocol="modern", protected=False, fuzz=False)
    verdicts = _verdicts(report)
    assert verdicts["http.origin"] == "fail"
    origin = next(c for c in report.surface.checks if c.check == "http.origin")  # type: ignore[union-attr]
    assert origin.request is not None and "server/discover" in origin.request


async def test_the_sdks_dual_era_http_app_reports_both_eras_under_auto() -> None:
    report = await _audit(modern_only=False, protocol="auto", fuzz=False)
    assert (report.server.era, report.server.eras) == ("handshake", ["handshake", "modern"])
    verdicts = _verdicts(report)
    assert verdicts["protocol.ping"] == "pass"
    for check in ("modern.discover", "modern.result_type", "modern.unsupported_version"):
        assert verdicts[check] == "pass", check
    # Audited in the handshake era, the 2025 transport checks apply (sessions, GET stream).
    assert verdicts["http.session_delete"] == "pass"


async def test_protocol_modern_on_the_dual_era_http_app_audits_2026_07_28() -> None:
    report = await _audit(modern_only=False, protocol="modern", fuzz=False)
    assert (report.server.era, report.server.eras) == ("modern", ["modern"])
    assert _verdicts(report)["modern.discover"] == "pass"


def test_routing_headers_mirror_the_body_as_the_sdks_client_does() -> None:
    maps = header_maps([HEADER_TOOL.model_dump(by_alias=True, mode="json"), {"name": 3}])
    assert maps == {"region_time": {("region",): "Region"}}
    params = {
        "name": "region_time",
        "arguments": {"region": "eu west"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
    }
    headers = routing_headers("tools/call", params, "2026-07-28", maps)
    assert headers["mcp-protocol-version"] == "2026-07-28"
    assert headers["mcp-method"] == "tools/call"
    assert headers["mcp-name"] == "region_time"
    assert headers["Mcp-Param-Region"] == "eu west"
    # The version header follows the body's _meta (the unsupported-version check says 2099 in
    # both places); a non-string name or argument mirrors nothing.
    odd = {"name": 7, "arguments": [], "_meta": {"io.modelcontextprotocol/protocolVersion": "2099"}}
    headers = routing_headers("tools/call", odd, "2026-07-28", maps)
    assert headers == {"mcp-protocol-version": "2099", "mcp-method": "tools/call"}
    assert routing_headers("resources/read", {"uri": "a://é"}, "2026-07-28", {})[
        "mcp-name"
    ].startswith("=?base64?")


async def test_protocol_modern_on_a_2025_only_http_server_fails_to_connect_clearly() -> None:
    from mcprobe.core.errors import ConnectFailed
    from tests.targets.era_server import handshake_only_http

    app = handshake_only_http(build_server().streamable_http_app(transport_security=_PROTECTED))
    with anyio.fail_after(60):
        async with serve(app) as base:
            spec = TargetSpec("http", url=f"{base}/mcp", connect_timeout=10, protocol="modern")
            with pytest.raises(ConnectFailed, match="does not seem to speak 2026-07-28"):
                await audit(AuditRequest(spec, fuzz=False, overall_timeout=30))
            # Under auto the same server is audited in the handshake era, one era reported.
            auto = TargetSpec("http", url=f"{base}/mcp", connect_timeout=10, call_timeout=5)
            report = await audit(AuditRequest(auto, fuzz=False, overall_timeout=40))
    assert report.server.eras == ["handshake"]
