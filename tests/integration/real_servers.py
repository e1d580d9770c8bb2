"""Audit real published MCP servers, installed by ``scripts/real_servers``, safely.

Every audit runs ``mcprobe audit`` (and so the third-party server it starts) inside a fresh
loopback-only network namespace (``unshare -rn``; a new PID namespace too, so killing the audit
kills every process it started), with a fresh fixture directory as the target's working
directory and HOME. ``scripts/real_servers.json`` says how to start each server.

Also a command for by-hand runs (the baseline in the closing note was made with it)::

    .venv/bin/python -m tests.integration.real_servers ID OUT_PREFIX [MCPROBE_AUDIT_ARGS ...]

writes OUT_PREFIX.json (the JSON report) and OUT_PREFIX.md (its ``markdown`` field). An
``--examples FILE`` among the args may use ``{fixture}`` and ``{cache}`` in its strings (the
fixture directory is made per audit): the harness writes a filled copy next to the report, e.g.
``{"git_status": {"repo_path": "{fixture}/repo"}}`` for the git server's one repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "scripts" / "real_servers.json"

# unshare: new user + network namespace (only `lo`, brought up here) and a new PID namespace
# whose init is mcprobe: when it ends, or unshare is killed (--kill-child), all of it ends.
# --mount-proc: a /proc of that PID namespace (bubblewrap, the sandbox of --sandbox auto, reads
# /proc/<its pid>/ns; with the host's /proc that pid is someone else's or nobody's).
NETNS = (
    "unshare",
    "-rn",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "--",
    "sh",
    "-c",
    'ip link set lo up 2>/dev/null; exec "$@"',
    "sh",
)
FIXTURE_EMAIL = "fixture@example.invalid"


@dataclass(frozen=True)
class Server:
    """One entry of scripts/real_servers.json."""

    id: str
    ecosystem: str
    package: str
    version: str
    argv: tuple[str, ...]
    env: dict[str, str]
    server_name: str
    server_version: str
    tools: tuple[str, ...]


@dataclass(frozen=True)
class RealAudit:
    """What one audit produced: the parsed JSON report, mcprobe's stderr and exit code."""

    server_id: str
    report: dict[str, Any]
    stderr: str
    returncode: int
    seconds: float
    command: tuple[str, ...]


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "mcprobe-real-servers"
    return Path(os.environ.get("MCPROBE_REAL_CACHE") or default)


@cache
def manifest() -> dict[str, Server]:
    doc = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return {
        s["id"]: Server(
            id=s["id"],
            ecosystem=s["ecosystem"],
            package=s["package"],
            version=s["version"],
            argv=tuple(s["argv"]),
            env=dict(s["env"]),
            server_name=s["serverName"],
            server_version=s["serverVersion"],
            tools=tuple(s["tools"]),
        )
        for s in doc["servers"]
    }


@cache
def netns_problem() -> str | None:
    """Why a loopback-only namespace cannot be made here, or None when it can."""
    if shutil.which("unshare") is None:
        return "`unshare` is not installed (util-linux)"
    try:
        done = subprocess.run(
            [*NETNS, "true"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`unshare -rn` failed: {exc}"
    if done.returncode != 0:
        return f"`unshare -rn` is not permitted here: {done.stderr.strip()[-200:]}"
    return None


def cache_problem() -> str | None:
    """Why the pinned servers are not usable, or None when scripts/real_servers has run."""
    if not (cache_dir() / ".stamp").is_file():
        return f"the real servers are not installed in {cache_dir()}: run scripts/real_servers"
    return None


def skip_reason() -> str | None:
    return netns_problem() or cache_problem()


def make_fixture(parent: Path) -> Path:
    """A fresh fixture: repo/ (git init, one commit, a local identity) and home/."""
    fixture = parent / "fixture"
    repo = fixture / "repo"
    (fixture / "home").mkdir(parents=True)
    repo.mkdir()
    (repo / "README.md").write_text("fixture repository for mcprobe audits\n", encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(fixture / "home")}
    env |= {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.name", "mcprobe fixture"],
        ["config", "user.email", FIXTURE_EMAIL],
        ["add", "README.md"],
        ["commit", "-q", "-m", "initial commit"],
    ):
        subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, timeout=30)
    return fixture


def _fill(text: str, fixture: Path) -> str:
    return text.replace("{cache}", str(cache_dir())).replace("{fixture}", str(fixture))


def mcprobe_executable() -> str:
    beside = Path(sys.executable).parent / "mcprobe"
    found = str(beside) if beside.exists() else shutil.which("mcprobe")
    if found is None:
        raise RuntimeError("no mcprobe executable beside this Python or on PATH")
    return found


def audit_command(
    server: Server,
    fixture: Path,
    report_path: Path,
    extra: tuple[str, ...],
    mcprobe: Sequence[str] | None = None,
) -> tuple[str, ...]:
    """The namespaced ``mcprobe audit --fuzz`` of ``server``; ``mcprobe``: the command that runs
    mcprobe (default: the executable beside this Python; another version's, e.g.
    ``env PYTHONPATH=DIR python -m mcprobe``, for ``scripts/compare_real.py``)."""
    env_args = [a for k, v in server.env.items() for a in ("--env", f"{k}={_fill(v, fixture)}")]
    return (
        *NETNS,
        *(mcprobe if mcprobe is not None else (mcprobe_executable(),)),
        "audit",
        "--fuzz",
        *extra,
        "--format",
        "json",
        "--output",
        str(report_path),
        "--cwd",
        str(fixture),
        *env_args,
        "--",
        *(_fill(a, fixture) for a in server.argv),
    )


def audit_real_server(
    server_id: str,
    *extra_cli_args: str,
    workdir: Path | None = None,
    timeout: float = 900,
    mcprobe: Sequence[str] | None = None,
) -> RealAudit:
    """Audit one manifest server with ``mcprobe audit --fuzz --format json`` plus extra args
    (``mcprobe``: as for ``audit_command``).

    A fresh fixture is made under ``workdir`` (a new temporary directory when None, removed
    afterwards). The whole namespace is killed after ``timeout`` seconds (TimeoutExpired).
    """
    server = manifest()[server_id]
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix=f"mcprobe-real-{server_id}-") as tmp:
            return audit_real_server(
                server_id, *extra_cli_args, workdir=Path(tmp), timeout=timeout, mcprobe=mcprobe
            )
    fixture = make_fixture(workdir)
    report_path = workdir / "report.json"
    extra = _filled_examples(extra_cli_args, fixture, workdir)
    command = audit_command(server, fixture, report_path, extra, mcprobe)
    env = dict(os.environ, HOME=str(fixture / "home"))
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=fixture, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    seconds = time.monotonic() - started
    text = report_path.read_text(encoding="utf-8") if report_path.exists() else "{}"
    report: dict[str, Any] = json.loads(text)
    return RealAudit(server_id, report, done.stderr, done.returncode, seconds, command)


def _filled_examples(args: tuple[str, ...], fixture: Path, workdir: Path) -> tuple[str, ...]:
    """``args`` with the file after each ``--examples`` replaced by a copy whose strings have
    ``{fixture}`` / ``{cache}`` filled in (realistic examples name paths inside the fixture)."""
    out = list(args)
    for index, arg in enumerate(out[:-1]):
        if arg == "--examples":
            data = json.loads(Path(out[index + 1]).read_text(encoding="utf-8"))
            filled = workdir / f"examples-{index}.json"
            filled.write_text(json.dumps(_fill_json(data, fixture)), encoding="utf-8")
            out[index + 1] = str(filled)
    return tuple(out)


def _fill_json(value: Any, fixture: Path) -> Any:
    if isinstance(value, str):
        return _fill(value, fixture)
    if isinstance(value, list):
        return [_fill_json(item, fixture) for item in value]
    if isinstance(value, dict):
        return {key: _fill_json(item, fixture) for key, item in value.items()}
    return value


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    problem = skip_reason()
    if problem is not None:
        print(f"real_servers: {problem}", file=sys.stderr)
        return 1
    server_id, prefix, *extra = argv
    run = audit_real_server(server_id, *extra)
    Path(f"{prefix}.json").write_text(json.dumps(run.report, indent=2) + "\n", encoding="utf-8")
    Path(f"{prefix}.md").write_text(str(run.report.get("markdown", "")), encoding="utf-8")
    sys.stderr.write(run.stderr)
    print(f"{server_id}: exit {run.returncode}, {run.seconds:.1f} s", file=sys.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
