"""What an answer proves: errors dressed as successes, the environment, and working controls."""

from __future__ import annotations

from typing import Literal

import pytest

from mcprobe.core.calls.classify import classify_call, classify_unknown_tool_probe
from mcprobe.core.calls.evidence import (
    environment_cause,
    evidence_notes,
    failure_text,
    judge_controls,
    protocol_notes,
    setup_plan,
    setup_tool,
    unmet_precondition,
)
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import (
    JSON,
    Case,
    CaseResult,
    CaseSource,
    Coverage,
    FuzzRun,
    Outcome,
    RawCall,
    RawKind,
)
from mcprobe.report.build import summarise_fuzz, to_result_out

TOOL: JSON = {"name": "t", "inputSchema": {"type": "object"}}


def _text(text: str, *, is_error: bool = False, structured: JSON = None) -> RawCall:
    result: dict[str, JSON] = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    if structured is not None:
        result["structuredContent"] = structured
    return RawCall(RawKind.RESULT, 3.0, result=result)


def _case(
    kind: CaseKind = CaseKind.VALID,
    source: CaseSource = CaseSource.SYNTHESIZED,
    tool: str = "t",
    arguments: JSON = None,
) -> Case:
    label = "valid" if kind is CaseKind.VALID else f"{kind.value}:a"
    args = {"repo_path": "example.txt"} if arguments is None else arguments
    return Case(tool, kind, label, args, kind is not CaseKind.VALID, source)


def _run(case: Case, raw: RawCall) -> CaseResult:
    return classify_call(case, raw, TOOL)


# --------------------------------------------------------------------------- failure text


@pytest.mark.parametrize(
    "text",
    [
        "Error: repository not found",
        "error - bad input",
        "Error executing tool git_status: not a git repository",
        "Exception: boom",
        "Traceback (most recent call last):\n  File 'x'",
        "Failed to fetch https://example.com/",
        "failed: timeout",
        "ValueError: invalid literal",
        '{"success": false, "error": "no such table"}',
        '{"error": "bad"}',
    ],
)
def test_text_that_starts_by_reporting_failure_is_a_failure(text: str) -> None:
    assert failure_text(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "0 errors found",
        "Error handling guide: always set isError",
        "The build failed last week but passes now",
        "Found 3 matches for 'Exception'",
        '{"success": true, "error": null}',
        '{"errors": []}',
        "Exceptional results",
        "",
    ],
)
def test_ordinary_success_text_that_mentions_errors_is_not_a_failure(text: str) -> None:
    assert failure_text(text) is None


def test_structured_content_with_success_false_and_an_error_is_a_failure() -> None:
    assert failure_text("done", {"success": False, "error": "x"}) is not None
    assert failure_text("done", {"success": False}) is None
    assert failure_text("done", {"ok": True, "error": "x"}) is None


def test_a_valid_call_answered_with_error_text_but_no_is_error_is_a_finding() -> None:
    res = _run(_case(), _text("Error: not a git repository"))
    assert res.outcome is Outcome.OK
    assert res.failure_as_success
    assert res.note is not None and "without `isError`" in res.note
    plain = _run(_case(), _text("On branch main, 0 errors"))
    assert not plain.failure_as_success


def test_a_malformed_call_refused_only_in_text_stays_silently_accepted_and_says_so() -> None:
    res = _run(_case(CaseKind.WRONG_TYPE), _text("Error: a must be a number"))
    assert res.silently_accepted and not res.failure_as_success
    assert res.note is not None and "refusal was only in the text" in res.note
    assert "accepted" not in res.note.split(";")[0].replace("protocol said success", "")
    garbage = _run(_case(CaseKind.WRONG_TYPE), _text("42"))
    assert garbage.note is not None and garbage.note.startswith("malformed input was accepted")


# --------------------------------------------------------------------------- environment


@pytest.mark.parametrize(
    "text",
    [
        "getaddrinfo EAI_AGAIN api.github.com",
        "request to https://x.dev failed, reason: getaddrinfo ENOTFOUND x.dev",
        "TypeError: fetch failed",
        "connect ECONNREFUSED 140.82.112.3:443",
        "[Errno -3] Temporary failure in name resolution",
        "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed",
        "browserType.launch: Executable doesn't exist at /root/.cache/ms-playwright/chrome",
        "spawn git ENOENT",
        "No module named 'readabilipy'",
        "connect ENETUNREACH 2606:50c0::153:443",
        "[Errno 30] Read-only file system: '/home/u/notes/todo.md'",
        "EROFS: read-only file system, open '/srv/data/x.json'",
        "BlockingIOError: [Errno 11] Resource temporarily unavailable (fork failed)",
        "Error: spawn EAGAIN",
        "OSError: [Errno 27] File too large",
    ],
)
def test_failures_caused_by_the_machine_are_environment(text: str) -> None:
    assert environment_cause(text) is not None
    res = _run(_case(), _text(text, is_error=True))
    assert res.environment is not None
    (judged,) = judge_controls([res])
    assert judged.inconclusive is not None and "this machine lacks" in judged.inconclusive


@pytest.mark.parametrize(
    "text",
    [
        "connect ECONNREFUSED 127.0.0.1:6379",
        "connect ECONNREFUSED localhost:5432",
        "not a git repository: example.txt",
        "Access denied - path outside allowed directories",
        "Unknown timezone 'example'",
        "MemoryError",
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
        "BlockingIOError: [Errno 11] Resource temporarily unavailable",
        "the file is too large to display",
    ],
)
def test_failures_the_server_owns_are_not_environment(text: str) -> None:
    assert environment_cause(text) is None


# --------------------------------------------------------------------------- controls


def test_a_refused_synthesized_valid_call_is_inconclusive_and_names_the_sample() -> None:
    res = _run(_case(), _text("not a git repository", is_error=True))
    (judged,) = judge_controls([res])
    assert judged.inconclusive is not None
    assert '{"repo_path": "example.txt"}' in judged.inconclusive
    assert "--examples" in judged.inconclusive
    assert not judged.conclusive


@pytest.mark.parametrize("source", [CaseSource.USER, CaseSource.SCHEMA])
def test_a_refused_user_or_schema_example_is_a_real_failure(source: CaseSource) -> None:
    res = _run(_case(source=source), _text("not a git repository", is_error=True))
    (judged,) = judge_controls([res])
    assert judged.inconclusive is None and judged.conclusive


@pytest.mark.parametrize(
    "raw",
    [
        RawCall(RawKind.JSONRPC_ERROR, 1.0, error_code=-32603, error_message="boom"),
        RawCall(RawKind.TIMEOUT, 1.0),
        RawCall(RawKind.TRANSPORT_LOST, 1.0),
        RawCall(RawKind.RESULT, 1.0, result={"content": []}),
    ],
)
def test_internal_errors_timeouts_crashes_and_empty_successes_stay_verdicts(raw: RawCall) -> None:
    (judged,) = judge_controls([_run(_case(), raw)])
    assert judged.inconclusive is None


def test_rejections_prove_nothing_when_the_control_failed() -> None:
    control = _run(_case(), _text("not a git repository", is_error=True))
    rejection = _run(_case(CaseKind.WRONG_TYPE), _text("not a git repository", is_error=True))
    accept = _run(_case(CaseKind.MISSING_REQUIRED), _text("fine"))
    judged = judge_controls([control, rejection, accept])
    assert judged[1].inconclusive is not None and "valid call did not succeed" in (
        judged[1].inconclusive
    )
    assert judged[2].inconclusive is None and judged[2].silently_accepted


def test_rejections_count_against_a_working_control() -> None:
    control = _run(_case(), _text("On branch main"))
    rejection = _run(_case(CaseKind.WRONG_TYPE), _text("bad", is_error=True))
    judged = judge_controls([control, rejection])
    assert all(r.inconclusive is None for r in judged)


def test_a_validation_rejection_is_conclusive_even_when_the_control_failed() -> None:
    control = _run(_case(), _text("not a git repository", is_error=True))
    by_code = _run(
        _case(CaseKind.WRONG_TYPE),
        RawCall(RawKind.JSONRPC_ERROR, 1.0, error_code=-32602, error_message="Invalid params"),
    )
    by_text = _run(
        _case(CaseKind.NULL_VALUE),
        _text("Input validation error: expected string, received null", is_error=True),
    )
    judged = judge_controls([control, by_code, by_text])
    assert judged[1].inconclusive is None
    assert judged[2].inconclusive is None


def test_controls_are_per_tool() -> None:
    broken = _run(_case(tool="a"), _text("nope", is_error=True))
    working = _run(_case(tool="b"), _text("ok"))
    rej_a = _run(_case(CaseKind.WRONG_TYPE, tool="a"), _text("bad", is_error=True))
    rej_b = _run(_case(CaseKind.WRONG_TYPE, tool="b"), _text("bad", is_error=True))
    judged = judge_controls([broken, working, rej_a, rej_b])
    assert judged[2].inconclusive is not None
    assert judged[3].inconclusive is None


def test_a_tool_without_any_valid_call_has_no_control() -> None:
    rejection = _run(_case(CaseKind.WRONG_TYPE), _text("bad", is_error=True))
    (judged,) = judge_controls([rejection])
    assert judged.inconclusive is not None and "no valid call" in judged.inconclusive


# --------------------------------------------------------------------------- report


def _fuzz(results: list[CaseResult], **probes: CaseResult) -> FuzzRun:
    return FuzzRun(
        results=judge_controls(results),
        coverage=Coverage(total_tools=1, fuzzed_tools=("t",), skipped=()),
        **probes,  # type: ignore[arg-type]
    )


def test_inconclusive_results_are_counted_summarised_and_never_a_problem() -> None:
    sample = _run(_case(), _text("not a git repository", is_error=True))
    offline = _run(_case(tool="web"), _text("getaddrinfo EAI_AGAIN x.dev", is_error=True))
    rejection = _run(_case(CaseKind.WRONG_TYPE), _text("not a git repository", is_error=True))
    fuzz = _fuzz([sample, offline, rejection])
    summary = summarise_fuzz([to_result_out(r) for r in fuzz.results])
    assert (summary.inconclusive, summary.environment) == (3, 1)
    assert all(not to_result_out(r).verdicts for r in fuzz.results)
    notes = evidence_notes(fuzz)
    assert any(
        n.startswith("1 call could not be judged here: the tools need network") for n in notes
    )
    assert any("`--examples FILE`" in n and "`t`" in n for n in notes)
    assert any("rejection(s) of malformed input are inconclusive" in n for n in notes)


def test_a_conclusive_run_has_no_evidence_notes() -> None:
    control = _run(_case(), _text("On branch main"))
    rejection = _run(_case(CaseKind.WRONG_TYPE), _text("bad", is_error=True))
    assert evidence_notes(_fuzz([control, rejection])) == []


def test_protocol_probes_get_one_low_severity_protocol_note_each_outside_the_tool_notes() -> None:
    control = _run(_case(), _text("On branch main"))
    flat_case = Case("t", CaseKind.NON_OBJECT_ARGUMENTS, "non_object_arguments", [], True)
    flat = _run(flat_case, RawCall(RawKind.JSONRPC_ERROR, 1.0, error_code=-32603))
    unknown = classify_unknown_tool_probe("nope", _text("Unknown tool: nope", is_error=True))
    run = _fuzz([control], non_object_probe=flat, unknown_tool_probe=unknown)
    notes = protocol_notes(run)
    assert len(notes) == 2 and all(
        n.startswith("Protocol (low severity, no points)") for n in notes
    )
    assert evidence_notes(run) == []
    clean_flat = _run(flat_case, RawCall(RawKind.JSONRPC_ERROR, 1.0, error_code=-32602))
    clean_unknown = classify_unknown_tool_probe(
        "nope", RawCall(RawKind.JSONRPC_ERROR, 1.0, error_code=-32602)
    )
    assert (
        protocol_notes(
            _fuzz([control], non_object_probe=clean_flat, unknown_tool_probe=clean_unknown)
        )
        == []
    )


def test_an_unknown_tool_answered_with_plain_text_is_reported_as_exactly_that() -> None:
    res = classify_unknown_tool_probe("nope", _text("Unknown tool: nope"))
    assert res.note is not None and "executed" not in res.note
    assert "answered as a success (no `isError`)" in res.note
    failed = classify_unknown_tool_probe("nope", _text("Error: unknown tool nope"))
    assert failed.note is not None and "text saying it failed, but without `isError`" in failed.note


def test_an_error_looking_answer_the_call_asked_for_is_not_a_failure() -> None:
    asked = _case(arguments={"messageType": "error"})
    assert not _run(asked, _text("Error: Operation failed")).failure_as_success
    plain = _case(arguments={"messageType": "success"})
    assert _run(plain, _text("Error: Operation failed")).failure_as_success


def test_the_fetch_servers_connection_failure_is_environment() -> None:
    text = (
        "Error executing tool fetch: Failed to fetch robots.txt https://example.com/robots.txt "
        "due to a connection issue"
    )
    assert environment_cause(text) is not None
    assert environment_cause("Failed to fetch: 404 Not Found") is None


def test_failure_as_success_is_its_own_verdict_on_valid_calls_only() -> None:
    dressed = to_result_out(_run(_case(), _text("Error: not a git repository")))
    assert "failureAsSuccess" in dressed.verdicts
    honest = to_result_out(_run(_case(), _text("On branch main")))
    assert "failureAsSuccess" not in honest.verdicts
    malformed = to_result_out(_run(_case(CaseKind.WRONG_TYPE), _text("Error: bad input")))
    assert malformed.verdicts[0] == "silentlyAccepted"
    assert "failureAsSuccess" not in malformed.verdicts


# --------------------------------------------------------------------------- issue 23


@pytest.mark.parametrize(
    "text",
    [
        "Error reading file /srv/a.txt: EACCES",
        "Error fetching rates: getaddrinfo ENOTFOUND rates.example",
        "Database error: no such table: users",
        "Git command error: fatal: bad revision",
        '{"status": "error", "message": "quota exceeded"}',
        '{"error": "no such sheet", "code": 4}',
    ],
)
def test_the_wider_failure_text_forms_are_failures(text: str) -> None:
    assert failure_text(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Error handling guide: always set isError",
        "No error: all 3 checks passed",
        "Last error: none",
        '{"status": "error", "message": "x", "rows": [1]}',
        '{"error": null, "message": "ok"}',
    ],
)
def test_the_wider_failure_text_forms_leave_honest_successes_alone(text: str) -> None:
    assert failure_text(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "Chromium not found at /opt/chrome/chrome\nRun `npx playwright install chromium` first.",
        "Error: pandoc is not installed.\nInstall it with: apt-get install pandoc",
        "PDF conversion requires the optional 'pdf' extra.\nInstall it with: pip install 'x[pdf]'",
        "Could not reach the sync service after 3 retries.",
        "Failed to connect to api.example.com",
        "HTTPSConnectionPool(host='x.dev', port=443): Max retries exceeded with url: /",
    ],
)
def test_install_hints_across_lines_and_unreachable_services_are_environment(text: str) -> None:
    assert environment_cause(text) is not None
    (judged,) = judge_controls([_run(_case(source=CaseSource.SCHEMA), _text(text, is_error=True))])
    assert judged.inconclusive is not None and "this machine lacks" in judged.inconclusive


@pytest.mark.parametrize(
    "text",
    [
        "file not found: notes.txt",
        "Sheet 'Q3' not found in workbook",
        "Error: city 'Atlantis' is unknown",
    ],
)
def test_an_ordinary_not_found_is_still_the_servers_answer(text: str) -> None:
    assert environment_cause(text) is None


def test_an_error_dressed_as_success_stays_conclusive_whatever_the_environment() -> None:
    offline = "Error fetching rates: getaddrinfo ENOTFOUND rates.example"
    valid = _run(_case(), _text(offline))
    bad = _run(_case(CaseKind.WRONG_TYPE), _text(offline))
    judged = judge_controls([valid, bad])
    assert judged[0].failure_as_success and judged[0].conclusive
    assert judged[1].silently_accepted and judged[1].conclusive
    assert "failureAsSuccess" in to_result_out(judged[0]).verdicts


@pytest.mark.parametrize(
    "text",
    [
        "No workspace is set. Call open_workspace first.",
        "no working directory set yet",
        "Session not initialized",
        "You must call `connect` before using this tool",
        "No active browser page",
    ],
)
def test_a_refusal_that_names_an_unmet_precondition_is_inconclusive(text: str) -> None:
    for source in CaseSource:
        (judged,) = judge_controls([_run(_case(source=source), _text(text, is_error=True))])
        assert judged.inconclusive is not None and "unmet precondition" in judged.inconclusive
    assert unmet_precondition(text) is not None


def test_an_ordinary_refusal_is_no_precondition() -> None:
    for text in ("not a git repository", "Invalid arguments: limit must be >= 1", "no such note"):
        assert unmet_precondition(text) is None
    (judged,) = judge_controls(
        [_run(_case(source=CaseSource.SCHEMA), _text("no such note", is_error=True))]
    )
    assert judged.conclusive


def test_the_setup_tool_a_precondition_names_is_found_only_among_the_servers_tools() -> None:
    text = "No workspace is set. Call open_workspace first."
    assert setup_tool(text, ["list_notes", "open_workspace"], "list_notes") == "open_workspace"
    assert setup_tool(text, ["list_notes"], "list_notes") is None
    assert setup_tool("Call list_notes first", ["list_notes"], "list_notes") is None


def _offline(kind: CaseKind, text: str, **kw: JSON) -> CaseResult:
    args = {"city": "Paris"} if kind is CaseKind.VALID else {"city": 7}
    return _run(_case(kind, arguments=args), _text(text, is_error=True, **kw))


def test_a_malformed_case_answered_like_the_offline_control_is_a_validation_bypass() -> None:
    offline = "fetch failed (getaddrinfo ENOTFOUND api.weather.example)"
    judged = judge_controls(
        [_offline(CaseKind.VALID, offline), _offline(CaseKind.WRONG_TYPE, offline)]
    )
    assert judged[0].inconclusive is not None  # the control: the machine has no network
    bypass = judged[1]
    assert bypass.validation_bypass and bypass.conclusive and not bypass.rejected
    assert to_result_out(bypass).verdicts == ["validationBypass"]


def test_a_different_answer_to_malformed_input_offline_is_no_bypass() -> None:
    offline = "fetch failed (getaddrinfo ENOTFOUND api.weather.example)"
    other = "fetch failed (getaddrinfo ENOTFOUND 7)"  # the bad value reached the URL: not the same
    judged = judge_controls(
        [_offline(CaseKind.VALID, offline), _offline(CaseKind.WRONG_TYPE, other)]
    )
    assert not judged[1].validation_bypass and judged[1].inconclusive is not None
    checked = judge_controls(
        [_offline(CaseKind.VALID, offline), _offline(CaseKind.WRONG_TYPE, "Invalid arguments")]
    )
    assert not checked[1].validation_bypass and checked[1].conclusive and checked[1].rejected


def test_a_schema_whose_properties_are_all_optional_gives_a_synthesized_empty_call() -> None:
    defaults = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {"limit": {"type": "integer", "default": 20}},
        },
    }
    valid = next(c for c in generate_cases(defaults).cases if not c.malformed)
    assert valid.arguments == {} and valid.source is CaseSource.SYNTHESIZED
    required = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {"limit": {"type": "integer", "default": 20}},
            "required": ["limit"],
        },
    }
    valid = next(c for c in generate_cases(required).cases if not c.malformed)
    assert valid.arguments == {"limit": 20} and valid.source is CaseSource.SCHEMA


def test_the_setup_plan_names_each_setup_tool_once_with_the_tools_that_wait_for_it() -> None:
    refusal = "No workspace is set. Call open_workspace first."
    results = [
        _run(_case(tool="list_notes"), _text(refusal, is_error=True)),
        _run(_case(CaseKind.WRONG_TYPE, tool="list_notes"), _text(refusal, is_error=True)),
        _run(_case(tool="search"), _text(refusal, is_error=True)),
        _run(_case(tool="other"), _text("no such note", is_error=True)),
    ]
    tools = ["list_notes", "search", "other", "open_workspace"]
    assert setup_plan(results, tools) == {"open_workspace": ["list_notes", "search"]}
    assert setup_plan(results, ["list_notes", "search", "other"]) == {}  # not a tool of the run


@pytest.mark.parametrize(
    ("text", "need"),
    [
        ("[Errno 30] Read-only file system: '/home/u/notes.md'", "a writable file system"),
        ("getaddrinfo ENOTFOUND example.com", "network access"),
        ("Error: spawn EAGAIN", "room under a resource limit"),
    ],
)
def test_what_the_sandbox_denies_is_named_as_its_doing_with_how_to_judge_the_calls(
    text: str, need: str
) -> None:
    valid = _run(_case(), _text(text, is_error=True))
    malformed = _run(_case(CaseKind.WRONG_TYPE), _text("bad input", is_error=True))
    judged = judge_controls([valid, malformed], isolated=True)
    assert judged[0].inconclusive is not None
    assert judged[0].inconclusive.startswith(f"the call needs {need}")
    assert judged[0].inconclusive.endswith("which the sandbox denies")
    assert judged[1].inconclusive is not None  # no working control: proves nothing either
    fuzz = FuzzRun(results=judged, coverage=_fuzz(list(judged)).coverage, isolated=True)
    (note, *_) = evidence_notes(fuzz)
    assert note.startswith(f"1 call could not be judged in the sandbox: the tools need {need}")
    assert "`--sandbox off`" in note and 'sandbox: "off"' not in note
    (tool_note, *_) = evidence_notes(fuzz, words="tool")
    assert '`sandbox: "off" on probe_connect`' in tool_note and "--sandbox" not in tool_note
    assert ("private writable copy" in note) == (need == "a writable file system")
    unsandboxed = judge_controls([valid, malformed])
    assert unsandboxed[0].inconclusive is not None
    assert unsandboxed[0].inconclusive.endswith("which this machine lacks")
    (plain, *_) = evidence_notes(_fuzz(list(unsandboxed)))
    assert plain.startswith("1 call could not be judged here") and "--sandbox" not in plain


def test_a_tls_or_missing_binary_failure_in_the_sandbox_stays_the_machines() -> None:
    for text in ("certificate verify failed", "spawn git ENOENT"):
        res = _run(_case(), _text(text, is_error=True))
        (judged,) = judge_controls([res], isolated=True)
        assert judged.inconclusive is not None and "this machine lacks" in judged.inconclusive


@pytest.mark.parametrize(
    "text",
    [
        "No workspace is set. Call open_workspace first.",
        "Error: browserType.launch: Executable doesn't exist\nRun: npx playwright install",
    ],
)
@pytest.mark.parametrize("words", ["cli", "tool", "library"])
def test_a_refused_schema_example_for_a_precondition_or_the_environment_never_blames_the_example(
    text: str, words: Literal["cli", "tool", "library"]
) -> None:
    """Issue 23 item 5: a fix item must never tell the author to correct the schema's example
    when the call was refused for an unmet precondition or a missing browser."""
    refused = _run(_case(source=CaseSource.SCHEMA), _text(text, is_error=True))
    assert "rejectedValid" in refused.verdicts  # as classified, before the evidence rules
    (judged,) = judge_controls([refused], words=words)
    assert judged.inconclusive is not None
    assert "rejectedValid" not in judged.verdicts
    assert "correct" not in judged.inconclusive and "schema" not in judged.inconclusive
    notes = " ".join(evidence_notes(_fuzz([refused])))
    assert "correct the example" not in notes and "correct that example" not in notes
