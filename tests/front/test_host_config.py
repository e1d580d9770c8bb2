"""Host configs as people have them: a real file of each host's format read from disk,
references resolved, `mcprobe scan` finding them under a fake HOME, and `mcprobe audit --config`
auditing several real stdio servers with one report each and a summary table."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcprobe.cli.commands import EXIT_OK, EXIT_USAGE, run
from mcprobe.cli.host_config import ConfigError, find_configs, read_config, strip_jsonc
from tests.support.paths import CLI_TARGET, REPO_ROOT

PY = sys.executable
CLI_TARGET = CLI_TARGET
ROOT = REPO_ROOT


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


CLAUDE_DESKTOP = """{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    },
    "weather": {"command": "uv", "args": ["run", "weather.py"], "env": {"API_KEY": "k-123456"}}
  },
  "globalShortcut": "Ctrl+Space"
}"""

CURSOR = """{
  "mcpServers": {
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_TOKEN": "${env:GH_TOKEN}"}
    },
    "remote": {
      "url": "https://mcp.example.com/mcp",
      "headers": {"Authorization": "Bearer ${env:REMOTE_TOKEN}"}
    }
  }
}"""

VSCODE = """// VS Code workspace MCP config (JSONC)
{
  "inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": true}],
  "servers": {
    "local": {
      "type": "stdio",
      "command": "python",
      "args": ["${workspaceFolder}/server.py"],  // trailing comments are fine
      "cwd": "${workspaceFolder}",
    },
    "http-one": {"type": "http", "url": "http://127.0.0.1:9000/mcp"},
    "legacy": {"type": "sse", "url": "http://127.0.0.1:9001/sse"},
  },
}"""

CLAUDE_CODE = """{
  "mcpServers": {
    "api": {
      "type": "http",
      "url": "${API_BASE_URL:-https://api.example.com}/mcp",
      "headers": {"Authorization": "Bearer ${API_KEY}"}
    },
    "tool": {"type": "stdio", "command": "${HOME}/bin/tool", "args": [], "env": {}}
  }
}"""


def test_claude_desktop_config_is_read_with_command_args_and_env(tmp_path: Path) -> None:
    path = _write(tmp_path / "claude_desktop_config.json", CLAUDE_DESKTOP)
    servers = {s.name: s for s in read_config(path, {})}
    assert servers["filesystem"].transport == "stdio"
    assert servers["filesystem"].command == "npx"
    assert servers["filesystem"].args[-1] == "/Users/me/Desktop"
    assert dict(servers["weather"].env) == {"API_KEY": "k-123456"}
    assert "k-123456" not in servers["weather"].describe()  # names only in listings


def test_cursor_env_references_resolve_from_mcprobes_environment(tmp_path: Path) -> None:
    path = _write(tmp_path / ".cursor" / "mcp.json", CURSOR)
    servers = {s.name: s for s in read_config(path, {"GH_TOKEN": "ghp_x", "REMOTE_TOKEN": "r-9"})}
    assert dict(servers["github"].env) == {"GITHUB_TOKEN": "ghp_x"}
    assert servers["remote"].transport == "http"
    assert dict(servers["remote"].headers) == {"Authorization": "Bearer r-9"}


def test_a_missing_variable_is_an_error_naming_it_and_the_server(tmp_path: Path) -> None:
    path = _write(tmp_path / ".cursor" / "mcp.json", CURSOR)
    with pytest.raises(
        ConfigError, match=r"'github' uses \$\{env:GH_TOKEN\} but GH_TOKEN is not set"
    ):
        read_config(path, {})


def test_vscode_jsonc_servers_with_workspace_folder_and_types(tmp_path: Path) -> None:
    path = _write(tmp_path / "proj" / ".vscode" / "mcp.json", VSCODE)
    servers = {s.name: s for s in read_config(path, {})}
    assert servers["local"].args == (f"{tmp_path / 'proj'}/server.py",)
    assert servers["local"].cwd == str(tmp_path / "proj")
    assert servers["http-one"].transport == "http"
    assert servers["legacy"].transport == "sse"


def test_vscode_input_references_are_refused_with_a_hint(tmp_path: Path) -> None:
    text = '{"servers": {"k": {"command": "x", "env": {"KEY": "${input:api-key}"}}}}'
    path = _write(tmp_path / ".vscode" / "mcp.json", text)
    with pytest.raises(ConfigError, match="asked from the user by VS Code"):
        read_config(path, {})


def test_claude_code_mcp_json_expands_var_and_defaults(tmp_path: Path) -> None:
    path = _write(tmp_path / ".mcp.json", CLAUDE_CODE)
    servers = {s.name: s for s in read_config(path, {"API_KEY": "sk-1", "HOME": "/home/me"})}
    assert servers["api"].url == "https://api.example.com/mcp"
    assert dict(servers["api"].headers) == {"Authorization": "Bearer sk-1"}
    assert servers["tool"].command == "/home/me/bin/tool"
    again = read_config(
        path, {"API_KEY": "sk-1", "HOME": "/h", "API_BASE_URL": "http://127.0.0.1:1"}
    )
    assert {s.name: s for s in again}["api"].url == "http://127.0.0.1:1/mcp"


def test_claude_code_user_file_has_per_project_servers(tmp_path: Path) -> None:
    doc = {
        "numStartups": 3,
        "mcpServers": {"top": {"command": "a"}},
        "projects": {"/p": {"mcpServers": {"inner": {"command": "b", "args": ["1"]}}}},
    }
    path = _write(tmp_path / ".claude.json", json.dumps(doc))
    assert sorted(s.name for s in read_config(path, {})) == ["inner", "top"]


def test_bad_files_and_entries_are_one_line_errors(tmp_path: Path) -> None:
    for text, reason in (
        ("{not json", "is not JSON"),
        ('{"mcpServers": {"x": {"args": ["a"]}}}', "needs either 'command'"),
        ('{"mcpServers": {"x": {"command": "a", "args": "not-a-list"}}}', "server 'x': args"),
    ):
        path = _write(tmp_path / "c.json", text)
        with pytest.raises(ConfigError, match=reason):
            read_config(path, {})


def test_jsonc_keeps_comment_markers_inside_strings() -> None:
    text = '{"a": "http://x//y", /* c */ "b": "/* no */", "c": [1,2,],}'
    assert json.loads(strip_jsonc(text)) == {"a": "http://x//y", "b": "/* no */", "c": [1, 2]}


def test_scan_finds_the_well_known_files_under_home_and_the_project(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(home / ".config/Claude/claude_desktop_config.json", CLAUDE_DESKTOP)
    _write(home / ".cursor/mcp.json", CURSOR)
    _write(project / ".vscode/mcp.json", VSCODE)
    _write(project / ".mcp.json", CLAUDE_CODE)
    hosts = [host for host, _ in find_configs(home, project)]
    assert hosts == ["Claude Desktop", "Cursor", "VS Code", "Claude Code"]
    env = {k: v for k, v in os.environ.items() if k not in ("GH_TOKEN", "API_KEY")}
    done = subprocess.run(
        [PY, "-m", "mcprobe.cli", "scan"], cwd=project, env=env | {"HOME": str(home)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        "Claude Desktop: " in done.stdout
        and "weather  stdio  uv run weather.py (env: API_KEY)" in done.stdout
    )
    assert "k-123456" not in done.stdout  # env values are never listed
    assert "github  stdio" in done.stdout  # listed although GH_TOKEN is not set
    assert "legacy  sse  http://127.0.0.1:9001/sse" in done.stdout
    as_json = subprocess.run(
        [PY, "-m", "mcprobe.cli", "scan", "--json"], cwd=project, env=env | {"HOME": str(home)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    doc = json.loads(as_json.stdout)
    assert [entry["host"] for entry in doc] == hosts
    assert doc[0]["servers"][1]["envNames"] == ["API_KEY"]


def _audit(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def _two_servers(tmp_path: Path) -> Path:
    doc = {
        "mcpServers": {
            "clean": {"command": PY, "args": [CLI_TARGET, "--clean"]},
            "sloppy": {
                "command": PY,
                "args": [CLI_TARGET],
                "env": {"CLI_TARGET_SECRET": "${env:UX_TEST_SECRET}"},
            },
            "off": {"command": PY, "args": [CLI_TARGET], "disabled": True},
        }
    }
    return _write(tmp_path / "claude_desktop_config.json", json.dumps(doc))


@pytest.mark.slow
def test_audit_config_audits_every_enabled_server_with_reports_and_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UX_TEST_SECRET", "very-secret-value-77")
    config, out_dir = _two_servers(tmp_path), tmp_path / "reports" / "new"  # created
    code, out, err = _audit(
        "--config", str(config), "--output-dir", str(out_dir), "--fuzz", "--fail-on-critical",
        "--json",
    )  # fmt: skip
    assert code == 4  # the worst gate: sloppy silently accepts malformed input
    lines = out.splitlines()
    assert lines[0].split() == ["server", "score", "grade", "critical", "security", "exit"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert set(rows) == {"clean", "sloppy"}
    assert rows["clean"][-1] == "0" and rows["sloppy"][-1] == "4"
    assert int(rows["sloppy"][3]) >= 1
    assert sorted(p.name for p in out_dir.iterdir()) == ["clean.json", "sloppy.json"]
    everything = out + err + "".join(p.read_text() for p in out_dir.iterdir())
    assert "very-secret-value-77" not in everything
    assert "[sloppy] critical" in err or "[sloppy]" in err


@pytest.mark.slow
def test_one_named_server_without_output_dir_is_a_plain_audit(tmp_path: Path) -> None:
    code, out, _ = _audit(
        "--config", str(_two_servers(tmp_path)), "--server", "clean", "--format", "md"
    )
    assert code == EXIT_OK
    assert out.startswith("# mcprobe conformance report")


def test_config_usage_errors_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _two_servers(tmp_path)
    code, _, err = _audit("--config", str(config), "--output-dir", str(tmp_path))
    assert code == EXIT_USAGE and "UX_TEST_SECRET is not set" in err  # named, no value
    monkeypatch.setenv("UX_TEST_SECRET", "s3cr3t-value")
    for argv, reason in (
        (["--server", "nope"], "'nope' is not in"),
        (["--server", "clean", "--", PY], "no -- COMMAND"),
        (["--output", "x.md"], "use --output-dir"),
        (["--output-dir", str(config)], "exists and is not a directory"),
        (["--json"], "--json needs --output-dir DIR"),
        (["--format", "sarif"], "--format sarif needs --output-dir DIR"),
        (["--parallel", "0"], "--parallel"),
    ):
        code, _, err = _audit("--config", str(config), *argv)
        assert code == EXIT_USAGE, (argv, err)
        assert reason in err and len(err.splitlines()) == 1
    code, _, err = _audit("--server", "clean", "http://127.0.0.1:1/mcp")
    assert code == EXIT_USAGE and "--config" in err


def test_help_with_config_prints_the_audit_help(tmp_path: Path) -> None:
    code, out, _ = _audit("--config", str(_two_servers(tmp_path)), "--help")
    assert code == EXIT_OK and "--output-dir DIR" in out and "exit codes:" in out


@pytest.mark.slow
def test_a_config_env_value_is_a_secret_whatever_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PLAIN_VAR says nothing secret by name or shape: the config's promise makes it one anyway.
    monkeypatch.setenv("UX_TEST_VALUE", "plainish-77")
    target = {"command": PY, "args": [CLI_TARGET, "--clean", "--echo-env", "PLAIN_VAR"]}
    doc = {"mcpServers": {"one": {**target, "env": {"PLAIN_VAR": "${env:UX_TEST_VALUE}"}}}}
    config = _write(tmp_path / "claude_desktop_config.json", json.dumps(doc))
    code, out, err = _audit("--config", str(config), "--fuzz", "--json")
    assert code == EXIT_OK, err
    assert "plainish-77" not in out + err
    assert "PLAIN_VAR=[redacted]" in out  # the target did echo it


@pytest.mark.slow
def test_every_server_of_a_config_audit_gets_the_lock_and_no_surface_like_a_single_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UX_TEST_SECRET", "very-secret-value-77")
    # audit --config used to pass the audit options one by one and had dropped --lock (and
    # the config file's rule overrides): each server of it is now audited like `mcprobe audit`.
    out, err = io.StringIO(), io.StringIO()
    assert run(["pin", "--", PY, CLI_TARGET, "--clean"], out, err) == EXIT_OK
    lock = _write(tmp_path / "mcprobe.lock", out.getvalue())
    out_dir = tmp_path / "reports"
    out_dir.mkdir()
    code, _, err_text = _audit(
        "--config", str(_two_servers(tmp_path)), "--output-dir", str(out_dir), "--json",
        "--lock", str(lock), "--no-surface",
    )  # fmt: skip
    assert code == EXIT_OK, err_text
    reports = {p.stem: json.loads(p.read_text()) for p in out_dir.iterdir()}
    assert set(reports) == {"clean", "sloppy"}
    for report in reports.values():
        assert report["drift"] is not None and report["lock"] is None
        assert report["surface"] is None
