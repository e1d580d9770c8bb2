"""Values the server lists itself make the valid control conclusive (issue 24 item 4), on a real
stdio target (tests/targets/listed_values.py): a description's list is the valid value, a
refusal's list makes one retry, and the attack probes build on the accepted value. The
look-alike that lists nothing keeps its inconclusive refusals."""

from __future__ import annotations

import sys

import anyio
import pytest

from mcprobe import audit_stdio
from mcprobe.report.model import ConformanceReport, FuzzResultOut
from tests.targets import TARGETS_DIR

pytestmark = pytest.mark.anyio

LISTED = str(TARGETS_DIR / "listed_values.py")


async def _audit(*args: str, destructive: bool = False) -> ConformanceReport:
    with anyio.fail_after(90):
        return await audit_stdio(
            sys.executable, [LISTED, *args], fuzz=True, fuzz_destructive=destructive, sandbox="off"
        )


def _valid(report: ConformanceReport) -> dict[str, FuzzResultOut]:
    return {r.name: r for r in report.fuzz if r.kind == "valid"}


async def test_a_refusal_s_listed_value_is_retried_once_and_the_control_works() -> None:
    report = await _audit()
    valid = _valid(report)
    assert valid["query_table"].outcome == "ok"
    assert valid["query_table"].arguments == {"table": "users"}
    assert "a value the server's refusal of the first call listed" in (
        valid["query_table"].note or ""
    )
    assert valid["query_table"].source == "synthesized"
    assert valid["get_report"].outcome == "ok" and valid["get_report"].arguments == {
        "format": "summary"
    }
    assert report.grade != "-"


async def test_the_look_alike_that_lists_nothing_is_not_retried() -> None:
    report = await _audit("silent")
    valid = _valid(report)
    assert {r.outcome for r in valid.values()} == {"toolError"}
    assert all(not (r.note or "").startswith("sent again") for r in valid.values())
    assert report.grade == "-"  # every valid call a synthesized refusal: not measured


async def test_the_attack_probes_build_on_the_value_the_server_accepts() -> None:
    """query_table (mode shell) runs a shell only for a name that starts with a listed table:
    probes built on the placeholder are refused before the shell, those built on the listed
    value reach it."""
    report = await _audit("shell", destructive=True)
    found = [f for f in report.findings if f.code == "security.command_injection"]
    assert [f.location.tool for f in found] == ["query_table"]
    assert '"table": "users' in found[0].message
