"""How to reach a target, and how to describe it without its secrets.

``TargetSpec`` is plain configuration (no I/O). Secret-bearing fields (``env`` values,
``headers`` values, ``bearer``, and a URL's password and query values, since people do put
tokens in ``?key=…``) are excluded from ``repr`` and never leave through ``describe()``;
``secret_values()`` lists them so outputs can be scrubbed as a last line of defence.

``target_spec(...)`` is the one way in: the CLI, the MCP server's ``probe_connect`` and the
library all build their spec with it, so a bad target gets the same one-line ``UsageError``
wherever it comes from. This module imports only the standard library (the CLI validates its
target before the heavy imports).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast, get_args
from urllib.parse import parse_qsl, urlsplit

from mcprobe.core.client_capabilities import (
    DEFAULT_CLIENT_CAPABILITIES,
    check_client_capabilities,
)
from mcprobe.core.errors import UsageError
from mcprobe.core.example_paths import example_paths
from mcprobe.core.isolation import DEFAULT_SANDBOX, NOT_STARTED, SandboxMode, sandbox_mode

Transport = Literal["stdio", "http", "sse"]
ProtocolChoice = Literal["auto", "handshake", "modern"]
"""``--protocol`` / ``probe_connect`` ``protocol``: auto (initialize, then 2026-07-28 if it is
refused), handshake (initialize only) or modern (2026-07-28 only)."""
PROTOCOL_CHOICES: tuple[str, ...] = get_args(ProtocolChoice)
Wire = Literal["stdio", "http", "sse"]  # one protocol on the wire (``http`` = Streamable HTTP)


@dataclass(frozen=True)
class TransportKind:
    """One transport a target can be reached by: its ``name`` (as ``TargetSpec.transport``, the
    report's ``target.transport`` and docs/cli.md spell it), what it is, the spec fields it needs
    and may use, and the wire protocols tried in order (``http`` falls back to legacy SSE). The
    client layer opens each wire protocol (``client.connection.WIRES``).

    To add a transport: a record here and its name in ``Transport``, a line in docs/cli.md, a
    test against a real server and the regenerated report schema; for a new wire protocol also
    its name in ``Wire``, an opener module in ``mcprobe/client/transports/`` and its
    ``WireProtocol`` in ``client.connection.WIRES``."""

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
        frozenset({"command", "args", "env", "secret_env", "cwd"}),
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
    secret_env: frozenset[str] = frozenset()
    """Env names the user marked secret (``--secret-env``) on top of the name/shape rule."""
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    # What mcprobe declares in initialize (core.client_capabilities); () declares nothing.
    client_capabilities: tuple[str, ...] = DEFAULT_CLIENT_CAPABILITIES
    # The protocol era: auto (initialize, then 2026-07-28 if initialize is refused), handshake
    # (initialize only) or modern (2026-07-28 only: server/discover + the _meta envelope).
    protocol: ProtocolChoice = "auto"
    # Isolation of a stdio target (core/isolation.py): auto (where the OS allows), required, off.
    # ``target_spec`` (every front-end's way in) defaults to auto; the bare dataclass to off, so
    # tests that watch a target's processes and files from the host build it as it was.
    sandbox: SandboxMode = "off"
    # Path-shaped strings of the user's examples (``core/example_paths.py``): known before
    # the target starts, so the sandbox copies the existing ones like paths in ``args``.
    example_paths: tuple[str, ...] = ()

    def canary(self) -> tuple[str, str] | None:
        """The canary variable (name, value) planted in a stdio target's environment
        (``client/canary.py``), or None. It is never a secret: the report shows it."""
        for name, value in self.env.items():
            if name.startswith(CANARY_PREFIX):
                return name, value
        return None

    def secret_values(self) -> tuple[str, ...]:
        """Every secret this spec carries (long enough to be worth scrubbing): header values,
        the bearer, URL credentials, and the env values whose name or shape says secret. Other
        env values (``LOG_LEVEL=info``, ``X=true``, ``HOME=/root``) are configuration: scrubbing
        them everywhere would mangle the report. The canary is not a secret."""
        env = [
            v
            for k, v in self.env.items()
            if not k.startswith(CANARY_PREFIX)
            and (k in self.secret_env or secret_env_name(k) or secret_env_value(v))
        ]
        values = [*env, *self.headers.values()]
        if self.bearer:
            values.append(self.bearer)
        values.extend(_url_secrets(self.url))
        return tuple(sorted({v for v in values if len(v) >= 4}, key=len, reverse=True))


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SECRET_ENV_NAME = re.compile(
    r"TOKEN|SECRET|KEY|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE|.PWD|PWD.",
    re.IGNORECASE,
)
# Prefixes of well-known API keys (OpenAI/Anthropic, GitHub, GitLab, Slack, AWS, Google, Stripe).
_KEY_PREFIXES = re.compile(
    r"(sk-|sk_|pk_|rk_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abpr]-|AKIA|ASIA|AIza)"
    r"[A-Za-z0-9_\-]{8,}"
)
_HIGH_ENTROPY = re.compile(r"[A-Za-z0-9+/=_\-]{24,}")


def secret_env_name(name: str) -> bool:
    """Whether an env variable's NAME says it carries a secret (``API_TOKEN``, ``DB_PASSWORD``,
    ``SESSION_COOKIE``...). Plain ``PWD`` is the working directory, not a password."""
    return bool(_SECRET_ENV_NAME.search(name))


def secret_env_value(value: str) -> bool:
    """Whether an env VALUE looks like a credential whatever its name: a known key prefix, or a
    token of 24+ characters without spaces or path separators mixing letters and digits. Kept
    conservative: words, numbers, booleans, paths and URLs are configuration."""
    if _KEY_PREFIXES.fullmatch(value):
        return True
    if not _HIGH_ENTROPY.fullmatch(value) or value.startswith(("/", ".", "~")):
        return False
    if not (any(c.isdigit() for c in value) and any(c.islower() for c in value)):
        return False
    # Mixed case, or long enough that a lowercase hex/base32 token is meant (a random id).
    return any(c.isupper() for c in value) or len(value) >= 32


_STDIO_ONLY = "args, env, secret-env and cwd apply to stdio targets only"
_URL_ONLY = "headers and bearer apply to http/sse targets only"


def target_spec(
    *,
    transport: str | None = None,
    command: str | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    url: str | None = None,
    headers: Mapping[str, str] | None = None,
    bearer: str | None = None,
    secret_env: Sequence[str] = (),
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    call_timeout: float = DEFAULT_CALL_TIMEOUT,
    url_credentials: bool = True,
    client_capabilities: Sequence[str] | None = None,
    protocol: str = "auto",
    sandbox: str = DEFAULT_SANDBOX,
    examples: object = None,
) -> TargetSpec:
    """A validated ``TargetSpec``; ``UsageError`` (one line, no secret in it) when the target is
    not one. ``transport`` defaults to ``stdio`` for a command and ``http`` for a url; the fields
    a transport does not use must be left empty (``TransportKind.fields``). ``url_credentials``
    False also refuses a user:password in the URL (``probe_connect``: a model writes the
    arguments, so credentials belong in ``headers``/``bearer``, which are never echoed).
    ``client_capabilities`` (None: all three; ``()``: none) and ``protocol`` (``PROTOCOL_CHOICES``)
    apply to every transport and are checked here for every front-end. ``sandbox``
    (``core.isolation.SANDBOX_MODES``) isolates a stdio target; ``required`` is a usage error
    for an http/sse target, which mcprobe does not start. ``examples``: the user's examples
    (any shape), whose existing paths a sandboxed stdio target gets private copies of."""
    if command is not None and url is not None:
        raise UsageError(
            "give either a command (stdio target) or a url (http/sse target), not both"
        )
    if transport is None:
        if command is None and url is None:
            raise UsageError("give a command (stdio target) or a url (http/sse target)")
        transport = "stdio" if command is not None else "http"
    kind = TRANSPORTS_BY_NAME.get(transport)  # type: ignore[call-overload]
    if kind is None:
        names = ", ".join(TRANSPORTS_BY_NAME)
        raise UsageError(f"unknown transport {transport!r}: expected one of {names}")
    for name, value in (("timeout", call_timeout), ("connect_timeout", connect_timeout)):
        if not value > 0:
            raise UsageError(f"{name} must be a positive number of seconds, got {value!r}")
    era = _protocol(protocol)
    isolation = _sandbox(sandbox, kind)
    declared = _declared(client_capabilities)
    given = {
        "command": command is not None,
        "args": bool(args),
        "env": bool(env),
        "secret_env": bool(secret_env),
        "cwd": cwd is not None,
        "url": url is not None,
        "headers": bool(headers),
        "bearer": bearer is not None,
    }
    if kind.needs == "command" and (command is None or not command.strip()):
        raise UsageError(f"transport {kind.name} needs a non-empty command")
    if kind.needs == "url" and url is None:
        raise UsageError(f"transport {kind.name} needs a url")
    if {name for name, present in given.items() if present} - kind.fields:
        raise UsageError(_STDIO_ONLY if kind.needs == "url" else _URL_ONLY)
    if kind.needs == "command":
        for name in env or {}:
            if not _ENV_NAME.fullmatch(name):
                raise UsageError(f"env: {name!r} is not a valid environment variable name")
        for name in secret_env:
            if not _ENV_NAME.fullmatch(name):
                raise UsageError(f"secret-env: {name!r} is not a valid environment variable name")
        return TargetSpec(
            kind.name,
            command=command,
            args=tuple(args),
            env=dict(env or {}),
            secret_env=frozenset(secret_env),
            cwd=cwd,
            connect_timeout=connect_timeout,
            call_timeout=call_timeout,
            client_capabilities=declared,
            protocol=era,
            sandbox=isolation,
            example_paths=example_paths(examples) if examples else (),
        )
    assert url is not None  # checked above
    _check_url(url, credentials=url_credentials)
    return TargetSpec(
        kind.name,
        url=url,
        headers=dict(headers or {}),
        bearer=bearer,
        connect_timeout=connect_timeout,
        call_timeout=call_timeout,
        client_capabilities=declared,
        protocol=era,
    )


def _sandbox(value: object, kind: TransportKind) -> SandboxMode:
    mode = sandbox_mode(value)
    if mode == "required" and kind.needs == "url":
        raise UsageError(f"sandbox required: {NOT_STARTED}")
    return mode


def _declared(names: Sequence[str] | None) -> tuple[str, ...]:
    if names is None:
        return DEFAULT_CLIENT_CAPABILITIES
    try:
        return check_client_capabilities(names)
    except ValueError as exc:
        raise UsageError(f"client_capabilities: {exc} ([] declares none)") from None


def _protocol(value: object) -> ProtocolChoice:
    if isinstance(value, str) and value in PROTOCOL_CHOICES:
        return cast("ProtocolChoice", value)
    shown = repr(value) if isinstance(value, str) and len(value) <= 40 else "that value"
    choices = ", ".join(PROTOCOL_CHOICES)
    raise UsageError(f"protocol: unknown protocol {shown}; expected one of {choices}")


def _check_url(url: str, *, credentials: bool) -> None:
    # The URL is not quoted in these messages: it may carry a password or a token.
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise UsageError("malformed url: cannot be parsed") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            "malformed url: expected http:// or https:// with a host "
            "(a stdio target is a command, not a url)"
        )
    if not credentials and (parts.username or parts.password):
        raise UsageError("put credentials in headers or bearer, not in the url")


CANARY_PREFIX = "MCPROBE_CANARY_"
"""Name prefix of the canary variable mcprobe plants in stdio targets' environments."""


def seeded_canary(seed: int) -> tuple[str, str]:
    """The canary (name, value) of a run given an explicit seed (``--seed N``): derived from the
    seed, so a seeded run repeats byte for byte. A run without a seed gets a random one
    (``client/canary.py``), so no server can know it in advance."""
    digest = hashlib.sha256(f"mcprobe-canary-seed:{seed}".encode()).hexdigest()
    return CANARY_PREFIX + digest[:8].upper(), "mcprobe-canary-" + digest[8:32]


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
