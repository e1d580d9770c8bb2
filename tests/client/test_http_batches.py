"""JSON-RPC batches over HTTP (issue 22, class 2): ``transports/http_batch.py``.

The relay on its own (bodies and events in, read-stream items out), then real HTTP targets of
``tests/targets`` (Streamable HTTP with a JSON body and with an event stream, legacy HTTP+SSE)
through ``open_target``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import anyio
import pytest
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from mcprobe.client.connection import TargetConnection, open_target
from mcprobe.client.transports.http_batch import NOTICE_METHOD, BatchRelay
from mcprobe.client.wire_events import BatchSeen, NotificationsSeen
from mcprobe.core.target_spec import TargetSpec
from tests.targets.batch_http import BatchServer
from tests.targets.batch_legacy_sse import LegacyBatchServer
from tests.targets.hostile_http import serve

pytestmark = pytest.mark.anyio

LIMIT = 1 << 20
LOG = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}}
PING = {"jsonrpc": "2.0", "id": "ping-1", "method": "ping"}


def reply(rid: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": {"content": []}}


def relayed(relay: BatchRelay, sdk_read: bytes) -> list[Any]:
    """What the read stream carries for one JSON message the SDK parsed (a notice or not)."""
    decoded = json.loads(sdk_read)
    if "method" in decoded:
        message: Any = JSONRPCNotification.model_validate(decoded)
    else:
        message = JSONRPCResponse.model_validate(decoded)
    return relay.expand(SessionMessage(message))


def messages(items: list[Any]) -> list[Any]:
    return [i.message for i in items if isinstance(i, SessionMessage)]


def test_a_json_body_holding_a_batch_reaches_the_read_stream_message_by_message() -> None:
    relay = BatchRelay(LIMIT, {})
    body = json.dumps([LOG, PING, reply(7), LOG], indent=2).encode()
    notice = relay.body(body, 7, 200)
    assert json.loads(notice)["method"] == NOTICE_METHOD
    items = relayed(relay, notice)
    assert isinstance(items[0], BatchSeen) and items[0].size == 4
    request, response = messages(items)
    assert isinstance(request, JSONRPCRequest) and request.id == "ping-1"
    assert isinstance(response, JSONRPCResponse) and response.id == 7
    counted = next(i for i in items if isinstance(i, NotificationsSeen))
    assert counted.counts == {"notifications/message": 2}


def test_a_batch_body_without_the_response_fails_the_request_as_no_json_rpc_reply() -> None:
    faults: dict[int, str] = {}
    relay = BatchRelay(LIMIT, faults)
    items = relayed(relay, relay.body(json.dumps([LOG, reply("7")]).encode(), 7, 200))
    stray, stand_in = messages(items)
    assert stray.id == "7"  # a string id answers no numeric request: the session counts it
    assert isinstance(stand_in, JSONRPCError) and stand_in.id == 7
    assert faults[7] == (
        "not a JSON-RPC reply: HTTP 200 OK, Content-Type application/json, "
        "a JSON-RPC batch of 2 message(s) with no response to the request"
    )


def test_an_event_holding_a_batch_that_answers_the_request_ends_the_sdk_stream_unseen() -> None:
    relay = BatchRelay(LIMIT, {})
    data = json.dumps([LOG, PING, reply(3), LOG]).encode()
    chunk = relay.events(b"id: e1\r\nevent: message\r\ndata: " + data + b"\r\n\r\n", 3)
    events = [e for e in chunk.split(b"\n\n") if e.strip()]
    assert len(events) == 2 and events[0].startswith(b"id: e1\r\nevent: message\r\ndata: {")
    notice, closing = (e.rsplit(b"data: ", 1)[1] for e in events)
    items = relayed(relay, notice)
    assert [type(m).__name__ for m in messages(items)] == ["JSONRPCRequest", "JSONRPCResponse"]
    assert json.loads(closing)["id"] == 3
    assert relayed(relay, closing) == []  # the SDK's stream end, never a second answer
    # The GET stream and legacy SSE answer no POST: no closing response there.
    other = relay.events(b"data: " + data + b"\n\n", None)
    assert other.count(b"data: ") == 1


def test_events_and_bodies_without_a_batch_pass_through_byte_for_byte() -> None:
    relay = BatchRelay(LIMIT, {})
    stream = (
        b': comment [\n\nevent: message\ndata: {"jsonrpc": "2.0", "id": 1, "result": '
        b'{"a": [1]}}\n\ndata: [1,\ndata: 2]\nevent: other\n\ndata: []\n\ndata: [no json'
    )
    assert relay.events(stream, 1) == stream
    for status, body in ((200, b"[]"), (200, b"[1, "), (500, json.dumps([reply(1)]).encode())):
        assert relay.body(body, 1, status) == body


def test_a_batch_of_junk_is_one_invalid_message_not_one_item_per_element() -> None:
    relay = BatchRelay(LIMIT, {})
    junk = [1, {}, {"jsonrpc": "2.0"}, [reply(1)], "x"] * 20_000
    items = relayed(relay, relay.body(json.dumps([*junk, reply(1)]).encode(), 1, 200))
    seen, fault, answer = items
    assert isinstance(seen, BatchSeen) and seen.size == 100_001
    assert isinstance(fault, ValueError)
    assert str(fault) == (
        "100000 element(s) of a JSON-RPC batch that are no JSON-RPC message (first: 1)"
    )
    assert answer.message.id == 1


def test_a_notice_the_target_forges_is_the_notification_it_is() -> None:
    relay = BatchRelay(LIMIT, {})
    relay.body(json.dumps([reply(1)]).encode(), 1, 200)
    forged = {"jsonrpc": "2.0", "method": NOTICE_METHOD, "params": {"key": "guess-1"}}
    items = relayed(relay, json.dumps(forged).encode())
    assert [m.method for m in messages(items)] == [NOTICE_METHOD]
    closing = {"jsonrpc": "2.0", "id": 1, "result": {"mcprobe/closesRelayedBatch": "guess"}}
    assert len(relayed(relay, json.dumps(closing).encode())) == 1


def test_batches_never_expanded_are_dropped_oldest_first_within_twice_the_cap() -> None:
    relay = BatchRelay(1000, {})
    batch = json.dumps([reply(1), {**LOG, "params": {"data": "x" * 600}}]).encode()
    first = relay.body(batch, 1, 200)
    second = relay.body(batch, 1, 200)
    third = relay.body(batch, 1, 200)  # 3 x ~700 bytes > 2 x 1000: the first is gone
    assert [m.method for m in messages(relayed(relay, first))] == [NOTICE_METHOD]
    assert len(messages(relayed(relay, second))) == 1
    assert len(messages(relayed(relay, third))) == 1


# --------------------------------------------------------------------------- real HTTP


def spec(url: str, transport: Literal["http", "sse"] = "http") -> TargetSpec:
    return TargetSpec(transport, url=url, connect_timeout=5.0, call_timeout=5.0)


async def answered_and_counted(target: TargetConnection, server: BatchServer) -> None:
    """Two calls, each answered in a batch with a ping and two log notifications: both pings
    are answered (the answers are POSTs of their own, so they are awaited) and the
    notifications of the first batch are counted once the second call is answered."""
    for _ in range(2):
        call = await target.call_tool("strict", {"x": "a"})
        assert call.result is not None and call.result["content"][0]["text"] == "accepted a"
    assert target.notifications_seen("notifications/message") >= 2
    await server.until_pongs(2)
    found = {f.code for f in target.session_findings()}
    assert not found & {"server.invalid_message", "server.jsonrpc_batch", "server.duplicate_reply"}


@pytest.mark.parametrize("sse", [False, True], ids=["json_body", "event_stream"])
async def test_a_streamable_http_batch_has_its_requests_answered_and_notifications_counted(
    sse: bool,
) -> None:
    server = BatchServer(sse=sse)
    with anyio.fail_after(30):
        async with serve(server) as base, open_target(spec(f"{base}/mcp")) as target:
            assert [t["name"] for t in target.snapshot.tools] == ["strict", "pongs"]
            await answered_and_counted(target, server)


async def test_a_legacy_sse_batch_has_its_requests_answered_and_notifications_counted() -> None:
    server = LegacyBatchServer()
    with anyio.fail_after(30):
        async with serve(server) as base, open_target(spec(f"{base}/sse", "sse")) as target:
            assert [t["name"] for t in target.snapshot.tools] == ["strict", "pongs"]
            await answered_and_counted(target, server)


async def test_an_http_batch_under_another_negotiated_version_is_a_jsonrpc_batch_warning() -> None:
    with anyio.fail_after(30):
        async with (
            serve(BatchServer(sse=False, version="2025-06-18")) as base,
            open_target(spec(f"{base}/mcp")) as target,
        ):
            call = await target.call_tool("strict", {"x": "a"})
            batch = next(f for f in target.session_findings() if f.code == "server.jsonrpc_batch")
    assert call.result is not None and call.result["content"][0]["text"] == "accepted a"
    assert "under protocol version 2025-06-18" in batch.message
