"""The Streamable HTTP transport checks, sent to the URL the user named when it is a loopback
address (``target.http_probe.is_loopback_url``), on a session of their own.

A server that speaks 2026-07-28 only gets that revision's form of them (``_modern_probes``).
Order: an ordinary initialize (its Content-Type; its session id, if the server issues one),
initialize with a foreign Origin and with a foreign Host (any session they open is ended
again), a request with an unsupported MCP-Protocol-Version, one with a session id never issued,
GET for the server stream, and last DELETE of the session followed by a request with its id.
"""

from __future__ import annotations

from typing import Any

from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
)

from mcprobe.client.connection import WIRES, first_wire
from mcprobe.client.http_probe import HttpExchange, is_loopback_url, open_exchange
from mcprobe.core.checks.http import (
    FOREIGN_HOST,
    FOREIGN_ORIGIN,
    HTTP_CONTENT_TYPE,
    HTTP_GET_STREAM,
    HTTP_HOST,
    HTTP_ORIGIN,
    HTTP_PROTOCOL_VERSION_HEADER,
    HTTP_SESSION_DELETE,
    HTTP_SESSION_UNKNOWN,
    judge_content_type,
    judge_foreign,
    judge_get_stream,
    judge_protocol_version_header,
    judge_session_delete,
    judge_session_unknown,
)
from mcprobe.core.checks.records import CheckResult, CheckSpec, Verdict
from mcprobe.core.target_spec import TargetSpec
from mcprobe.core.version import __version__

__all__ = ["HTTP_CHECKS", "run_http_probes"]

VERSION = "2025-11-25"
MODERN = "2026-07-28"
UNKNOWN_SESSION = "mcprobe-unknown-session-0"
_TIMEOUT = 10.0


def _initialize(rid: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "initialize",
        "params": {
            "protocolVersion": VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mcprobe", "version": __version__},
        },
    }


_LIST = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}}


async def _foreign(http: HttpExchange, check: CheckSpec, header: str, value: str) -> CheckResult:
    answer, session, _ = await http.send(
        "POST",
        body=_initialize(2),
        headers={header: value},
        label=f"POST initialize, {header}: {value}",
    )
    if session:  # a server that let it in opened a session: end it again
        await http.send("DELETE", headers={"Mcp-Session-Id": session}, label="DELETE")
    return judge_foreign(check, answer)


def _not_applicable(check: CheckSpec, why: str) -> CheckResult:
    return check.result(Verdict.NOT_APPLICABLE, why)


def _discover() -> dict[str, Any]:
    envelope = {
        PROTOCOL_VERSION_META_KEY: MODERN,
        CLIENT_INFO_META_KEY: {"name": "mcprobe", "version": __version__},
        CLIENT_CAPABILITIES_META_KEY: {},
    }
    return {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": envelope}}


_MODERN_HEADERS = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "server/discover"}


async def _modern_foreign(
    http: HttpExchange, check: CheckSpec, header: str, value: str
) -> CheckResult:
    answer, _, _ = await http.send(
        "POST",
        body=_discover(),
        headers={**_MODERN_HEADERS, header: value},
        label=f"POST server/discover (2026-07-28), {header}: {value}",
    )
    return judge_foreign(check, answer)


async def _modern_probes(http: HttpExchange) -> list[CheckResult]:
    """A 2026-07-28-only server: the same security checks on ``server/discover`` (an
    ``initialize`` it refuses would say nothing about its Origin/Host validation); the checks of
    what 2026-07-28 removed (sessions, the GET stream) or moved into the body (the version:
    ``modern.unsupported_version``) do not apply."""
    first, _, _ = await http.send(
        "POST", body=_discover(), headers=_MODERN_HEADERS, label="POST server/discover (2026-07-28)"
    )
    checks = [judge_content_type(first)]
    checks.append(await _modern_foreign(http, HTTP_ORIGIN, "Origin", FOREIGN_ORIGIN))
    checks.append(await _modern_foreign(http, HTTP_HOST, "Host", FOREIGN_HOST))
    moved = "2026-07-28 names the version in every request's _meta (see modern.unsupported_version)"
    checks.append(_not_applicable(HTTP_PROTOCOL_VERSION_HEADER, moved))
    removed = "2026-07-28 has no {} (removed from Streamable HTTP in that revision)"
    checks.append(_not_applicable(HTTP_GET_STREAM, removed.format("GET stream")))
    for check in (HTTP_SESSION_UNKNOWN, HTTP_SESSION_DELETE):
        checks.append(_not_applicable(check, removed.format("sessions")))
    return checks


HTTP_CHECKS = (
    HTTP_CONTENT_TYPE,
    HTTP_ORIGIN,
    HTTP_HOST,
    HTTP_PROTOCOL_VERSION_HEADER,
    HTTP_GET_STREAM,
    HTTP_SESSION_UNKNOWN,
    HTTP_SESSION_DELETE,
)
_FELL_BACK = (
    "the audit fell back to the legacy HTTP+SSE transport (the URL does not speak Streamable "
    "HTTP), so the Streamable HTTP checks do not apply"
)


async def run_http_probes(
    spec: TargetSpec, timeout: float | None, era: str = "handshake", wire: str = "http"
) -> list[CheckResult]:
    """The HTTP checks, or [] when the target is not a Streamable HTTP URL on loopback; in
    ``era`` "modern" (a server that speaks 2026-07-28 only), that revision's form of them. When
    the audit spoke legacy HTTP+SSE (``wire`` "sse", after the fallback), every check is "not
    applicable": POSTing ``initialize`` to an SSE endpoint proves nothing about Streamable
    HTTP."""
    if not first_wire(spec).streamable or not is_loopback_url(spec.url):
        return []
    if not any(w.streamable for w in WIRES if w.name == wire):
        return [_not_applicable(check, _FELL_BACK) for check in HTTP_CHECKS]
    if era == "modern":
        async with open_exchange(spec, min(timeout or _TIMEOUT, _TIMEOUT)) as http:
            return await _modern_probes(http)
    checks: list[CheckResult] = []
    async with open_exchange(spec, min(timeout or _TIMEOUT, _TIMEOUT)) as http:
        first, session, _ = await http.send("POST", body=_initialize(1), label="POST initialize")
        checks.append(judge_content_type(first))
        versioned = {"MCP-Protocol-Version": VERSION}
        with_session = {**versioned, **({"Mcp-Session-Id": session} if session else {})}
        if session:
            await http.send(
                "POST",
                body={"jsonrpc": "2.0", "method": "notifications/initialized"},
                headers=with_session,
                label="POST notifications/initialized",
            )
        checks.append(await _foreign(http, HTTP_ORIGIN, "Origin", FOREIGN_ORIGIN))
        checks.append(await _foreign(http, HTTP_HOST, "Host", FOREIGN_HOST))
        answer, _, _ = await http.send(
            "POST",
            body=_LIST,
            headers={**with_session, "MCP-Protocol-Version": "1999-01-01"},
            label="POST tools/list, MCP-Protocol-Version: 1999-01-01",
        )
        checks.append(judge_protocol_version_header(answer))
        answer, _, _ = await http.send(
            "GET",
            headers={**with_session, "Accept": "text/event-stream"},
            label="GET, Accept: text/event-stream",
        )
        checks.append(judge_get_stream(answer))
        if not session:
            why = "the server issues no Mcp-Session-Id (stateless)"
            checks.append(_not_applicable(HTTP_SESSION_UNKNOWN, why))
            checks.append(_not_applicable(HTTP_SESSION_DELETE, why))
            return checks
        answer, _, _ = await http.send(
            "POST",
            body=_LIST,
            headers={**versioned, "Mcp-Session-Id": UNKNOWN_SESSION},
            label=f"POST tools/list, Mcp-Session-Id: {UNKNOWN_SESSION}",
        )
        checks.append(judge_session_unknown(answer))
        delete, _, _ = await http.send("DELETE", headers=with_session, label="DELETE the session")
        after = None
        if delete.status is not None and 200 <= delete.status < 300:
            after, _, _ = await http.send(
                "POST", body=_LIST, headers=with_session, label="POST tools/list after DELETE"
            )
        checks.append(judge_session_delete(delete, after))
    return checks
