"""The canary is searched in everything a stdio target writes, not only tool answers: log
notifications, resource contents, prompt messages, the initialize answer, stderr. Real target
processes over stdio (tests/targets/leaky_surface.py), each leaking one way, and their honest
look-alike that stays silent; plus the pure parts (the wire watch, the findings)."""

from __future__ import annotations

import mcp_types as types
import pytest

from mcprobe.client.canary_watch import CanaryWatch
from mcprobe.client.transports.stdio import _LineSplitter
from mcprobe.core.model import Location
from mcprobe.core.security.proofs import CanarySighting, sighting_findings
from mcprobe.report.model import ConformanceReport
from tests.support.leaky_surface import audit_leaky_surface


def _canary_value(report: ConformanceReport) -> str:
    note = next(n for n in report.notes if n.startswith("Canary:"))
    return note.split("=", 1)[1].split("`", 1)[0]


@pytest.mark.parametrize(
    ("word", "code", "location", "says"),
    [
        ("leak_log", "security.canary_leak", Location(), "A `notifications/message` notification"),
        (
            "leak_resource",
            "security.canary_leak",
            Location(resource="config://settings"),
            "Resource `config://settings` (its `resources/read` contents)",
        ),
        (
            "leak_template",
            "security.canary_leak",
            Location(resource="env://1"),
            "Resource `env://1`",
        ),
        (
            "leak_prompt",
            "security.canary_leak",
            Location(prompt="review"),
            "Prompt `review` (its `prompts/get` messages)",
        ),
        ("leak_info", "security.canary_leak", Location(), "The server's answer to `initialize`"),
        ("leak_stderr", "security.canary_in_logs", Location(), "to its stderr"),
    ],
)
def test_the_canary_is_found_in_each_channel_a_server_leaks_it_through(
    word: str, code: str, location: Location, says: str
) -> None:
    report = audit_leaky_surface(word)
    security = [f for f in report.findings if f.code.startswith("security.")]
    where = [(f.code, f.location.resource, f.location.prompt, f.location.tool) for f in security]
    assert where == [(code, location.resource, location.prompt, None)]
    assert says in security[0].message
    assert _canary_value(report) in security[0].message  # shown: it is no secret
    if code == "security.canary_leak":
        assert security[0].severity == "critical"
        assert report.overall is not None and report.overall <= 39
    else:
        assert security[0].severity == "warning"
        assert report.grade != "F"


def test_an_honest_server_that_lists_its_variable_names_and_logs_raises_no_canary_finding() -> None:
    # It logs at start, reads its settings and lists its variable NAMES (the canary's too).
    report = audit_leaky_surface()
    assert [f.code for f in report.findings if f.code.startswith("security.")] == []
    assert any(n.startswith("Canary:") for n in report.notes)


# ------------------------------------------------------------------ the pure parts


def _request(rid: int, method: str, params: dict[str, object]) -> types.JSONRPCRequest:
    return types.JSONRPCRequest(jsonrpc="2.0", id=rid, method=method, params=params)


def test_the_wire_watch_attributes_replies_to_their_request_and_leaves_tool_calls_alone() -> None:
    watch = CanaryWatch("mcprobe-canary-abc")
    splitter = _LineSplitter(1 << 20, watch)
    watch.sent(_request(1, "resources/read", {"uri": "file:///a"}))
    watch.sent(_request(2, "tools/call", {"name": "dump", "arguments": {}}))
    watch.sent(_request(3, "prompts/get", {"name": "p"}))
    lines = [
        b'{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"file:///a","text":"mcprobe-canary-abc"}]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"mcprobe-canary-abc"}]}}',
        b'{"jsonrpc":"2.0","id":3,"result":{"messages":[]}}',
        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"mcprobe-canary-abc"}}',
        b"plain log line mcprobe-canary-abc",
    ]
    splitter.feed(b"\n".join(lines) + b"\n")
    assert watch.sightings == (
        CanarySighting("reply", "resources/read", "file:///a"),
        CanarySighting("notification", "notifications/message"),
        CanarySighting("stdout"),
    )


def test_the_wire_watch_finds_the_canary_split_across_two_stderr_chunks() -> None:
    watch = CanaryWatch("mcprobe-canary-abc")
    watch.stderr(b"env: mcprobe-can")
    before = watch.sightings
    watch.stderr(b"ary-abc and more")
    assert (before, watch.sightings) == ((), (CanarySighting("stderr"),))


def test_a_target_without_a_canary_is_never_searched() -> None:
    watch = CanaryWatch(None)
    watch.line(b"anything", None, "notifications/message")
    watch.stderr(b"anything")
    assert watch.sightings == ()


def test_log_sightings_make_one_warning_and_client_sightings_one_critical_each() -> None:
    sightings = [
        CanarySighting("stderr"),
        CanarySighting("stdout"),
        CanarySighting("request", "sampling/createMessage"),
        CanarySighting("reply", "completion/complete"),
    ]
    found = sighting_findings(sightings, ("MCPROBE_CANARY_X", "v"))
    assert [(f.code, f.severity) for f in found] == [
        ("security.canary_leak", "critical"),
        ("security.canary_leak", "critical"),
        ("security.canary_in_logs", "warning"),
    ]
    assert "its stderr and its stdout" in found[2].message
    assert sighting_findings(sightings, None) == []
