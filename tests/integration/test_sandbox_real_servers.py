"""Issue 20's proof on real servers: ``mcprobe audit --fuzz --sandbox required`` on the seven
pinned official servers and on one unannotated third-party server with a destructive write tool
(mcp-server-sqlite 2025.4.25, ``scripts/sandbox_servers``) calls every listed tool (except those
that require task-augmented calls), grades each, and leaves the fixture outside the sandbox
byte-identical. Every audit runs inside ``unshare -rn`` (tests/integration/real_servers.py)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mcprobe.client.transports.sandbox import bwrap_problem
from tests.integration.real_servers import (
    NETNS,
    Server,
    audit_command,
    make_fixture,
    manifest,
    mcprobe_executable,
    skip_reason,
)

pytestmark = pytest.mark.slow

SANDBOX_CACHE = Path(
    os.environ.get("MCPROBE_SANDBOX_CACHE") or Path.home() / ".cache" / "mcprobe-sandbox-servers"
)
SQLITE_TOOLS = (
    "read_query",
    "write_query",
    "create_table",
    "list_tables",
    "describe_table",
    "append_insight",
)


def _tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` (the fixture, .git included) → its sha256, plus directories."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            out[key] = "link:" + os.readlink(path)
        elif path.is_file():
            out[key] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            out[key] = "dir"
    return out


def _skip() -> None:
    problem = skip_reason() or bwrap_problem()
    if problem is not None:
        pytest.skip(f"isolation proof needs namespaces and the real servers: {problem}")


def _audit(tmp_path: Path, command: tuple[str, ...], fixture: Path) -> dict[str, Any]:
    before = _tree(fixture)
    env = dict(os.environ, HOME=str(fixture / "home"))
    done = subprocess.run(
        command, cwd=fixture, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode in (0, 3, 4), done.stderr[-2000:]
    assert _tree(fixture) == before  # nothing the audit did reached the real fixture
    report: dict[str, Any] = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["target"]["isolation"]["isolated"] is True, report["target"]["isolation"]
    assert report["grade"] != "-" and report["overall"] is not None, report.get("notGraded")
    return report


def _called(report: dict[str, Any]) -> set[str]:
    return {c["tool"] for c in report["coverage"]["called"]}


def _task_only(report: dict[str, Any]) -> set[str]:
    return {s["tool"] for s in report["coverage"]["skipped"] if "taskSupport" in s["reason"]}


@pytest.mark.parametrize("server_id", sorted(manifest()))
def test_every_tool_of_an_official_server_is_called_isolated_and_the_fixture_is_unchanged(
    server_id: str, tmp_path: Path
) -> None:
    _skip()
    server = manifest()[server_id]
    fixture = make_fixture(tmp_path)
    command = audit_command(server, fixture, tmp_path / "report.json", ("--sandbox", "required"))
    report = _audit(tmp_path, command, fixture)
    assert _called(report) | _task_only(report) == set(server.tools)
    assert {entry["name"] for entry in report["fuzz"]} == _called(report)


def _sqlite_server(fixture: Path) -> Server:
    """mcp-server-sqlite on a fresh ``data.db`` in ``fixture`` (table ``t``, one row)."""
    binary = SANDBOX_CACHE / "venv-sqlite" / "bin" / "mcp-server-sqlite"
    if not binary.exists():
        pytest.skip(
            f"mcp-server-sqlite is not installed in {SANDBOX_CACHE}: scripts/sandbox_servers"
        )
    database = fixture / "data.db"
    subprocess.run(
        [
            "python3",
            "-c",
            f"import sqlite3; c=sqlite3.connect({str(database)!r}); "
            "c.execute('create table t(a text)'); c.execute(\"insert into t values('real')\"); "
            "c.commit()",
        ],
        check=True,
    )
    return Server(
        "sqlite",
        "pypi",
        "mcp-server-sqlite",
        "2025.4.25",
        (str(binary), "--db-path", str(database)),
        {},
        "sqlite",
        "",
        SQLITE_TOOLS,
    )


def test_an_unannotated_sqlite_server_gets_its_destructive_write_tool_called_isolated(
    tmp_path: Path,
) -> None:
    _skip()
    fixture = make_fixture(tmp_path)
    server = _sqlite_server(fixture)
    command = audit_command(server, fixture, tmp_path / "report.json", ("--sandbox", "required"))
    assert command[: len(NETNS)] == NETNS and mcprobe_executable() in command
    report = _audit(tmp_path, command, fixture)
    assert _called(report) == set(SQLITE_TOOLS)  # no annotations: only isolation calls them
    assert str(fixture) in report["target"]["isolation"]["copies"]
    # describe_table("example") answers `[]` (no such table): the table list_tables answered is
    # the realistic base instead (issue 23 item 8, engine/answer_retry.py).
    describe = next(r for r in report["fuzz"] if r["name"] == "describe_table")
    assert describe["kind"] == "valid" and describe["arguments"] == {"table_name": "t"}
    assert "a value the answer of `list_tables` named" in describe["note"]


def test_deep_on_the_sqlite_server_finds_only_its_sql_error_answered_as_success(
    tmp_path: Path,
) -> None:
    """Issue 25 on a third-party server, isolated: describe_table builds
    ``PRAGMA table_info({table_name})`` by string formatting and answers the SQLite error as an
    ok result ("Database error: near \")\": syntax error" for ``""``), where the base (the table
    ``t`` list_tables named) succeeds: a real error dressed as success, reproduced by hand. Every
    other deep edge of the six tools is answered cleanly (or like its base)."""
    _skip()
    fixture = make_fixture(tmp_path)
    server = _sqlite_server(fixture)
    extra = ("--sandbox", "required", "--deep")
    report = _audit(
        tmp_path, audit_command(server, fixture, tmp_path / "report.json", extra), fixture
    )
    deep = report["deep"]
    assert deep is not None and deep["sent"] > 0 and not deep["budgetHit"]
    found = {(t["tool"], f["field"], f["oracle"]) for t in deep["tools"] for f in t["findings"]}
    assert found == {("describe_table", "table_name", "errorAsSuccess")}
    (finding,) = next(t for t in deep["tools"] if t["tool"] == "describe_table")["findings"]
    assert finding["base"] == {"table_name": "t"}
    assert finding["answer"].startswith("Database error:")
