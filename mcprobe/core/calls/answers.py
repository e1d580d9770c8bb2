"""Small shared readings of one raw answer (``RawCall``) for the check judges.

Pure: the judges in ``core.resources``, ``core.prompts`` and ``core.protocol`` describe what came
back in the same words and agree on what counts as a clean rejection.
"""

from __future__ import annotations

import json

from mcprobe.core.model import INTERNAL_ERROR, JSON, RawCall, RawKind, is_internal_error
from mcprobe.core.quoting import quoted

__all__ = ["INTERNAL_ERROR", "describe", "is_failure_of_server", "request_text"]

_EXCERPT = 160


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


def describe(raw: RawCall) -> str:
    """One line saying what came back (target text shortened, never trusted)."""
    if raw.kind is RawKind.RESULT:
        if raw.result is None:
            return f"a result that was dropped ({raw.detail or 'over the size cap'})"
        try:
            text = json.dumps(raw.result, sort_keys=True, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(raw.result)
        return f"result {quoted(_excerpt(text))}"
    if raw.kind is RawKind.JSONRPC_ERROR:
        # The target's message is quoted, so no reader (or redaction, core.redact) takes it for
        # mcprobe's words.
        message = _excerpt(raw.error_message or "")
        return f"JSON-RPC error {raw.error_code}" + (f" ({quoted(message)})" if message else "")
    if raw.kind is RawKind.TIMEOUT:
        return f"no answer ({raw.detail or 'timeout'})"
    if raw.kind is RawKind.TRANSPORT_LOST:
        return f"the connection was lost ({raw.detail or 'closed'})"
    return f"not sent ({raw.detail or 'not run'})"


def is_failure_of_server(raw: RawCall) -> bool:
    """A timeout, a lost connection or an internal error: the server's fault whatever was sent."""
    if raw.kind in (RawKind.TIMEOUT, RawKind.TRANSPORT_LOST):
        return True
    return raw.kind is RawKind.JSONRPC_ERROR and is_internal_error(raw.error_code)


def request_text(method: str, params: JSON) -> str:
    """``method {json params}``: what was sent, reproducibly."""
    try:
        body = json.dumps(params, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        body = repr(params)
    return f"{method} {body}"
