"""Smoke checks of the seven pinned real MCP servers: they start, connect and are listed as seen.

Skipped (with the reason) where ``unshare -rn`` is unavailable or scripts/real_servers has not
installed the servers. Accuracy expectations on the verdicts are left to later tests.
"""

import json
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata, resources
from pathlib import Path

import jsonschema
import pytest

from tests.integration.conftest import AuditFn
from tests.integration.real_servers import NETNS, RealAudit, cache_dir, manifest, skip_reason

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")

SERVER_IDS = sorted(manifest())
REPORT_KEYS = {
    "schemaVersion",
    "mcprobeVersion",
    "target",
    "server",
    "overall",
    "grade",
    "dimensions",
    "coverage",
    "critical",
    "findings",
    "fuzz",
    "fuzzSummary",
    "unknownToolProbe",
    "markdown",
}


def _report_validator() -> jsonschema.Draft202012Validator:
    text = (resources.files("mcprobe") / "schemas" / "report.schema.json").read_text("utf-8")
    return jsonschema.Draft202012Validator(json.loads(text))


def test_the_namespace_offers_no_network_interface_but_loopback() -> None:
    probe = "import socket; print(' '.join(n for _, n in socket.if_nameindex()))"
    done = subprocess.run(
        [*NETNS, sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["lo"]


def test_the_manifest_lists_the_seven_servers_with_their_pinned_releases() -> None:
    expected = ["everything", "filesystem", "memory", "sequential-thinking", "time", "git", "fetch"]
    assert sorted(expected) == SERVER_IDS


@pytest.mark.parametrize("server_id", SERVER_IDS)
def test_the_installed_release_is_the_one_the_manifest_pins(server_id: str) -> None:
    server = manifest()[server_id]
    if server.ecosystem == "npm":
        package_json = cache_dir() / "npm" / "node_modules" / server.package / "package.json"
        installed = json.loads(package_json.read_text(encoding="utf-8"))["version"]
    else:
        site = next((cache_dir() / f"venv-{server_id}" / "lib").glob("python*/site-packages"))
        found = metadata.distributions(name=server.package, path=[str(site)])
        installed = next(iter(found)).version
    assert installed == server.version


@pytest.mark.parametrize("server_id", SERVER_IDS)
def test_each_server_connects_and_the_audit_completes(
    server_id: str, default_audit: Callable[[str], RealAudit]
) -> None:
    run = default_audit(server_id)
    assert run.returncode == 0, f"exit {run.returncode}; stderr: {run.stderr[-2000:]}"


@pytest.mark.parametrize("server_id", SERVER_IDS)
def test_the_report_is_json_with_the_expected_top_level_keys_and_valid_by_its_schema(
    server_id: str, default_audit: Callable[[str], RealAudit]
) -> None:
    report = default_audit(server_id).report
    assert report.keys() >= REPORT_KEYS
    errors = [e.message for e in _report_validator().iter_errors(report)]
    assert errors == []


@pytest.mark.parametrize("server_id", SERVER_IDS)
def test_the_report_names_the_server_and_every_tool_seen_by_hand(
    server_id: str, default_audit: Callable[[str], RealAudit]
) -> None:
    server = manifest()[server_id]
    report = default_audit(server_id).report
    assert (report["server"]["name"], report["server"]["version"]) == (
        server.server_name,
        server.server_version,
    )
    coverage = report["coverage"]
    listed = [*coverage["fuzzed"], *(s["tool"] for s in coverage["skipped"])]
    assert coverage["totalTools"] == len(server.tools)
    assert sorted(listed) == sorted(server.tools)


def test_a_second_audit_gets_a_fresh_fixture(audit_server: AuditFn) -> None:
    first = audit_server("time")
    second = audit_server("time")
    first_cwd, second_cwd = first.report["target"]["cwd"], second.report["target"]["cwd"]
    assert first_cwd != second_cwd
    assert Path(second_cwd, "repo", "README.md").is_file()
