"""The command's messages (issue 26 item 8): the target named once in a connect failure, each
command's own help, shell-quoted suggestions, and "did you mean" for typos."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import pytest

from mcprobe.cli.commands import EXIT_CONNECT, EXIT_OK, EXIT_USAGE, run
from tests.support.paths import CLI_TARGET


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", ["audit", "pin"])
def test_a_refused_connection_names_the_target_once(command: str) -> None:
    code, _, err = _run(command, "--connect-timeout", "5", "http://127.0.0.1:1/mcp")
    assert code == EXIT_CONNECT
    assert err.count("could not connect to") == 1, err
    assert err.count("http://127.0.0.1:1/mcp") == 1, err


def test_pin_help_is_pins_own_with_the_target_options_only() -> None:
    code, out, _ = _run("pin", "--help")
    assert code == EXIT_OK
    assert out.startswith("usage: mcprobe pin ")
    assert "--connect-timeout" in out and "--env NAME[=VALUE]" in out
    options = out.split("examples:")[0].split("options:")[1]
    for audit_only in ("--fuzz", "--format", "--fail-under", "--baseline", "--lock", "--json"):
        assert audit_only not in options, audit_only


def test_serve_help_says_what_serve_does() -> None:
    code, out, err = _run("serve", "--help")
    assert code == EXIT_OK and err == ""
    assert out.startswith("usage: mcprobe [serve]") and "stdin/stdout" in out
    code, _, err = _run("serve", "extra")
    assert code == EXIT_USAGE and "serve takes no arguments" in err


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["audti", "x"], "did you mean 'audit'?"),
        (["pn"], "did you mean 'pin'?"),
        (["audit", "--fuz", "http://127.0.0.1:1/mcp"], "did you mean --fuzz?"),
        (
            ["audit", "--connect-timout=3", "http://127.0.0.1:1/mcp"],
            "did you mean --connect-timeout?",
        ),
        (["pin", "--timout", "3", "http://127.0.0.1:1/mcp"], "did you mean --timeout?"),
    ],
)
def test_typos_get_a_did_you_mean(argv: list[str], hint: str) -> None:
    code, _, err = _run(*argv)
    assert code == EXIT_USAGE
    assert hint in err and len(err.splitlines()) == 1, err


def test_a_word_far_from_every_command_gets_no_guess() -> None:
    code, _, err = _run("zzzzzz")
    assert code == EXIT_USAGE and "did you mean" not in err


def test_scan_shell_quotes_the_command_it_suggests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "my project"
    (project / ".cursor").mkdir(parents=True)
    config = project / ".cursor" / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"s": {"command": sys.executable, "args": [CLI_TARGET]}}})
    )
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(project)
    code, out, _ = _run("scan")
    assert code == EXIT_OK
    line = next(line for line in out.splitlines() if "audit: " in line)
    suggested = shlex.split(line.split("audit: ", 1)[1])
    assert suggested[:4] == ["mcprobe", "audit", "--config", str(config)]


def test_a_tools_typo_is_named_with_the_nearest_listed_tool() -> None:
    code, out, err = _run(
        "audit", "--fuzz", "--json", "--tools", "ech,whereami", "--", sys.executable, CLI_TARGET
    )
    assert code == EXIT_OK, err
    assert "mcprobe: --tools: the server lists no tool named 'ech' (did you mean 'echo'?)" in err
    code, out, err = _run(
        "audit", "--fuzz", "--json", "--tools", "ech", "--", sys.executable, CLI_TARGET
    )
    assert json.loads(out)["notGraded"].count(
        "no listed tool is named 'ech' (did you mean 'echo'?)"
    )
