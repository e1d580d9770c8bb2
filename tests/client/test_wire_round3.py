"""The wire rules of issue 22 that need no process: exact reply ids, and how mcprobe encodes
its own requests (lone surrogates escaped, an unencodable request never written)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types

from mcprobe.client.raw_session import RawSession
from mcprobe.client.transports.stdio import encode_message
from mcprobe.client.wire_events import Unsendable


def _request(params: dict[str, Any], rid: int = 7) -> types.JSONRPCRequest:
    return types.JSONRPCRequest(jsonrpc="2.0", id=rid, method="tools/call", params=params)


def test_a_request_holding_a_lone_surrogate_is_written_as_one_ascii_line_with_a_json_escape() -> (
    None
):
    data = encode_message(_request({"cursor": "page-2-\ud83d"}))
    assert isinstance(data, bytes) and data.endswith(b"\n") and data.count(b"\n") == 1
    assert b"page-2-\\ud83d" in data
    assert json.loads(data)["params"]["cursor"] == "page-2-\ud83d"  # the same string, exactly


def test_a_plain_request_is_written_as_before() -> None:
    data = encode_message(_request({"name": "échos"}))
    assert isinstance(data, bytes)
    assert json.loads(data) == {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "échos"},
    }


def test_a_request_that_cannot_be_encoded_is_unsendable_for_its_id_and_nothing_is_written() -> None:
    event = encode_message(_request({"x": float("nan"), "s": "\ud83d"}, rid=9))
    assert isinstance(event, Unsendable)
    assert event.request_id == 9
    assert event.reason.startswith("not sent: mcprobe could not encode this request as JSON")


def test_an_answer_of_ours_that_cannot_be_encoded_is_dropped_not_raised() -> None:
    answer = types.JSONRPCResponse(jsonrpc="2.0", id=3, result={"x": float("inf"), "s": "\ud83d"})
    assert encode_message(answer) == b""


def _session_waiting_for(*ids: int) -> RawSession:
    session = RawSession(None, secrets=())  # type: ignore[arg-type]  # no request is sent
    session._next_id = max(ids)
    session._waiting.update(ids)
    return session


def test_a_string_id_never_answers_a_numeric_request_and_is_an_unknown_id() -> None:
    session = _session_waiting_for(7)
    assert session.observe_reply("7") is False
    assert 7 in session._waiting  # still waiting for the genuine reply
    assert session.observe_reply(7) is True
    codes = {f.code: f.message for f in session.findings()}
    assert '(first: id "7")' in codes["server.unknown_reply_id"]
    assert "server.duplicate_reply" not in codes


def test_a_boolean_id_never_answers_request_one() -> None:
    session = _session_waiting_for(1)
    assert session.observe_reply(True) is False
    assert session.observe_reply(1) is True


def test_a_second_exact_reply_is_the_duplicate_and_a_late_one_is_no_finding() -> None:
    session = _session_waiting_for(1, 2)
    assert session.observe_reply(1) is True
    assert session.observe_reply(1) is False  # the stray second answer
    session._waiting.discard(2)  # request 2 was abandoned (timed out)
    assert session.observe_reply(2) is False
    codes = {f.code: f.message for f in session.findings()}
    assert "(first: id 1)" in codes["server.duplicate_reply"]
    assert "server.unknown_reply_id" not in codes


def _fed(line: bytes) -> list[Any]:
    from mcprobe.client.transports.stdio import _LineSplitter

    return _LineSplitter(1 << 20).feed(line + b"\n")


def test_a_batch_line_is_split_into_its_messages_in_order() -> None:
    from mcp.shared.message import SessionMessage

    from mcprobe.client.wire_events import BatchSeen, NotificationsSeen

    batch = [
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x"}},
        {"jsonrpc": "2.0", "id": "p1", "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "result": {"content": []}},
    ]
    items = _fed(json.dumps(batch).encode())
    assert isinstance(items[0], BatchSeen) and items[0].size == 3
    messages = [i.message for i in items if isinstance(i, SessionMessage)]
    assert isinstance(messages[0], types.JSONRPCRequest) and messages[0].id == "p1"
    assert isinstance(messages[1], types.JSONRPCResponse) and messages[1].id == 3
    counted = [i for i in items if isinstance(i, NotificationsSeen)]
    assert counted and counted[0].counts == {"notifications/message": 1}


def test_an_empty_or_non_message_array_is_no_batch_of_messages() -> None:
    from mcp.shared.message import SessionMessage

    from mcprobe.client.wire_events import StdoutNoise

    assert all(isinstance(i, StdoutNoise) for i in _fed(b"[]"))
    items = _fed(b'[[1, 2], "x"]')
    assert not any(isinstance(i, SessionMessage) for i in items)
    assert sum(isinstance(i, StdoutNoise) for i in items) == 2


def test_a_batch_is_a_finding_only_when_the_negotiated_version_has_no_batches() -> None:
    from mcprobe.client.wire_events import BatchSeen

    for version, expected in (("2025-03-26", False), ("2025-06-18", True)):
        session = _session_waiting_for(1)
        session.protocol_version = version
        anyio.run(session._on_stream_exception, BatchSeen(3))
        found = [f for f in session.findings() if f.code == "server.jsonrpc_batch"]
        assert bool(found) is expected, version
        if found:
            assert "under protocol version 2025-06-18" in found[0].message
