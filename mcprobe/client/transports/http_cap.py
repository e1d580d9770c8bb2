"""HTTP response bodies capped on their *decoded* size, decompressed as a stream.

About 1 MB of gzip inflates to 1 GiB. httpx2 decodes ``Content-Encoding`` with one unbounded
``decompress`` call per network chunk, and the SDK reads a JSON reply whole (``aread``), so one
such reply drove mcprobe to ~5 GB of memory before any size check could run. The seam is the
httpx2 transport: ``CappedTransport`` wraps the real one and hands the client a response whose
body it decodes itself — ``zlib`` with ``max_length``, so no step produces more than
``_PIECE`` bytes — with ``Content-Encoding`` removed (httpx2 then decodes nothing). The client
offers only what is decoded here (``ACCEPT_ENCODING``).

Caps (``limit``, the same as stdio's line cap): a JSON body may decode to ``limit`` bytes; an
event stream (SSE) may carry ``limit`` bytes between two event boundaries (a long-lived stream
of small events is fine; it is handed on one whole event at a time). Past the cap, reading
stops: the connection is dropped, the session is told (an ``OversizeReply`` for the request the
body answers, read from the request's own JSON) and the SDK gets a ``ResponseTooLarge`` (an
``httpx2.StreamError``), which it turns into an error reply for that request; ``RawSession``
replaces that reply with the oversize note. Memory stays at about ``limit`` plus a few pieces,
whatever the compression ratio.

Lone surrogates: the SDK's JSON parser refuses ``"\\ud83d"`` (valid JSON, sent by JavaScript
servers that cut an emoji in half), which would make such a server's ``initialize`` fail over
HTTP. A JSON body is therefore held whole (at most ``limit``) and each lone surrogate escape is
turned into visible text (``visible_lone_surrogates``) — the form the reports use for it; an
event stream gets the same, event by event.

Batches: the same whole body or event is where a JSON-RPC batch is taken out for the read
stream (``http_batch.BatchRelay``), since the SDK's parsers read one message each.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import suppress
from typing import Any

import httpx2

from mcprobe.client.transports.http_batch import BatchRelay
from mcprobe.client.wire_events import OversizeReply

__all__ = ["ACCEPT_ENCODING", "CappedTransport", "ResponseTooLarge"]

ACCEPT_ENCODING = "gzip, deflate"
_PIECE = 64 * 1024
_DECODED = frozenset({"gzip", "x-gzip", "deflate"})
_BOUNDARIES = (b"\n\n", b"\r\n\r\n", b"\r\r")


_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)


def _is_high(hexdigits: bytes) -> bool:
    return 0xD800 <= int(hexdigits, 16) <= 0xDBFF


def _is_low(hexdigits: bytes) -> bool:
    return 0xDC00 <= int(hexdigits, 16) <= 0xDFFF


def visible_lone_surrogates(body: bytes) -> bytes:
    """JSON text with every *lone* surrogate escape (``\\ud83d`` without its pair) turned into
    the six characters ``\\ud83d`` (its backslash escaped), which the SDK's parser (jiter)
    accepts; valid pairs are left alone. That is the form every report shows them in
    (``core.safe_json``), so HTTP and stdio targets read the same."""
    if b"\\u" not in body:
        return body
    # Escapes are matched left to right, so "\\\\ud83d" (an escaped backslash, then text) is
    # never mistaken for an escape.
    escapes = [m for m in _ESCAPE.finditer(body) if m.group(1) is not None]
    lone: list[int] = []
    for index, match in enumerate(escapes):
        digits = match.group(1)
        if _is_high(digits):
            nxt = escapes[index + 1] if index + 1 < len(escapes) else None
            if nxt is None or nxt.start() != match.end() or not _is_low(nxt.group(1)):
                lone.append(match.start())
        elif _is_low(digits):
            prev = escapes[index - 1] if index else None
            if prev is None or prev.end() != match.start() or not _is_high(prev.group(1)):
                lone.append(match.start())
    if not lone:
        return body
    out = bytearray()
    last = 0
    for start in lone:
        out += body[last:start] + b"\\"
        last = start
    out += body[last:]
    return bytes(out)


class ResponseTooLarge(httpx2.StreamError):
    """The decoded body passed the cap; the rest was not read."""


class _Inflater:
    """One ``Content-Encoding`` layer, decoded in pieces of at most ``_PIECE`` bytes."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.raw_deflate = False
        self.inflater = self._new()

    def _new(self) -> Any:
        if self.coding == "deflate":
            # "deflate" is meant to be zlib-wrapped; some servers send raw deflate.
            return zlib.decompressobj(-zlib.MAX_WBITS if self.raw_deflate else zlib.MAX_WBITS)
        return zlib.decompressobj(zlib.MAX_WBITS | 16)

    def feed(self, data: bytes) -> Iterator[bytes]:
        while data:
            try:
                piece = self.inflater.decompress(data, _PIECE)
            except zlib.error:
                if self.coding == "deflate" and not self.raw_deflate:
                    self.raw_deflate = True
                    self.inflater = self._new()
                    piece = self.inflater.decompress(data, _PIECE)
                else:
                    raise httpx2.DecodingError(f"invalid {self.coding} data") from None
            if piece:
                yield piece
            if self.inflater.eof:
                # A gzip body may hold several members; what follows the first starts anew.
                data = self.inflater.unused_data
                if data:
                    self.inflater = self._new()
            else:
                data = self.inflater.unconsumed_tail

    def flush(self) -> Iterator[bytes]:
        with suppress(zlib.error):
            rest = self.inflater.flush()
            if rest:
                yield rest


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(
        self,
        raw: httpx2.AsyncByteStream,
        codings: list[str],
        *,
        limit: int,
        event_stream: bool,
        json_body: bool,
        request_id: int | str | None,
        report: Callable[[OversizeReply], None] | None,
        relay: BatchRelay | None = None,
        status: int = 200,
    ) -> None:
        self._raw = raw
        # Content-Encoding lists codings in the order they were applied: undo the last first.
        self._layers = [_Inflater(c) for c in reversed(codings)]
        self._limit = limit
        self._event_stream = event_stream
        self._json_body = json_body
        self._request_id = request_id
        self._report = report
        self._relay = relay
        self._status = status
        self._counted = 0  # decoded bytes of the body, or of the event not yet complete

    def _decode(self, data: bytes, final: bool) -> Iterator[bytes]:
        pieces: Iterator[bytes] = iter((data,)) if data else iter(())
        for layer in self._layers:
            pieces = _through(layer, pieces, final)
        yield from pieces

    def _count(self, counted: int) -> None:
        self._counted = counted
        if counted > self._limit:
            if self._report is not None:
                self._report(OversizeReply(self._request_id, counted, self._limit))
            raise ResponseTooLarge(
                f"response exceeds the {self._limit}-byte cap after decompression "
                f"(stopped reading at {counted} decoded bytes)"
            )

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._event_stream:
            async for events in self._events():
                yield events
            return
        body = bytearray()
        async for piece in self._pieces():
            self._count(self._counted + len(piece))
            if self._json_body:
                body += piece
            else:
                yield piece
        if self._json_body:
            # The SDK reads a JSON reply whole anyway; held here (at most the cap) so lone
            # surrogates can be made readable before it parses, and a batch relayed.
            yield self._relayed_body(visible_lone_surrogates(bytes(body)))

    def _own_request(self) -> int | None:
        rid = self._request_id
        return rid if isinstance(rid, int) and not isinstance(rid, bool) else None

    def _relayed_body(self, body: bytes) -> bytes:
        if self._relay is None:
            return body
        return self._relay.body(body, self._own_request(), self._status)

    def _relayed_events(self, events: bytes) -> bytes:
        if self._relay is None:
            return events
        return self._relay.events(events, self._own_request())

    async def _events(self) -> AsyncIterator[bytes]:
        """Whole events only (the cap applies to each), lone surrogates made readable, batches
        relayed."""
        pending = bytearray()
        async for piece in self._pieces():
            scan_from = max(0, len(pending) - 3)
            pending += piece
            end = -1
            for boundary in _BOUNDARIES:
                found = pending.rfind(boundary, scan_from)
                if found >= 0:
                    end = max(end, found + len(boundary))
            if end >= 0:
                yield self._relayed_events(visible_lone_surrogates(bytes(pending[:end])))
                del pending[:end]
            self._count(len(pending))
        if pending:
            yield self._relayed_events(visible_lone_surrogates(bytes(pending)))

    async def _pieces(self) -> AsyncIterator[bytes]:
        async for chunk in self._raw:
            for piece in self._decode(chunk, final=False):
                yield piece
        for piece in self._decode(b"", final=True):
            yield piece

    async def aclose(self) -> None:
        await self._raw.aclose()


def _through(layer: _Inflater, pieces: Iterator[bytes], final: bool) -> Iterator[bytes]:
    for piece in pieces:
        yield from layer.feed(piece)
    if final:
        yield from layer.flush()


def _request_id(request: httpx2.Request) -> int | str | None:
    """The JSON-RPC id of the request mcprobe sent in this POST (its own, small JSON)."""
    try:
        message = json.loads(request.content) if request.content else None
    except (ValueError, httpx2.RequestNotRead):
        return None
    rid = message.get("id") if isinstance(message, dict) else None
    return rid if isinstance(rid, int | str) and not isinstance(rid, bool) else None


class CappedTransport(httpx2.AsyncBaseTransport):
    """Wraps a transport so every response body is decoded here, capped at ``limit`` bytes.
    ``report`` (settable later: the session exists only once the transport is open) hears of
    every body cut short; ``relay`` (``http_batch``), when set, takes the JSON-RPC batches out of
    every 2xx body and event for the read stream."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, limit: int) -> None:
        self._inner = inner
        self.limit = limit
        self.report: Callable[[OversizeReply], None] | None = None
        self.relay: BatchRelay | None = None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        header = response.headers.get("content-encoding", "")
        codings = [c.strip().lower() for c in header.split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        if any(c not in _DECODED for c in codings):
            # Not offered (ACCEPT_ENCODING): left to httpx2, which passes unknown codings on
            # undecoded; the cap below still bounds what is read.
            decoded_here: list[str] = []
        else:
            decoded_here = codings
        headers = [
            (name, value)
            for name, value in response.headers.raw
            if not (decoded_here and name.lower() in (b"content-encoding", b"content-length"))
        ]
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        content_type = response.headers.get("content-type", "").lower()
        stream = _CappedStream(
            response.stream,
            decoded_here,
            limit=self.limit,
            event_stream=content_type.startswith("text/event-stream"),
            json_body=content_type.startswith("application/json"),
            request_id=_request_id(request),
            report=self.report,
            relay=self.relay,
            status=response.status_code,
        )
        return httpx2.Response(
            status_code=response.status_code,
            headers=headers,
            stream=stream,
            request=request,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
