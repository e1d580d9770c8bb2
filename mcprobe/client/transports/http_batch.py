"""JSON-RPC batches over HTTP (MCP 2025-03-26: a client MUST accept them), relayed past the SDK.

The SDK's HTTP clients parse every JSON body and every SSE event as one JSON-RPC message, so a
batch (an array) becomes a parse error of their own making and its messages are lost: the
request it answered fails, its notifications go uncounted, its requests unanswered. The seam is
the one that already holds what the target sent whole and bounded: ``http_cap`` hands on a JSON
body whole (at most the response cap) and an event stream one whole event at a time. There,
``BatchRelay`` replaces an array (non-empty, in a 2xx answer) by a *notice*: a notification with
mcprobe's own method and a random key, the array's text kept here under that key. The SDK
passes the notice on in its place on the stream, and ``BatchRelay.expand`` (run by
``transports/http.py`` on everything the SDK reads) puts the batch's messages there instead,
read exactly as the stdio reader reads a batch line (``stdio.read_batch``: a ``BatchSeen``,
then each element in order: replies matched by id, requests answered, notifications counted).
A notice the target forges names no kept key and stays the notification it is.

Two SDK habits need one more step each, on the answer to one of mcprobe's POSTed requests:

- A JSON body is that request's whole answer; a batch in it that holds no response to the
  request fails the request as "not a JSON-RPC reply" (``HttpLog.reply_fault``) at once.
- An event stream ends at its first response, whose id the SDK rewrites to the request's: when
  a batch holds the response, its notice is followed by a *closing* response carrying the key,
  which ends the SDK's stream and which ``expand`` drops.

Bounded: the kept texts total at most twice the response cap (the oldest dropped first: a
notice the SDK never delivered, its request abandoned, must not pin memory), and each batch
is at most one body or one event, both already capped by ``http_cap``.
"""

from __future__ import annotations

import json
import re
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from mcp.shared.message import SessionMessage
from mcp_types import PARSE_ERROR, ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCResponse

from mcprobe.client.transports.stdio import read_batch
from mcprobe.client.wire_events import StdoutNoise

__all__ = ["NOTICE_METHOD", "BatchRelay"]

NOTICE_METHOD = "mcprobe/relayedBatch"
_CLOSING = "mcprobe/closesRelayedBatch"
_LINE = re.compile(rb"([^\r\n]*)(\r\n|\r|\n)")
_MAX_FAULTS = 1024


@dataclass(frozen=True)
class _Kept:
    text: bytes
    answers: int | None  # the request a JSON body answers whole (it must hold the response)
    status: int


def _decoded_batch(data: bytes) -> list[Any] | None:
    if data.lstrip()[:1] != b"[":
        return None
    try:
        decoded = json.loads(data)
    except (ValueError, RecursionError):
        return None  # not JSON (or too deep to read): the SDK's parser says so as before
    return decoded if isinstance(decoded, list) and decoded else None


def _answers(batch: list[Any], request_id: int) -> bool:
    """Whether an element replies to ``request_id`` (the exact id: value and type)."""
    for element in batch:
        if isinstance(element, dict) and "method" not in element:
            rid = element.get("id")
            if type(rid) is int and rid == request_id:
                return True
    return False


def _phrase(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


class BatchRelay:
    """One connection's batches, from the body or event that held them to the read stream.
    ``faults`` is where a request's reply fault is recorded (``HttpLog.not_jsonrpc``)."""

    def __init__(self, limit: int, faults: dict[int, str]) -> None:
        self._key = secrets.token_hex(16)  # one per connection: a target cannot guess it
        self._budget = 2 * limit
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        self._held = 0
        self._serial = 0
        self._faults = faults

    def _keep(self, data: bytes, answers: int | None, status: int) -> bytes:
        """Keep a batch's text; the notice that stands for it."""
        while self._kept and self._held + len(data) > self._budget:
            _, dropped = self._kept.popitem(last=False)
            self._held -= len(dropped.text)
        self._serial += 1
        key = f"{self._key}-{self._serial}"
        self._kept[key] = _Kept(data, answers, status)
        self._held += len(data)
        notice = {"jsonrpc": "2.0", "method": NOTICE_METHOD, "params": {"key": key}}
        return json.dumps(notice).encode()

    def body(self, body: bytes, request_id: int | None, status: int) -> bytes:
        """A JSON body as the SDK should read it: a batch becomes its notice."""
        if not 200 <= status < 300 or _decoded_batch(body) is None:
            return body
        return self._keep(body, request_id, status)

    def events(self, chunk: bytes, request_id: int | None) -> bytes:
        """Whole SSE events as the SDK should read them: an event whose data is a batch
        becomes its notice (followed by a closing response when it answers ``request_id``)."""
        if b"[" not in chunk:
            return chunk
        out = bytearray()
        event: list[bytes] = []
        end = 0
        for match in _LINE.finditer(chunk):
            end = match.end()
            if match.group(1):
                event.append(match.group(0))
                continue
            out += self._event(event, request_id) + match.group(0)
            event = []
        out += b"".join(event) + chunk[end:]  # an unterminated last event, as it came
        return bytes(out)

    def _event(self, lines: list[bytes], request_id: int | None) -> bytes:
        data: list[bytes] = []
        kept: list[bytes] = []
        kind = b"message"
        for line in lines:
            name, _, value = line.rstrip(b"\r\n").partition(b":")
            value = value[1:] if value[:1] == b" " else value
            if name == b"data":
                data.append(value)
                continue
            if name == b"event":
                kind = value
            kept.append(line)
        text = b"\n".join(data)
        batch = _decoded_batch(text) if kind == b"message" and data else None
        if batch is None:
            return b"".join(lines)
        notice = self._keep(text, None, 200)
        rewritten = b"".join(kept) + b"data: " + notice + b"\n"
        if request_id is not None and _answers(batch, request_id):
            closing = {"jsonrpc": "2.0", "id": request_id, "result": {_CLOSING: self._key}}
            rewritten += b"\nevent: message\ndata: " + json.dumps(closing).encode() + b"\n"
        return rewritten

    def expand(self, item: SessionMessage | Exception) -> list[SessionMessage | Exception]:
        """What the read stream should carry for one item the SDK read."""
        if not isinstance(item, SessionMessage):
            return [item]
        message = item.message
        if isinstance(message, JSONRPCResponse) and message.result == {_CLOSING: self._key}:
            return []
        if not (isinstance(message, JSONRPCNotification) and message.method == NOTICE_METHOD):
            return [item]
        key = message.params.get("key") if isinstance(message.params, dict) else None
        kept = self._kept.pop(key, None) if isinstance(key, str) else None
        if kept is None:
            return [item]  # not one of ours (forged), or dropped for the memory bound
        self._held -= len(kept.text)
        batch = _decoded_batch(kept.text) or []
        items = _named(read_batch(batch, kept.text[:200]))
        if kept.answers is not None and not _answers(batch, kept.answers):
            items.append(self._unanswered(kept.answers, len(batch), kept.status))
        return items

    def _unanswered(self, request_id: int, size: int, status: int) -> SessionMessage:
        if len(self._faults) < _MAX_FAULTS:
            self._faults[request_id] = (
                f"not a JSON-RPC reply: HTTP {_phrase(status)}, Content-Type application/json, "
                f"a JSON-RPC batch of {size} message(s) with no response to the request"
            )
        error = ErrorData(code=PARSE_ERROR, message="batch without a response")
        return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _named(items: list[SessionMessage | Exception]) -> list[SessionMessage | Exception]:
    """Elements that are no JSON-RPC message are one invalid message over HTTP, however many (the
    stdio reader calls each stdout noise); HTTP transports report those as plain exceptions. One
    per batch: a body of a million ``1,`` is one fault, not a million items on the stream."""
    noise = [i for i in items if isinstance(i, StdoutNoise)]
    if not noise:
        return items
    what = f"{len(noise)} element(s) of a JSON-RPC batch that are no JSON-RPC message"
    fault = ValueError(f"{what} (first: {noise[0].excerpt})")
    first = items.index(noise[0])
    rest = [i for i in items[first:] if not isinstance(i, StdoutNoise)]
    return [*items[:first], fault, *rest]
