"""Look for the canary in everything a stdio target writes: every stdout line and all of stderr.

The canary (``canary.py``) proves an environment leak wherever its value comes back. The fuzz
runner's answers are searched with their case labels (``engine/security_watch.py``); this watch
covers the rest at the wire, before anything is parsed, counted or dropped: log and other
notifications (which the transport counts and drops unparsed), the server's own requests,
replies to every request mcprobe sent (``initialize``, the lists, ``resources/read``,
``prompts/get``, ``completion/complete`` ...; attributed to the request by its id, which the
transport saw going out), stray stdout lines, and stderr (searched across chunk boundaries).
``tools/call`` replies are left to the fuzz runner's search, which names the case.

A byte search per line (the value is plain ASCII, so it appears verbatim in JSON); cost:
negligible next to parsing. Only the part of a line within the size cap is searched (an
oversize line is dropped unread beyond it).
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from mcprobe.core.security.proofs import CanarySighting

__all__ = ["CanaryWatch"]

_MAX_REQUESTS = 50_000  # request ids remembered for attribution (then: "a reply")
_MAX_SIGHTINGS = 100
_SUBJECT_KEYS = {"resources/read": "uri", "prompts/get": "name", "resources/subscribe": "uri"}


def _subject(method: str, params: Any) -> str | None:
    key = _SUBJECT_KEYS.get(method)
    if key is None or not isinstance(params, dict):
        return None
    value = params.get(key)
    return value[:500] if isinstance(value, str) else None


class CanaryWatch:
    """The canary sightings of one target process (empty when it has no canary)."""

    def __init__(self, value: str | None) -> None:
        self.needle = value.encode() if value else b""
        self._requests: dict[Any, tuple[str, str | None]] = {}
        self._sightings: dict[CanarySighting, None] = {}  # ordered, deduplicated
        self._stderr_tail = b""

    @property
    def sightings(self) -> tuple[CanarySighting, ...]:
        return tuple(self._sightings)

    def _saw(self, sighting: CanarySighting) -> None:
        if len(self._sightings) < _MAX_SIGHTINGS:
            self._sightings.setdefault(sighting, None)

    def sent(self, message: types.JSONRPCMessage) -> None:
        """A message mcprobe wrote: remember what each request asked, for its reply."""
        if not self.needle or not isinstance(message, types.JSONRPCRequest):
            return
        if len(self._requests) < _MAX_REQUESTS:
            self._requests[message.id] = (message.method, _subject(message.method, message.params))

    def line(self, line: bytes, items: list[Any] | None, method: str | None = None) -> None:
        """One stdout line: ``items`` what it parsed into (None when it was only counted as a
        ``method`` notification)."""
        if not self.needle or self.needle not in line:
            return
        if items is None:
            self._saw(CanarySighting("notification", method))
            return
        for item in items:
            message = getattr(item, "message", None)
            if isinstance(message, types.JSONRPCNotification):
                self._saw(CanarySighting("notification", message.method[:100]))
            elif isinstance(message, types.JSONRPCRequest):
                self._saw(CanarySighting("request", message.method[:100]))
            elif isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                asked, subject = self._requests.get(message.id, (None, None))
                if asked != "tools/call":  # searched with its case label by the fuzz runner
                    self._saw(CanarySighting("reply", asked, subject))
            else:
                continue
            return
        self._saw(CanarySighting("stdout"))  # noise, an invalid or oversize reply

    def stderr(self, chunk: bytes) -> None:
        """A chunk of stderr; the value may straddle two chunks."""
        if not self.needle:
            return
        window = self._stderr_tail + chunk
        if self.needle in window:
            self._saw(CanarySighting("stderr"))
        self._stderr_tail = window[-(len(self.needle) - 1) :] if len(self.needle) > 1 else b""
