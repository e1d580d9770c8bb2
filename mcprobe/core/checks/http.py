"""Streamable HTTP transport checks: the judges (pure). The requests are sent by
``target.http_probe`` to the URL the user named, and only when it is a loopback address.

Each judge reads one ``HttpAnswer`` (the status and content type of one raw HTTP exchange).
An answer that proves nothing (the request failed, authentication refused it) is inconclusive.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcprobe.core.checks.records import SPEC, Area, CheckResult, CheckSpec, Level, Verdict

_T = f"{SPEC}/basic/transports"

__all__ = [
    "FOREIGN_HOST",
    "FOREIGN_ORIGIN",
    "HTTP_CONTENT_TYPE",
    "HTTP_GET_STREAM",
    "HTTP_HOST",
    "HTTP_ORIGIN",
    "HTTP_PROTOCOL_VERSION_HEADER",
    "HTTP_SESSION_DELETE",
    "HTTP_SESSION_UNKNOWN",
    "SPECS",
    "HttpAnswer",
    "judge_content_type",
    "judge_foreign",
    "judge_get_stream",
    "judge_protocol_version_header",
    "judge_session_delete",
    "judge_session_unknown",
]

HTTP_ORIGIN = CheckSpec(
    "http.origin",
    Area.HTTP,
    "A foreign Origin is refused (DNS rebinding)",
    f"{_T}#security-warning (servers MUST validate the Origin header; an invalid one MUST "
    "get 403 Forbidden)",
    Level.MUST,
    "metadata",
    "validate the Origin header of every request and answer a foreign one with 403 "
    "(the SDKs: enable DNS-rebinding protection / allowed origins)",
)


HTTP_HOST = CheckSpec(
    "http.host",
    Area.HTTP,
    "A foreign Host is refused (DNS rebinding)",
    f"{_T}#security-warning (local servers SHOULD bind to localhost; the SDKs validate Host "
    "against DNS rebinding)",
    Level.SHOULD,
    "metadata",
    "accept only the Host names you serve (localhost, 127.0.0.1) and answer others with 4xx",
)


HTTP_CONTENT_TYPE = CheckSpec(
    "http.content_type",
    Area.HTTP,
    "A POSTed request is answered as JSON or an SSE stream",
    f"{_T}#sending-messages-to-the-server (the server MUST return Content-Type "
    "text/event-stream or application/json)",
    Level.MUST,
    "metadata",
    "answer a POSTed JSON-RPC request with Content-Type application/json or text/event-stream",
)


HTTP_PROTOCOL_VERSION_HEADER = CheckSpec(
    "http.protocol_version_header",
    Area.HTTP,
    "An unsupported MCP-Protocol-Version header gets 400",
    f"{_T}#protocol-version-header (an invalid or unsupported MCP-Protocol-Version MUST get "
    "400 Bad Request)",
    Level.MUST,
    "metadata",
    "answer a request whose MCP-Protocol-Version header you do not support with 400",
)


HTTP_SESSION_UNKNOWN = CheckSpec(
    "http.session_unknown",
    Area.HTTP,
    "An unknown Mcp-Session-Id gets 404",
    f"{_T}#session-management (a request with a terminated or unknown session id MUST get "
    "404 Not Found)",
    Level.SHOULD,
    "metadata",
    "answer a request carrying a session id you did not issue (or already ended) with 404",
)


HTTP_SESSION_DELETE = CheckSpec(
    "http.session_delete",
    Area.HTTP,
    "DELETE ends the session (or is refused with 405)",
    f"{_T}#session-management (after a session ends, requests with its id MUST get 404; "
    "a server that does not let clients end sessions answers DELETE with 405)",
    Level.MUST,
    "metadata",
    "end the session on DELETE with its Mcp-Session-Id and answer later requests carrying it "
    "with 404, or answer DELETE with 405",
)


HTTP_GET_STREAM = CheckSpec(
    "http.get_stream",
    Area.HTTP,
    "GET offers an SSE stream or is refused with 405",
    f"{_T}#listening-for-messages-from-the-server (the server MUST return "
    "text/event-stream or 405 Method Not Allowed)",
    Level.MUST,
    "metadata",
    "answer GET with Accept: text/event-stream with an SSE stream, or with 405",
)


SPECS: tuple[CheckSpec, ...] = (
    HTTP_ORIGIN,
    HTTP_HOST,
    HTTP_CONTENT_TYPE,
    HTTP_PROTOCOL_VERSION_HEADER,
    HTTP_SESSION_UNKNOWN,
    HTTP_SESSION_DELETE,
    HTTP_GET_STREAM,
)
"""This module's checks, in report order (``catalogue.CHECKS`` gathers them)."""


FOREIGN_ORIGIN = "http://mcprobe-rebinding.invalid"
FOREIGN_HOST = "mcprobe-rebinding.invalid"


@dataclass(frozen=True)
class HttpAnswer:
    """One HTTP exchange: ``status`` None when no response came (``error`` says why)."""

    request: str
    status: int | None = None
    content_type: str | None = None
    error: str | None = None

    def observed(self) -> str:
        if self.status is None:
            return f"no response ({self.error or 'failed'})"
        media = f", Content-Type {self.content_type}" if self.content_type else ""
        return f"HTTP {self.status}{media}"

    @property
    def media_type(self) -> str:
        return (self.content_type or "").split(";", 1)[0].strip().lower()


def _result(check: CheckSpec, verdict: Verdict, message: str, answer: HttpAnswer) -> CheckResult:
    return check.result(verdict, message, request=answer.request, observed=answer.observed())


def _unproven(check: CheckSpec, answer: HttpAnswer) -> CheckResult | None:
    if answer.status is None:
        return _result(check, Verdict.INCONCLUSIVE, "the request failed", answer)
    if answer.status in (401, 407):
        return _result(check, Verdict.INCONCLUSIVE, "authentication refused it first", answer)
    return None


def judge_foreign(check: CheckSpec, answer: HttpAnswer) -> CheckResult:
    """``http.origin`` / ``http.host``: an initialize with a foreign Origin (Host) header must
    be refused; 403 is what the spec names, any 4xx refuses it."""
    unproven = _unproven(check, answer)
    if unproven is not None:
        return unproven
    assert answer.status is not None
    what = "Origin" if check is HTTP_ORIGIN else "Host"
    if 400 <= answer.status < 500:
        return _result(check, Verdict.PASS, f"foreign {what} refused", answer)
    if 200 <= answer.status < 300:
        return _result(
            check,
            Verdict.FAIL,
            f"an initialize with a foreign {what} header was accepted: a web page the user "
            "visits can reach this server through DNS rebinding",
            answer,
        )
    return _result(check, Verdict.INCONCLUSIVE, f"HTTP {answer.status}", answer)


def judge_content_type(answer: HttpAnswer) -> CheckResult:
    check = HTTP_CONTENT_TYPE
    unproven = _unproven(check, answer)
    if unproven is not None:
        return unproven
    if answer.media_type in ("application/json", "text/event-stream"):
        return _result(check, Verdict.PASS, answer.media_type, answer)
    return _result(
        check,
        Verdict.FAIL,
        f"the initialize answer has Content-Type {answer.content_type!r}",
        answer,
    )


def judge_protocol_version_header(answer: HttpAnswer) -> CheckResult:
    check = HTTP_PROTOCOL_VERSION_HEADER
    unproven = _unproven(check, answer)
    if unproven is not None:
        return unproven
    if answer.status == 400:
        return _result(check, Verdict.PASS, "400", answer)
    if answer.status is not None and 200 <= answer.status < 300:
        return _result(
            check, Verdict.FAIL, "a request with MCP-Protocol-Version 1999-01-01 was served", answer
        )
    return _result(check, Verdict.FAIL, f"answered {answer.status}, not 400 Bad Request", answer)


def judge_session_unknown(answer: HttpAnswer) -> CheckResult:
    check = HTTP_SESSION_UNKNOWN
    unproven = _unproven(check, answer)
    if unproven is not None:
        return unproven
    if answer.status == 404:
        return _result(check, Verdict.PASS, "404", answer)
    return _result(
        check, Verdict.FAIL, f"a session id never issued got {answer.status}, not 404", answer
    )


def judge_session_delete(delete: HttpAnswer, after: HttpAnswer | None) -> CheckResult:
    """``after`` is the request with the same session id sent after a 2xx DELETE."""
    check = HTTP_SESSION_DELETE
    unproven = _unproven(check, delete)
    if unproven is not None:
        return unproven
    if delete.status == 405:
        return _result(check, Verdict.PASS, "clients may not end sessions (405)", delete)
    if delete.status is not None and 200 <= delete.status < 300 and after is not None:
        if after.status == 404:
            return _result(check, Verdict.PASS, "ended: the id now gets 404", after)
        if after.status is None:
            return _result(check, Verdict.INCONCLUSIVE, "the request after DELETE failed", after)
        return _result(
            check,
            Verdict.FAIL,
            f"after a successful DELETE the session id still got {after.status}, not 404",
            after,
        )
    return _result(check, Verdict.FAIL, f"DELETE answered {delete.status}", delete)


def judge_get_stream(answer: HttpAnswer) -> CheckResult:
    check = HTTP_GET_STREAM
    unproven = _unproven(check, answer)
    if unproven is not None:
        return unproven
    if answer.status == 405:
        return _result(check, Verdict.PASS, "no server stream (405)", answer)
    if answer.status == 200 and answer.media_type == "text/event-stream":
        return _result(check, Verdict.PASS, "an SSE stream", answer)
    return _result(
        check,
        Verdict.FAIL,
        f"GET answered {answer.status} ({answer.content_type or 'no Content-Type'}), neither an "
        "SSE stream nor 405",
        answer,
    )
