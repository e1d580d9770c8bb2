"""Streamable HTTP transport checks: the judges (pure). The requests are sent by
``target.http_probe`` to the URL the user named, and only when it is a loopback address.

Each judge reads one ``HttpAnswer`` (the status and content type of one raw HTTP exchange).
An answer that proves nothing (the request failed, authentication refused it) is inconclusive.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcprobe.core.checks.catalogue import CheckResult, Verdict, check_result

__all__ = [
    "FOREIGN_HOST",
    "FOREIGN_ORIGIN",
    "HttpAnswer",
    "judge_content_type",
    "judge_foreign",
    "judge_get_stream",
    "judge_protocol_version_header",
    "judge_session_delete",
    "judge_session_unknown",
]

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


def _result(check: str, verdict: Verdict, message: str, answer: HttpAnswer) -> CheckResult:
    return check_result(check, verdict, message, request=answer.request, observed=answer.observed())


def _unproven(check: str, answer: HttpAnswer) -> CheckResult | None:
    if answer.status is None:
        return _result(check, Verdict.INCONCLUSIVE, "the request failed", answer)
    if answer.status in (401, 407):
        return _result(check, Verdict.INCONCLUSIVE, "authentication refused it first", answer)
    return None


def judge_foreign(check: str, answer: HttpAnswer) -> CheckResult:
    """``http.origin`` / ``http.host``: an initialize with a foreign Origin (Host) header must
    be refused; 403 is what the spec names, any 4xx refuses it."""
    unproven = _unproven(check, answer)
    if unproven is not None:
        return unproven
    assert answer.status is not None
    what = "Origin" if check == "http.origin" else "Host"
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
    check = "http.content_type"
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
    check = "http.protocol_version_header"
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
    check = "http.session_unknown"
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
    check = "http.session_delete"
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
    check = "http.get_stream"
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
