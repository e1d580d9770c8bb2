"""A target spec describes the target by the names of its secrets, never their values; one
constructor (``target_spec``) validates a target for the CLI, the server and the library alike."""

from __future__ import annotations

import io

import anyio
import pytest

import mcprobe
from mcprobe.cli.commands import parse_audit
from mcprobe.core.errors import UsageError
from mcprobe.core.target_spec import TargetSpec, scrub, target_spec
from mcprobe.report.model import describe_target
from mcprobe.server.app import spec_from_input
from mcprobe.server.models import ConnectInput


def test_describe_names_env_and_headers_but_never_their_values() -> None:
    spec = TargetSpec(
        "http",
        url="http://127.0.0.1:1/mcp",
        headers={"X-Api-Key": "hdr-secret-1"},
        bearer="bearer-secret-2",
    )
    described = describe_target(spec).model_dump_json()
    assert "X-Api-Key" in described
    assert "hdr-secret-1" not in described and "bearer-secret-2" not in described
    assert "hdr-secret-1" not in repr(spec) and "bearer-secret-2" not in repr(spec)


def test_url_passwords_and_query_values_are_secrets_and_are_redacted() -> None:
    spec = TargetSpec("http", url="https://user:pw-secret-3@example.test/mcp?key=query-secret-4")
    assert set(spec.secret_values()) == {"pw-secret-3", "query-secret-4"}
    url = describe_target(spec).url or ""
    assert "pw-secret-3" not in url and "query-secret-4" not in url
    assert url.startswith("https://user:[redacted]@example.test/mcp?key=")


def test_scrub_replaces_longer_secrets_first_and_ignores_tiny_values() -> None:
    spec = TargetSpec(
        "stdio",
        command="x",
        env={"A": "abcd", "B": "abcdefgh", "C": "ab"},
        secret_env=frozenset({"A", "B", "C"}),
    )
    assert spec.secret_values() == ("abcdefgh", "abcd")
    assert scrub("abcdefgh abcd ab", spec.secret_values()) == "[redacted] [redacted] ab"


def test_query_values_without_a_credential_name_are_not_treated_as_secrets() -> None:
    spec = TargetSpec("http", url="https://example.test/mcp?format=json&access_token=tok-secret-5")
    assert spec.secret_values() == ("tok-secret-5",)


# --------------------------------------------------------------------------- one way in


def _cli_error(argv: list[str]) -> str:
    with pytest.raises(UsageError) as caught:
        parse_audit(argv, io.StringIO())
    return str(caught.value)


def _server_error(**arguments: object) -> str:
    with pytest.raises(UsageError) as caught:
        spec_from_input(ConnectInput.model_validate(arguments))
    return str(caught.value)


def _library_error(coro: object) -> str:
    async def go() -> None:
        await coro  # type: ignore[misc]

    with pytest.raises(UsageError) as caught:
        anyio.run(go)
    return str(caught.value)


@pytest.mark.parametrize("url", ["ftp://example.test/mcp", "http://", "http://127.0.0.1:99999/m"])
def test_a_bad_url_gets_the_same_message_from_the_cli_the_server_and_the_library(url: str) -> None:
    cli = _cli_error([url])
    assert cli.startswith("malformed url")
    assert _server_error(url=url) == cli
    assert _library_error(mcprobe.audit_url(url)) == cli


def test_a_bad_env_name_and_a_bad_timeout_get_the_same_message_from_server_and_library() -> None:
    server = _server_error(command="python", env={"1A": "x"})
    assert server == "env: '1A' is not a valid environment variable name"
    assert _library_error(mcprobe.audit_stdio("python", env={"1A": "x"})) == server
    with pytest.raises(UsageError, match="timeout must be a positive number of seconds"):
        target_spec(command="python", call_timeout=0)


def test_one_constructor_checks_every_combination_once() -> None:
    with pytest.raises(UsageError, match="not both"):
        target_spec(command="python", url="http://127.0.0.1:1/mcp")
    with pytest.raises(UsageError, match="give a command"):
        target_spec()
    with pytest.raises(UsageError, match="transport http needs a url"):
        target_spec(transport="http", command="python")
    with pytest.raises(UsageError, match="transport stdio needs a non-empty command"):
        target_spec(command="  ")
    with pytest.raises(UsageError, match="apply to stdio targets only"):
        target_spec(url="http://127.0.0.1:1/mcp", cwd="/")
    with pytest.raises(UsageError, match="apply to http/sse targets only"):
        target_spec(command="python", bearer="t0ken")
    with pytest.raises(UsageError, match="unknown transport 'ws'"):
        target_spec(transport="ws", url="http://127.0.0.1:1/mcp")
    spec = target_spec(url="https://u:p4ss@example.test/mcp")
    assert (spec.transport, spec.url) == ("http", "https://u:p4ss@example.test/mcp")
    with pytest.raises(UsageError, match="credentials in headers"):
        target_spec(url="https://u:p4ss@example.test/mcp", url_credentials=False)
    assert target_spec(command="python", args=["-m", "x"]).args == ("-m", "x")


@pytest.mark.parametrize(
    "name", ["API_TOKEN", "GITHUB_PAT_KEY", "DB_PASSWORD", "DB_PWD", "SESSION_COOKIE", "my_secret"]
)
def test_an_env_value_whose_name_says_secret_is_redacted(name: str) -> None:
    spec = TargetSpec("stdio", command="x", env={name: "plain"})
    assert spec.secret_values() == ("plain",)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("LOG_LEVEL", "info"),
        ("X", "true"),
        ("HOME", "/root"),
        ("PWD", "/work/some/dir"),
        ("PORT", "8080"),
        ("BASE_URL", "https://example.test/v1"),
        ("PYTHONPATH", "/usr/local/lib/python3.11/site-packages"),
        ("MODE", "error"),
    ],
)
def test_configuration_env_values_are_not_secrets(name: str, value: str) -> None:
    spec = TargetSpec("stdio", command="x", env={name: value})
    assert spec.secret_values() == ()


@pytest.mark.parametrize(
    "value",
    [
        "ghp_abcdefghijklmnopqrstuvwx12",
        "sk-proj-abcdefghijklmnop",
        "AKIAIOSFODNN7EXAMPLE",
        "aB3dE5gH7jK9mN1pQ3sT5vX7",
    ],
)
def test_an_env_value_shaped_like_a_key_is_redacted_whatever_its_name(value: str) -> None:
    spec = TargetSpec("stdio", command="x", env={"UPSTREAM": value})
    assert spec.secret_values() == (value,)


def test_secret_env_marks_a_plain_name_secret_and_rejects_a_bad_name() -> None:
    marked = target_spec(command="x", env={"MYVAR": "hunter2xyz"}, secret_env=["MYVAR"])
    assert marked.secret_values() == ("hunter2xyz",)
    assert target_spec(command="x", env={"MYVAR": "hunter2xyz"}).secret_values() == ()
    with pytest.raises(UsageError, match="secret-env"):
        target_spec(command="x", env={"MYVAR": "v"}, secret_env=["bad-name"])


def test_secret_env_applies_to_stdio_targets_only() -> None:
    with pytest.raises(UsageError, match="secret-env and cwd apply to stdio targets only"):
        target_spec(url="http://127.0.0.1:1/mcp", secret_env=["API_TOKEN"])
    spec = target_spec(command="x", env={"PIN": "1234"}, secret_env=["PIN"])
    assert spec.secret_values() == ("1234",)
