"""``mcprobe pin`` + ``audit --lock`` round trip over real stdio targets (mcprobe's own test
server, tests/targets/poisoned.py): the same server shows no drift; its next release (one
description reworded, one tool added) shows both, and ``--fail-on-drift`` exits 6."""

from __future__ import annotations

import io
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mcprobe.cli import commands as cli
from mcprobe.core.errors import UsageError
from mcprobe.report.pinning import lock_of, parse_lock
from tests.support.builders import snapshot
from tests.targets import POISONED


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _target(mode: str) -> list[str]:
    return ["--connect-timeout", "10", "--", sys.executable, str(POISONED), mode]


@pytest.fixture(scope="module")
def lock_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    code, out, err = _cli("pin", *_target("honest"))
    assert code == 0, err
    path = tmp_path_factory.mktemp("pin") / "mcprobe.lock"
    path.write_text(out, encoding="utf-8")
    return path


def test_pin_writes_a_canonical_sorted_lock_with_a_hash_per_tool(lock_file: Path) -> None:
    lock = json.loads(lock_file.read_text(encoding="utf-8"))
    assert lock["server"] == {
        "name": "poisoned-demo",
        "version": "1.0.0",
        "protocolVersion": lock["server"]["protocolVersion"],
    }
    names = [tool["name"] for tool in lock["tools"]]
    assert names == sorted(names) == ["get_ticket", "list_tickets", "search_archive", "send_email"]
    assert all(tool["sha256"].startswith("sha256:") for tool in lock["tools"])
    assert (
        lock_file.read_text(encoding="utf-8") == json.dumps(lock, sort_keys=True, indent=2) + "\n"
    )
    code, again, _ = _cli("pin", *_target("honest"))
    assert code == 0 and again == lock_file.read_text(encoding="utf-8")  # deterministic


def test_audit_of_the_pinned_server_shows_no_drift(lock_file: Path) -> None:
    code, out, err = _cli(
        "audit", "--json", "--lock", str(lock_file), "--fail-on-drift", *_target("honest")
    )
    assert code == 0, err
    drift = json.loads(out)["drift"]
    assert drift == {"added": [], "removed": [], "changed": [], "server": []}


def test_a_reworded_description_and_an_added_tool_are_drift_and_fail_with_6(
    lock_file: Path,
) -> None:
    argv = ("audit", "--lock", str(lock_file), *_target("honest-v2"))
    code, out, err = _cli(*argv[:1], "--json", *argv[1:])
    assert code == 0, err  # drift alone does not fail a run
    drift = json.loads(out)["drift"]
    assert drift["added"] == ["close_ticket"] and drift["removed"] == []
    assert [c["tool"] for c in drift["changed"]] == ["list_tickets"]
    assert drift["changed"][0]["changes"] == [
        "description: `Lists open tickets. Pass an id from the result to get_ticket to read one "
        "in full.` → `Lists open and closed tickets.`"
    ]
    code, out, err = _cli(argv[0], "--format", "md", "--fail-on-drift", *argv[1:])
    assert code == cli.EXIT_DRIFT == 6
    assert "## Drift against the lock" in out and "**added** `close_ticket`" in out
    assert "drift against --lock: 1 added, 0 removed, 1 changed" in err


def test_sarif_and_junit_carry_the_drift_of_the_next_release(lock_file: Path) -> None:
    argv = ("--lock", str(lock_file), *_target("honest-v2"))
    code, out, err = _cli("audit", "--format", "sarif", *argv)
    assert code == 0, err
    drift = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"].startswith("drift.")]
    assert [(r["ruleId"], r["locations"][0]["logicalLocations"][0]["name"]) for r in drift] == [
        ("drift.added", "close_ticket"),
        ("drift.changed", "list_tickets"),
    ]
    assert "`Lists open and closed tickets.`" in drift[1]["message"]["text"]
    code, out, err = _cli("audit", "--format", "junit", *argv)
    assert code == 0, err
    cases = {(c.get("classname"), c.get("name")): c for c in ET.fromstring(out).iter("testcase")}
    failure = cases[("mcprobe.poisoned-demo.list_tickets", "drift")].find("failure")
    assert failure is not None and failure.get("type") == "drift.changed"
    assert cases[("mcprobe.poisoned-demo", "drift against the lock")].find("failure") is None
    # the pinned release itself: the comparison is recorded, nothing fails or is a result
    code, out, _ = _cli("audit", "--format", "sarif", "--lock", str(lock_file), *_target("honest"))
    assert code == 0
    assert not any(r["ruleId"].startswith("drift.") for r in json.loads(out)["runs"][0]["results"])


def test_pin_calls_no_tool_and_refuses_audit_only_options(lock_file: Path) -> None:
    code, _, err = _cli("pin", "--fuzz", *_target("honest"))
    assert code == 1 and "--fuzz belongs to mcprobe audit" in err
    # The rug-pull server redefines `add` on its first call: a pin that called it would differ.
    code, out, _ = _cli("pin", *_target("rugpull"))
    assert code == 0 and "IMPORTANT" not in out


def test_a_bad_lock_is_a_one_line_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.lock"
    bad.write_text('{"tools": 3}', encoding="utf-8")
    code, _, err = _cli("audit", "--lock", str(bad), *_target("honest"))
    assert code == 1 and "is not an mcprobe lock" in err and len(err.strip().splitlines()) == 1
    code, _, err = _cli("audit", "--fail-on-drift", *_target("honest"))
    assert code == 1 and "--fail-on-drift needs --lock" in err
    with pytest.raises(UsageError):
        parse_lock("not json")


def test_the_lock_hash_changes_with_any_definition_field_and_not_with_order() -> None:
    tool = {"name": "a", "description": "x", "inputSchema": {"type": "object", "properties": {}}}
    reordered = {
        "inputSchema": {"properties": {}, "type": "object"},
        "description": "x",
        "name": "a",
    }
    assert lock_of(snapshot([tool])) == lock_of(snapshot([reordered]))
    retitled = {**tool, "title": "A"}
    assert (
        lock_of(snapshot([tool]))["tools"][0]["sha256"]
        != lock_of(snapshot([retitled]))["tools"][0]["sha256"]
    )
