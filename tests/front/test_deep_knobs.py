"""The deep pass's knobs in every front-end (issue 25 item 4): ``--deep`` / ``--seed`` on the
command line, ``deep`` / ``seed`` in mcprobe.toml, ``deep: true`` / ``seed`` on probe_fuzz and
probe_report, ``deep=`` / ``seed=`` in the library, all reaching the one ``AuditRequest``; and
one audit over real stdio with ``--deep`` whose report names the seed and the calls sent."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import anyio
import pytest

from mcprobe.cli.audit_args import parse_audit
from mcprobe.cli.commands import EXIT_OK, EXIT_USAGE, run
from mcprobe.cli.config_file import ConfigFileError, load
from mcprobe.core.deep.model import DEFAULT_SEED
from mcprobe.core.errors import UsageError
from mcprobe.core.knobs import DEEP, SEED
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.request import AuditRequest
from tests.support.mcprobe_server import call, mcprobe_client
from tests.support.paths import CLI_TARGET

PY = sys.executable
TARGET = ("--", PY, str(CLI_TARGET), "--extra-tools", "2")
DEEP_NOTE = re.compile(r"Deep pass \(seed (\d+)\): (\d+) deep calls sent to (\d+) tool")


def _request(*argv: str) -> AuditRequest:
    return parse_audit(["--no-config", *argv, "--", "cmd"], io.StringIO()).request


def test_deep_and_seed_on_the_command_line_reach_the_audit_request() -> None:
    request = _request("--deep", "--seed", "7")
    assert (request.deep, request.seed, request.fuzz) == (True, 7, True)
    plain = _request("--fuzz")
    assert (plain.deep, plain.seed) == (False, DEFAULT_SEED)


def test_deep_alone_uses_the_default_seed_and_implies_fuzz() -> None:
    request = _request("--deep")
    assert request.fuzz is True
    assert request.seed == DEFAULT_SEED


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--seed", "3"), "--seed needs --deep"),
        (("--deep", "--seed", "-1"), "expected a whole number ≥ 0"),
        (("--deep", "--seed", "x"), "expected a whole number"),
    ],
)
def test_a_seed_without_deep_or_not_a_whole_number_is_a_usage_error(
    argv: tuple[str, ...], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        _request(*argv)


def test_deep_and_seed_in_mcprobe_toml_reach_the_audit_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mcprobe.toml").write_text("[audit]\ndeep = true\nseed = 3\n")
    request = parse_audit(["--", "cmd"], io.StringIO()).request
    assert (request.deep, request.seed, request.fuzz) == (True, 3, True)
    assert parse_audit(["--seed", "9", "--", "cmd"], io.StringIO()).request.seed == 9
    # The file's seed waits for the deep pass: idle without it, not an error.
    (tmp_path / "mcprobe.toml").write_text("[audit]\nfuzz = true\nseed = 3\n")
    request = parse_audit(["--", "cmd"], io.StringIO()).request
    assert (request.deep, request.seed) == (False, DEFAULT_SEED)


@pytest.mark.parametrize("text", ["[audit]\ndeep = 'yes'\n", "[audit]\nseed = -1\n"])
def test_a_bad_deep_or_seed_in_mcprobe_toml_names_the_key(tmp_path: Path, text: str) -> None:
    (tmp_path / "mcprobe.toml").write_text(text)
    with pytest.raises(ConfigFileError, match=r"mcprobe\.toml: audit\.(deep|seed)"):
        load(tmp_path / "mcprobe.toml")


def test_the_library_request_takes_deep_and_seed_and_deep_implies_fuzz() -> None:
    spec = TargetSpec("stdio", command="cmd")
    request = AuditRequest(spec, deep=True, seed=11)
    assert (request.fuzz, request.deep, request.seed) == (True, True, 11)
    assert AuditRequest(spec).seed == DEFAULT_SEED


def test_the_deep_knobs_are_named_in_each_front_ends_words() -> None:
    assert (DEEP.set("cli"), DEEP.set("tool"), DEEP.set("library")) == (
        "--deep",
        "deep: true",
        "deep=True",
    )
    assert (SEED.set("cli", 4), SEED.set("tool", 4), SEED.set("library", 4)) == (
        "--seed 4",
        "seed: 4",
        "seed=4",
    )


@pytest.mark.anyio
async def test_deep_true_on_probe_fuzz_and_probe_report_reaches_the_audit() -> None:
    target = {"command": PY, "args": [str(CLI_TARGET)], "sandbox": "off"}
    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            error, text, _ = await call(client, "probe_connect", target)
            assert not error, text
            error, text, fuzz = await call(client, "probe_fuzz", {"deep": True, "seed": 5})
            assert not error, text
            error, text, report = await call(
                client, "probe_report", {"deep": True, "detail": "full"}
            )
            assert not error, text
            error, text, _ = await call(client, "probe_fuzz", {"deep": True, "seed": -1})
    fuzz_notes = [m for n in fuzz["notes"] if (m := DEEP_NOTE.search(n))]
    assert [m.group(1) for m in fuzz_notes] == ["5"]
    assert any("`deep: true, seed: 5`" in n for n in fuzz["notes"])
    report_notes = [m for n in report["notes"] if (m := DEEP_NOTE.search(n))]
    assert [m.group(1) for m in report_notes] == [str(DEFAULT_SEED)]
    assert report["coverage"]["fuzzed"]  # deep implies fuzz
    assert error and "seed" in text


def test_an_audit_with_deep_over_real_stdio_reports_the_seed_and_the_deep_calls_sent() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", "--no-config", "--deep", "--sandbox", "off", "--json", *TARGET], out, err)
    assert code == EXIT_OK, err.getvalue()
    report = json.loads(out.getvalue())
    notes = [m for n in report["notes"] if (m := DEEP_NOTE.search(n))]
    assert len(notes) == 1
    seed, calls, tools = (int(g) for g in notes[0].groups())
    assert seed == DEFAULT_SEED
    assert calls > 0
    assert tools == len(report["coverage"]["fuzzed"])
    code = run(["audit", "--no-config", "--seed", "1", "--json", *TARGET], out, err)
    assert code == EXIT_USAGE


@pytest.mark.anyio
async def test_probe_fuzz_with_deep_returns_the_deep_findings_structured_and_in_its_text() -> None:
    from tests.targets import DEEP_DEFECTS

    target = {"command": PY, "args": [str(DEEP_DEFECTS)], "sandbox": "off"}
    with anyio.fail_after(120):
        async with mcprobe_client() as client:
            error, text, _ = await call(client, "probe_connect", target)
            assert not error, text
            error, text, fuzz = await call(client, "probe_fuzz", {"deep": True, "tools": ["greet"]})
    assert not error, text
    assert fuzz["deep"]["seed"] == DEFAULT_SEED
    (greet,) = fuzz["deep"]["tools"]
    kinds = {(f["field"], f["edge"], f["kind"]) for f in greet["findings"]}
    assert ("name", "emptyString", "deepRuntimeError") in kinds
    assert "- `greet` `deep:name:emptyString`: Runtime error on a valid input" in text
