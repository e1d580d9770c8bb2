"""Raw HTTP exchanges for the Streamable HTTP transport checks (``engine.http_probes`` decides
what to send, ``core.http_checks`` what the answers mean).

Every exchange goes to the one URL the user named, with the user's headers and bearer (needed to
get past authentication; never recorded), a short timeout, and the body left unread when the
answer is an SSE stream (only the status and headers matter). Bounded: a JSON body is read up to
64 KiB.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcprobe.core.checks.http import HttpAnswer
from mcprobe.core.target_spec import TargetSpec, scrub

if TYPE_CHECKING:
    import httpx2

__all__ = ["HttpExchange", "is_loopback_url", "open_exchange"]

_MAX_BODY = 64 * 1024


def is_loopback_url(url: str | None) -> bool:
    """True for http(s) URLs whose host is localhost or a loopback address."""
    if not url:
        return False
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HttpExchange:
    """Raw requests to ``spec.url``; each returns an ``HttpAnswer`` (and the session id and
    JSON body it carried, when any)."""

    def __init__(self, client: httpx2.AsyncClient, spec: TargetSpec) -> None:
        self._client = client
        self._spec = spec
        assert spec.url is not None
        self.url = spec.url

    def _headers(self, extra: dict[str, str]) -> dict[str, str]:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            **self._spec.headers,
        }
        if self._spec.bearer:
            headers["Authorization"] = f"Bearer {self._spec.bearer}"
        headers.update(extra)
        return headers

    async def send(
        self,
        method: str,
        *,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        label: str,
    ) -> tuple[HttpAnswer, str | None, Any]:
        """One exchange: (answer, Mcp-Session-Id of the response, JSON body or None)."""
        content = json.dumps(body).encode() if body is not None else None
        request = self._client.build_request(
            method, self.url, headers=self._headers(headers or {}), content=content
        )
        import httpx2

        try:
            response = await self._client.send(request, stream=True)
        except httpx2.HTTPError as exc:
            detail = scrub(f"{type(exc).__name__}: {exc}", self._spec.secret_values())[:200]
            return HttpAnswer(label, error=detail), None, None
        try:
            content_type = response.headers.get("content-type")
            session = response.headers.get("mcp-session-id")
            parsed: Any = None
            if (content_type or "").startswith("application/json"):
                raw = b""
                async for chunk in response.aiter_bytes():
                    raw += chunk
                    if len(raw) > _MAX_BODY:
                        break
                try:
                    parsed = json.loads(raw[:_MAX_BODY])
                except ValueError:
                    parsed = None
            return HttpAnswer(label, response.status_code, content_type), session, parsed
        finally:
            await response.aclose()


@asynccontextmanager
async def open_exchange(spec: TargetSpec, timeout: float) -> AsyncIterator[HttpExchange]:
    import httpx2  # loaded when the checks reach an HTTP target: a stdio audit never pays

    async with httpx2.AsyncClient(
        timeout=httpx2.Timeout(timeout), follow_redirects=False
    ) as client:
        yield HttpExchange(client, spec)
