"""How to reach a target, and how to describe it without its secrets.

``TargetSpec`` is plain configuration (no I/O). Secret-bearing fields (``env`` values,
``headers`` values, ``bearer``, and a URL's password and query values, since people do put
tokens in ``?key=…``) are excluded from ``repr`` and never leave through ``describe()``;
``secret_values()`` lists them so outputs can be scrubbed as a last line of defence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qsl, urlsplit

from mcprobe.core.report_model import TargetOut

Transport = Literal["stdio", "http", "sse"]
Wire = Literal["stdio", "http", "sse"]  # one protocol on the wire (``http`` = Streamable HTTP)


@dataclass(frozen=True)
class TransportKind:
    """One transport a target can be reached by: its ``name`` (as ``TargetSpec.transport``, the
    report's ``target.transport`` and docs/cli.md spell it), what it is, the spec fields it needs
    and may use, and the wire protocols tried in order (``http`` falls back to legacy SSE). The
    target layer opens each wire protocol (``target.connection._OPENERS``).

    To add a transport: a record here (and its name in ``Transport``/``Wire``), an opener module
    in ``mcprobe/target/transports/`` and its entry in ``_OPENERS``, a line in docs/cli.md, and a
    test against a real server."""

    name: Transport
    summary: str
    needs: str  # the one field it cannot do without
    fields: frozenset[str]  # the TargetSpec fields it uses (others must be left empty)
    attempts: tuple[Wire, ...]


TRANSPORTS: tuple[TransportKind, ...] = (
    TransportKind(
        "stdio",
        "a local process speaking newline-delimited JSON-RPC on stdin/stdout",
        "command",
        frozenset({"command", "args", "env", "cwd"}),
        ("stdio",),
    ),
    TransportKind(
        "http",
        "Streamable HTTP, falling back to the legacy HTTP+SSE transport",
        "url",
        frozenset({"url", "headers", "bearer"}),
        ("http", "sse"),
    ),
    TransportKind(
        "sse",
        "the legacy HTTP+SSE transport only",
        "url",
        frozenset({"url", "headers", "bearer"}),
        ("sse",),
    ),
)
TRANSPORTS_BY_NAME = {kind.name: kind for kind in TRANSPORTS}

DEFAULT_CALL_TIMEOUT = 30.0
DEFAULT_CONNECT_TIMEOUT = 30.0


@dataclass(frozen=True)
class TargetSpec:
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    bearer: str | None = field(default=None, repr=False)
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT

    def describe(self) -> TargetOut:
        """The target for reports: names of secrets, never their values."""
        return TargetOut(
            transport=self.transport,
            command=self.command,
            args=list(self.args),
            cwd=self.cwd,
            env_names=sorted(self.env),
            url=scrub(self.url, self.secret_values()) if self.url else None,
            header_names=sorted(self.headers),
            bearer=self.bearer is not None,
        )

    def secret_values(self) -> tuple[str, ...]:
        """Every secret this spec carries (long enough to be worth scrubbing)."""
        values = [*self.env.values(), *self.headers.values()]
        if self.bearer:
            values.append(self.bearer)
        values.extend(_url_secrets(self.url))
        return tuple(sorted({v for v in values if len(v) >= 4}, key=len, reverse=True))


_CREDENTIAL_NAME = re.compile(r"key|token|secret|auth|pass|sig|session|cred|code", re.IGNORECASE)


def _url_secrets(url: str | None) -> list[str]:
    """The password of a URL's userinfo and the values of query parameters whose names say
    they carry a credential (``?api_key=…``, ``?token=…``). Other query values (``?mode=json``)
    are not secrets: scrubbing them everywhere would mangle reports."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return []
    found = [
        value
        for name, value in parse_qsl(parts.query, keep_blank_values=False)
        if _CREDENTIAL_NAME.search(name)
    ]
    if password:
        found.append(password)
    return found


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """Replace every secret in ``text`` with ``[redacted]``."""
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return text
