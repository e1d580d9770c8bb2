"""``mcprobe audit --server-json FILE``: the MCP registry's description of a server becomes the
audit's target, exactly as published (issue 26 item 9)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from mcprobe.cli.commands import EXIT_OK, EXIT_USAGE, parse_audit, run
from mcprobe.cli.server_json import expand, target_argv
from mcprobe.core.errors import UsageError
from tests.support.http_demo import http_demo_target

NPM: dict[str, Any] = {
    "name": "io.github.acme/notes",
    "version": "1.2.3",
    "packages": [
        {
            "registryType": "npm",
            "identifier": "@acme/notes-mcp",
            "version": "1.2.3",
            "transport": {"type": "stdio"},
            "runtimeArguments": [{"type": "positional", "value": "--offline"}],
            "packageArguments": [
                {"type": "named", "name": "--root", "value": "{dir}",
                 "variables": {"dir": {"default": "/srv/notes"}}},
                {"type": "positional", "valueHint": "mode", "default": "read-write"},
                {"type": "named", "name": "--verbose"},
            ],
            "environmentVariables": [
                {"name": "NOTES_TOKEN", "isRequired": True, "isSecret": True,
                 "description": "API token"},
                {"name": "NOTES_REGION", "default": "eu"},
                {"name": "NOTES_OPTIONAL"},
            ],
        },
        {"registryType": "pypi", "identifier": "acme-notes", "version": "1.2.3"},
        {"registryType": "oci", "identifier": "ghcr.io/acme/notes", "version": "1.2.3",
         "environmentVariables": [{"name": "NOTES_REGION", "value": "us"}]},
        {"registryType": "mcpb", "identifier": "https://example.invalid/notes.mcpb"},
        {"registryType": "npm", "identifier": "@acme/notes-http",
         "transport": {"type": "streamable-http", "url": "http://localhost:8080/mcp"}},
    ],
    "remotes": [
        {
            "type": "streamable-http",
            "url": "https://notes.example.invalid/mcp",
            "headers": [{"name": "Authorization", "isRequired": True, "isSecret": True}],
        },
        {"type": "sse", "url": "https://notes.example.invalid/sse"},
    ],
}  # fmt: skip


def test_an_npm_package_becomes_npx_with_its_arguments_pinned_version_and_environment() -> None:
    target = target_argv(NPM, None, ["--env", "NOTES_TOKEN=tok-9f8e7d6c5b4a"])
    assert target.entry == "package:0"
    assert target.target == (
        "--",
        "npx",
        "--yes",
        "--offline",
        "@acme/notes-mcp@1.2.3",
        "--root",
        "/srv/notes",
        "read-write",
    )
    # the command line's own NOTES_TOKEN wins; the default is passed, marked secret
    assert target.options == (
        "--secret-env", "NOTES_TOKEN", "--env", "NOTES_REGION=eu", "--secret-env", "NOTES_REGION"
    )  # fmt: skip


def test_pypi_runs_through_uvx_and_oci_through_docker_with_each_variable_named() -> None:
    pypi = target_argv(NPM, "package:1", [])
    assert pypi.target == ("--", "uvx", "acme-notes==1.2.3")
    oci = target_argv(NPM, "package:2", ["--env", "EXTRA=1"])
    assert oci.target == (
        "--", "docker", "run", "-i", "--rm", "-e", "EXTRA", "-e", "NOTES_REGION",
        "ghcr.io/acme/notes:1.2.3",
    )  # fmt: skip
    assert oci.options == ("--env", "NOTES_REGION=us", "--secret-env", "NOTES_REGION")


def test_a_required_variable_the_file_leaves_open_is_one_usage_error_naming_the_flag() -> None:
    with pytest.raises(UsageError) as info:
        target_argv(NPM, None, [])
    assert str(info.value) == (
        "--server-json: package:0 needs environment variable NOTES_TOKEN (API token): pass "
        "--env NOTES_TOKEN=VALUE"
    )


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("package:3", "registryType 'mcpb' is not one mcprobe can start"),
        ("package:4", "runs a streamable-http server, not stdio"),
        ("package:9", "the file lists 5 package(s), numbered from 0"),
        ("tool:0", "--entry: expected package:N or remote:N"),
        ("remote:0", "needs header Authorization: pass --header 'Authorization: VALUE'"),
    ],
)
def test_an_entry_that_cannot_run_as_published_says_which_and_why(entry: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        target_argv(NPM, entry, [])


def test_a_remote_entry_is_its_url_with_the_headers_the_command_line_does_not_set() -> None:
    remote = target_argv(NPM, "remote:0", ["--header", "authorization: Bearer x"])
    assert (remote.options, remote.target) == ((), ("https://notes.example.invalid/mcp",))
    assert target_argv(NPM, "remote:1", []).target == ("https://notes.example.invalid/sse",)


def test_the_file_becomes_the_parsed_target_and_the_command_line_options_still_apply(
    tmp_path: Path,
) -> None:
    path = tmp_path / "server.json"
    path.write_text(json.dumps(NPM), encoding="utf-8")
    argv = ["--fuzz", "--server-json", str(path), "--env", "NOTES_TOKEN=tok-9f8e7d6c5b4a"]
    assert expand(argv)[-4:] == ["@acme/notes-mcp@1.2.3", "--root", "/srv/notes", "read-write"]
    invocation = parse_audit(argv, io.StringIO())
    spec = invocation.request.spec
    assert (spec.command, spec.args[:3]) == ("npx", ("--yes", "--offline", "@acme/notes-mcp@1.2.3"))
    assert spec.env["NOTES_TOKEN"] == "tok-9f8e7d6c5b4a" and spec.env["NOTES_REGION"] == "eu"
    assert "tok-9f8e7d6c5b4a" in spec.secret_values()
    assert invocation.request.fuzz


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--server-json", "{f}", "--", "python", "x.py"], "give no -- COMMAND beside it"),
        (["--entry", "package:0", "--", "python"], "--entry needs --server-json FILE"),
        (
            ["--server-json", "{f}", "http://127.0.0.1:1/mcp", "--entry", "remote:1"],
            "exactly one target",
        ),
        (["--server-json", "{dir}/missing.json"], "cannot read"),
    ],
)
def test_server_json_misuse_is_one_usage_line(
    tmp_path: Path, argv: list[str], message: str
) -> None:
    path = tmp_path / "server.json"
    path.write_text(json.dumps(NPM), encoding="utf-8")
    filled = [a.format(f=path, dir=tmp_path) for a in argv]
    err = io.StringIO()
    assert run(["audit", *filled], io.StringIO(), err) == EXIT_USAGE
    assert err.getvalue().count("\n") == 1 and message in err.getvalue(), err.getvalue()


def test_a_published_remote_is_audited_over_http_with_its_header_and_the_value_stays_secret(
    tmp_path: Path,
) -> None:
    token = "sj-bearer-7c1d9e0f44"
    with http_demo_target("SJ_TOKEN", token) as url:
        published = {
            "name": "io.github.acme/demo",
            "remotes": [
                {
                    "type": "streamable-http",
                    "url": url,
                    "headers": [
                        {
                            "name": "Authorization",
                            "value": "Bearer {token}",
                            "variables": {"token": {"value": token}},
                        }
                    ],
                }
            ],
        }
        path = tmp_path / "server.json"
        path.write_text(json.dumps(published), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        code = run(["audit", "--json", "--no-surface", "--server-json", str(path)], out, err)
        lock_out, lock_err = io.StringIO(), io.StringIO()
        pinned = run(["pin", "--server-json", str(path)], lock_out, lock_err)
    assert pinned == EXIT_OK, lock_err.getvalue()
    assert json.loads(lock_out.getvalue())["tools"] and token not in lock_out.getvalue()
    assert code == EXIT_OK, err.getvalue()
    report = json.loads(out.getvalue())
    assert report["target"]["url"] == url and report["target"]["headerNames"] == ["Authorization"]
    assert report["server"]["name"]
    assert token not in out.getvalue() and token not in err.getvalue()
