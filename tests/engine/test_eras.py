"""Both protocol eras over real stdio, on SDK servers (tests/targets/era_server.py): a
2026-07-28-only server is audited in that era, a dual-era one reports both, and the era-specific
checks fire only where they belong."""

from __future__ import annotations

import sys

import anyio
import pytest

from mcprobe.core.errors import ConnectFailed
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.support.paths import TARGETS

pytestmark = pytest.mark.anyio

SERVER = TARGETS / "era_server.py"


def _spec(*argv: str, protocol: str = "auto") -> TargetSpec:
    return TargetSpec(
        transport="stdio",
        command=sys.executable,
        args=(str(SERVER), *argv),
        connect_timeout=20,
        call_timeout=10,
        protocol=protocol,  # type: ignore[arg-type]
    )


async def _audit(*argv: str, protocol: str = "auto") -> ConformanceReport:
    with anyio.fail_after(90):
        return await audit(
            AuditRequest(_spec(*argv, protocol=protocol), fuzz=True, overall_timeout=80)
        )


def _verdicts(report: ConformanceReport) -> dict[str, str]:
    assert report.surface is not None
    return {c.check: c.verdict for c in report.surface.checks}


async def test_a_modern_only_server_is_audited_in_2026_07_28() -> None:
    report = await _audit("modern")
    assert (report.server.era, report.server.eras) == ("modern", ["modern"])
    assert report.server.protocol_version == "2026-07-28"
    assert report.server.name == "era-server"  # from the discover result's serverInfo stamp
    assert next(r for r in report.fuzz if r.case == "valid").outcome == "ok"
    verdicts = _verdicts(report)
    assert verdicts["modern.discover"] == "pass"
    assert verdicts["modern.result_type"] == "pass"
    assert verdicts["modern.unsupported_version"] == "pass"
    # ping and logging/setLevel do not exist in 2026-07-28; initialize cannot be negotiated.
    assert "protocol.ping" not in verdicts
    assert "protocol.version_negotiation" not in verdicts
    assert report.target is not None and report.target.client_capabilities == []
    assert "stateless 2026-07-28 era" in (report.markdown or "")
    # 2026-07-28 reached through server/discover is not an unsupported initialize answer.
    metadata = next(d for d in report.dimensions if d.key == "metadata")
    assert metadata.score == 10
    assert not [f for f in report.findings if f.code == "server.unsupported_protocol_version"]


async def test_a_dual_era_server_is_audited_in_the_handshake_and_reports_both_eras() -> None:
    report = await _audit("dual")
    assert (report.server.era, report.server.eras) == ("handshake", ["handshake", "modern"])
    verdicts = _verdicts(report)
    assert verdicts["protocol.ping"] == "pass"
    assert verdicts["protocol.version_negotiation"] == "pass"
    assert verdicts["modern.discover"] == "pass"
    assert "also speaks the stateless 2026-07-28 era" in (report.markdown or "")


async def test_a_handshake_only_server_reports_one_era_and_no_modern_checks() -> None:
    report = await _audit("handshake")
    assert (report.server.era, report.server.eras) == ("handshake", ["handshake"])
    assert not [c for c in _verdicts(report) if c.startswith("modern.")]


async def test_protocol_handshake_never_speaks_2026_07_28() -> None:
    report = await _audit("dual", protocol="handshake")
    assert report.server.eras == ["handshake"]
    with pytest.raises(ConnectFailed, match="initialize was rejected"):
        await _audit("modern", protocol="handshake")


async def test_protocol_modern_on_a_handshake_only_server_fails_to_connect_clearly() -> None:
    with pytest.raises(ConnectFailed, match="server/discover was rejected"):
        await _audit("handshake", protocol="modern")


@pytest.mark.parametrize(
    ("defect", "check"),
    [
        ("no_result_type", "modern.result_type modern.discover"),
        ("accept_any_version", "modern.unsupported_version"),
    ],
)
async def test_each_modern_defect_fails_its_own_check(defect: str, check: str) -> None:
    report = await _audit("modern", defect)
    failed = {c for c, v in _verdicts(report).items() if v == "fail"}
    assert failed - {"protocol.invalid_cursor"} == set(check.split())


def test_the_version_the_core_names_per_request_is_under_the_sdks_meta_key() -> None:
    from mcp_types import PROTOCOL_VERSION_META_KEY

    from mcprobe.core.checks.modern import PROTOCOL_VERSION_META, UNKNOWN_VERSION_LISTING

    assert PROTOCOL_VERSION_META == PROTOCOL_VERSION_META_KEY
    assert UNKNOWN_VERSION_LISTING.params == {"_meta": {PROTOCOL_VERSION_META_KEY: "2099-01-01"}}
