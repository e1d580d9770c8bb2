"""What a transport observed on the wire that is not a well-formed JSON-RPC message.

Transports put these on their read stream (as the ``Exception`` items the SDK's stream contract
allows); ``raw_session.RawSession`` turns them into session findings and, for replies, into the
outcome of the call that was waiting. A reply-shaped event is followed on the stream by a
placeholder response for the same id, so the waiting request wakes at once instead of timing out.
"""

from __future__ import annotations

from typing import Any

from mcp_types import RequestId

__all__ = [
    "BatchSeen",
    "DeepMessage",
    "InvalidReply",
    "NotificationsSeen",
    "OversizeReply",
    "ProgressSeen",
    "StdoutNoise",
    "Unsendable",
    "WireEvent",
]


class WireEvent(Exception):
    """Base of every wire observation a transport reports instead of a message."""


class BatchSeen(WireEvent):
    """The target sent a JSON-RPC batch of ``size`` messages (each is handled on its own, right
    after this event); counted, and a finding unless MCP 2025-03-26 (the one revision that
    allows batches) was negotiated."""

    def __init__(self, size: int) -> None:
        super().__init__(f"a JSON-RPC batch of {size} message(s)")
        self.size = size


class StdoutNoise(WireEvent):
    """A line on stdout that is not JSON-RPC at all (a log line, a banner, binary junk)."""

    def __init__(self, excerpt: str) -> None:
        super().__init__(excerpt)
        self.excerpt = excerpt


class InvalidReply(WireEvent):
    """A reply to one of our requests (it names our id) that is not valid JSON-RPC."""

    def __init__(self, request_id: RequestId, reason: str) -> None:
        super().__init__(reason)
        self.request_id = request_id
        self.reason = reason


class Unsendable(WireEvent):
    """mcprobe could not encode one of its own requests (nothing was written): the waiting
    request ends "not run" with the reason, and the session goes on. Never the target's fault."""

    def __init__(self, request_id: RequestId, reason: str) -> None:
        super().__init__(reason)
        self.request_id = request_id
        self.reason = reason


class OversizeReply(WireEvent):
    """A message larger than the response-size cap; dropped unread. ``request_id`` is the id it
    appears to answer (read from its first bytes), or None when none could be found."""

    def __init__(self, request_id: RequestId | None, size: int, limit: int) -> None:
        super().__init__(f"message of {size} bytes exceeds the {limit}-byte cap")
        self.request_id = request_id
        self.size = size
        self.limit = limit


class DeepMessage(WireEvent):
    """A message nested deeper than ``core.json_depth.MAX_JSON_DEPTH``; dropped. ``where`` names
    the path at which the limit was hit (``$.result.tools[1].inputSchema…``); ``request_id`` is
    the id it answers, when one could be read."""

    def __init__(self, request_id: RequestId | None, limit: int, where: str) -> None:
        super().__init__(f"message nests deeper than {limit} levels at {where}")
        self.request_id = request_id
        self.limit = limit
        self.where = where


class NotificationsSeen(WireEvent):
    """Notifications the transport counted and dropped (mcprobe acts on none of them), by
    method. Reported in batches, so a flood of them costs a parse each and nothing more."""

    def __init__(self, counts: dict[str, int]) -> None:
        super().__init__(f"{sum(counts.values())} notification(s)")
        self.counts = counts


class ProgressSeen(WireEvent):
    """The ``progressToken`` values of the ``notifications/progress`` the transport counted and
    dropped (in one batch): enough for the session to extend the waiting calls' timeouts.
    ``records`` are the notifications themselves as (token, params), in wire order; a batch is
    put on the stream before any reply that followed them, so the session sees progress and
    responses in the order the target wrote them (``core.progress``)."""

    def __init__(
        self, tokens: set[str | int], records: tuple[tuple[object, dict[str, Any]], ...] = ()
    ) -> None:
        super().__init__(f"progress for {len(tokens)} token(s)")
        self.tokens = tokens
        self.records = records
