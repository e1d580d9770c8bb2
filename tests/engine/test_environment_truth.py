"""The faults an offline machine hides, and the false verdicts it used to cause (issue 23), on a
real stdio target (``tests/targets/env_blind.py``) audited over the live protocol.

Every "broken" tool has an honest look-alike next to it that must stay silent.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcprobe import audit_stdio, audit_url
from mcprobe.report.model import ConformanceReport
from tests.support.http_demo import http_demo_target
from tests.targets import TARGETS_DIR

pytestmark = pytest.mark.anyio

ENV_BLIND = str(TARGETS_DIR / "env_blind.py")


async def _audit(*tools: str) -> ConformanceReport:
    with anyio.fail_after(90):
        return await audit_stdio(sys.executable, [ENV_BLIND, "tools=" + ",".join(tools)], fuzz=True)


def _by_tool(report: ConformanceReport) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for result in report.fuzz:
        found.setdefault(result.name, []).append(result)
    return found


def _deductions(report: ConformanceReport) -> set[str]:
    return {d.cause for dim in report.dimensions for d in dim.deductions}


async def test_malformed_input_answered_like_the_offline_valid_call_is_a_validation_bypass() -> (
    None
):
    report = await _audit("forecast", "forecast_checked")
    tools = _by_tool(report)
    bypassed = [r for r in tools["forecast"] if r.malformed and r.outcome != "notRun"]
    assert bypassed and all(r.validation_bypass and not r.inconclusive for r in bypassed)
    assert all("reached the handler unvalidated" in (r.note or "") for r in bypassed)
    # the valid call itself stays inconclusive: the machine has no network
    valid = next(r for r in tools["forecast"] if not r.malformed)
    assert valid.environment and valid.inconclusive
    # the honest look-alike validates first: its rejections are clean and conclusive
    checked = [r for r in tools["forecast_checked"] if r.malformed]
    assert checked and not any(r.validation_bypass for r in checked)
    assert all(r.outcome == "toolError" and not r.inconclusive for r in checked)
    eh = next(d for d in report.dimensions if d.key == "errorHandling")
    assert [d.cause for d in eh.deductions] == ["validationBypass"]
    assert set(eh.deductions[0].tools) == {"forecast"}


async def test_an_error_returned_as_text_stays_conclusive_offline_the_flagged_one_does_not() -> (
    None
):
    report = await _audit("rates", "rates_flagged")
    tools = _by_tool(report)
    valid = next(r for r in tools["rates"] if not r.malformed)
    assert valid.failure_as_success and not valid.inconclusive
    assert all(r.silently_accepted and not r.inconclusive for r in tools["rates"] if r.malformed)
    flagged = tools["rates_flagged"]
    assert flagged[0].environment and flagged[0].inconclusive
    assert not any(r.failure_as_success or r.silently_accepted for r in flagged)
    assert valid.note is not None and "reports failure as success" in valid.note


async def test_install_hints_on_the_next_line_and_unreachable_services_are_the_environment() -> (
    None
):
    report = await _audit("render_page", "convert_pdf", "sync_remote")
    for name, results in _by_tool(report).items():
        valid = next(r for r in results if not r.malformed)
        assert valid.source == "schema", name  # the schema's own example was refused...
        assert valid.environment and valid.inconclusive, name  # ...for want of the machine
    assert "rejectedValid" not in _deductions(report)
    assert report.markdown is not None and "correct the example" not in report.markdown


async def test_an_all_default_call_is_synthesized_and_a_precondition_refusal_is_inconclusive() -> (
    None
):
    report = await _audit("list_notes", "list_tags")
    tools = _by_tool(report)
    notes = next(r for r in tools["list_notes"] if not r.malformed)
    assert notes.arguments == {} and notes.source == "synthesized"
    assert notes.outcome == "toolError" and notes.inconclusive
    assert "unmet precondition" in notes.inconclusive
    tags = next(r for r in tools["list_tags"] if not r.malformed)
    assert tags.outcome == "ok" and not tags.inconclusive  # the honest look-alike works
    assert "rejectedValid" not in _deductions(report)


async def test_an_http_report_says_environment_exposure_was_not_provable_and_how_to_prove_it() -> (
    None
):
    with http_demo_target("TRUTH_TOKEN", "truth-bearer") as url:
        with anyio.fail_after(60):
            report = await audit_url(url, bearer="truth-bearer")
    (note,) = [n for n in report.notes if n.startswith("Environment exposure was not provable")]
    assert "audit the server's stdio command" in note and "canary" in note
    assert report.markdown is not None and "Environment exposure was not provable" in (
        report.markdown
    )
    # over stdio the canary is planted, and the report says that instead
    stdio = await _audit("list_tags")
    assert not any(n.startswith("Environment exposure was not provable") for n in stdio.notes)
    assert any(n.startswith("Canary: ") for n in stdio.notes)


async def test_a_refusal_naming_its_setup_tool_is_sent_again_after_calling_it() -> None:
    """Issue 23 item 1: "Call open_workspace first": mcprobe calls open_workspace (a tool the
    run calls anyway) and sends list_notes' refused calls again, judged by that answer."""
    report = await _audit("list_notes", "open_workspace")
    notes = [r for r in report.fuzz if r.name == "list_notes"]
    valid = next(r for r in notes if not r.malformed)
    assert valid.outcome == "ok" and not valid.inconclusive
    assert valid.note is not None and "after calling `open_workspace` first" in valid.note
    # its malformed cases now meet a working control: clean, conclusive rejections
    bad = [r for r in notes if r.malformed and r.kind != "non_object_arguments"]
    assert bad and all(r.outcome == "toolError" and not r.inconclusive for r in bad)
    assert all("Invalid arguments" in (r.message or "") for r in bad)


async def test_a_directory_the_server_was_started_with_is_the_base_of_its_valid_calls(
    tmp_path: Path,
) -> None:
    """Issue 23 item 8: `python env_blind.py /srv/docs` names its directory; with it as the
    path, the valid call works and the silent acceptance behind the placeholder appears."""
    root = str(tmp_path)
    with anyio.fail_after(90):
        report = await audit_stdio(
            sys.executable, [ENV_BLIND, "tools=list_dir,list_dir_checked", root], fuzz=True
        )
    tools = _by_tool(report)
    for name in ("list_dir", "list_dir_checked"):
        valid = next(r for r in tools[name] if not r.malformed)
        assert valid.arguments == {"path": root} and valid.outcome == "ok", name
        assert valid.source == "synthesized"  # still mcprobe's choice of value
    garbage = next(r for r in tools["list_dir"] if r.case == "extra_garbage")
    assert garbage.silently_accepted and not garbage.inconclusive
    checked = next(r for r in tools["list_dir_checked"] if r.case == "extra_garbage")
    assert checked.outcome == "toolError" and not checked.inconclusive


@pytest.mark.parametrize("given", ["argument", "env"])
async def test_a_file_inside_the_directory_the_server_was_given_is_the_base_of_a_read(
    tmp_path: Path, given: str
) -> None:
    """Issue 23 item 8: the allowed directory, given as an argument or in the environment
    (`NOTES_DIR=/srv/docs`), is no file; a file inside it makes read_doc's valid call work, and
    the silent acceptance behind the placeholder appears (read_doc_checked stays clean)."""
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "welcome.md").write_text("welcome\n", encoding="utf-8")
    (docs / ".hidden").write_text("not this one\n", encoding="utf-8")
    args = [ENV_BLIND, "tools=read_doc,read_doc_checked,list_dir"]
    args += [str(docs)] if given == "argument" else []
    env = {"NOTES_DIR": str(docs)} if given == "env" else None
    with anyio.fail_after(90):
        report = await audit_stdio(sys.executable, args, env=env, fuzz=True, sandbox="off")
    tools = _by_tool(report)
    for name in ("read_doc", "read_doc_checked"):
        valid = next(r for r in tools[name] if not r.malformed)
        assert valid.arguments == {"path": str(docs / "sub" / "welcome.md")}, name
        assert valid.outcome == "ok" and valid.source == "synthesized", name
    listing = next(r for r in tools["list_dir"] if not r.malformed)
    assert listing.arguments == {"path": str(docs)}  # a directory tool keeps the directory
    garbage = next(r for r in tools["read_doc"] if r.case == "extra_garbage")
    assert garbage.silently_accepted and not garbage.inconclusive
    checked = next(r for r in tools["read_doc_checked"] if r.case == "extra_garbage")
    assert checked.outcome == "toolError" and not checked.inconclusive
