"""The library's ``client_capabilities=`` and ``protocol=``: what ``--client-capabilities`` /
``--protocol`` and ``probe_connect``'s ``clientCapabilities`` / ``protocol`` mean, checked by the
same ``target_spec``; and the refused-initialize error under protocol handshake says what to do.
Real targets over real stdio: tests/targets/surface_server.py (echo_caps: its instructions are
the capabilities initialize declared) and tests/targets/era_server.py."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import anyio
import pytest

import mcprobe
from mcprobe.core.client_capabilities import describe_capabilities
from mcprobe.core.errors import ConnectFailed, UsageError
from tests.support.paths import REPO_ROOT, TARGETS

PY = sys.executable
SURFACE = str(TARGETS / "surface_server.py")
ERA = str(TARGETS / "era_server.py")
HINT = "use protocol auto (CLI: --protocol auto)"


async def _surface(**options: Any) -> mcprobe.ConformanceReport:
    with anyio.fail_after(60):
        return await mcprobe.audit_stdio(
            PY, [SURFACE, "echo_caps"], surface=False, connect_timeout=20, **options
        )


@pytest.mark.anyio
async def test_client_capabilities_decide_what_initialize_declares() -> None:
    default = await _surface()
    assert json.loads(default.server.instructions or "") == {
        "elicitation": {"form": {}},
        "roots": {"listChanged": False},
        "sampling": {},
    }
    # Any order, repeats: declared once each, in catalogue order, and the report says so.
    some = await _surface(client_capabilities=["sampling", "roots", "sampling"])
    assert json.loads(some.server.instructions or "") == {
        "roots": {"listChanged": False},
        "sampling": {},
    }
    assert some.target is not None
    assert some.target.client_capabilities == describe_capabilities(["roots", "sampling"])
    # [] is --client-capabilities none.
    none = await _surface(client_capabilities=[])
    assert json.loads(none.server.instructions or "") == {}
    assert none.target is not None and none.target.client_capabilities == []


@pytest.mark.anyio
async def test_protocol_chooses_the_era_on_the_sdk_era_servers() -> None:
    with anyio.fail_after(90):
        modern = await mcprobe.audit_stdio(PY, [ERA, "modern"], protocol="modern", surface=False)
        assert (modern.server.era, modern.server.protocol_version) == ("modern", "2026-07-28")
        dual = await mcprobe.audit_stdio(PY, [ERA, "dual"], protocol="modern", surface=False)
        assert dual.server.era == "modern"
        dual = await mcprobe.audit_stdio(PY, [ERA, "dual"], protocol="handshake", surface=False)
        assert dual.server.era == "handshake"


def test_protocol_handshake_on_a_modern_only_server_says_to_use_auto() -> None:
    with pytest.raises(ConnectFailed) as caught:
        mcprobe.audit_stdio_sync(PY, [ERA, "modern"], protocol="handshake", connect_timeout=20)
    text = str(caught.value)
    assert text.startswith("initialize was rejected with JSON-RPC error -32601")
    assert HINT in text and "\n" not in text


@pytest.mark.anyio
async def test_a_refusal_inside_the_version_negotiation_probe_carries_no_hint() -> None:
    # version_refuse: initialize offering an unknown version gets -32602. The version-negotiation
    # probe opens that connection itself (protocol handshake, whatever the user chose): its
    # refusal is evidence in a check, not advice to the user.
    with anyio.fail_after(60):
        report = await mcprobe.audit_stdio(
            PY, [SURFACE, "version_refuse"], protocol="handshake", connect_timeout=20
        )
    assert report.surface is not None
    check = next(c for c in report.surface.checks if c.check == "protocol.version_negotiation")
    assert check.verdict == "fail"
    assert "initialize was rejected" in check.model_dump_json()
    assert "protocol auto" not in check.model_dump_json()


def test_the_cli_says_to_use_auto_too() -> None:
    run = subprocess.run(
        [PY, "-m", "mcprobe.cli", "audit", "--protocol", "handshake", "--", PY, ERA, "modern"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert run.returncode == 2, run.stderr
    assert "initialize was rejected" in run.stderr and HINT in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            {"client_capabilities": ["roots", "telepathy"]},
            "client_capabilities: unknown client capability 'telepathy'; "
            "use a list of roots, elicitation, sampling ([] declares none)",
        ),
        (
            {"client_capabilities": "roots"},
            "client_capabilities: expected a list of names, not a string",
        ),
        ({"client_capabilities": [None]}, "client_capabilities: unknown client capability 'None'"),
        (
            {"protocol": "2026-07-28"},
            "protocol: unknown protocol '2026-07-28'; expected one of auto, handshake, modern",
        ),
        ({"protocol": None}, "protocol: unknown protocol that value; expected one of auto"),
    ],
)
def test_a_bad_value_is_one_usage_error_naming_the_parameter_and_the_choices(
    options: dict[str, Any], expected: str, tmp_path: Any
) -> None:
    marker = tmp_path / "started"
    # Were the target started, it would leave the marker behind.
    code = f"open({str(marker)!r}, 'w').close()"
    with pytest.raises(UsageError) as stdio:
        mcprobe.audit_stdio_sync(PY, ["-c", code], **options)
    with pytest.raises(UsageError) as url:
        mcprobe.audit_url_sync("http://127.0.0.1:9/mcp", **options)
    for caught in (stdio, url):
        assert expected in str(caught.value) and "\n" not in str(caught.value)
    assert not marker.exists()
