"""Behavioural checks of the server as a whole: resources, prompts and the protocol itself.

A tool is judged by its fuzz cases; everything else a server serves is judged by *checks*: one
request (or a short exchange) whose answer a small pure function turns into a ``CheckResult``.
Each check is one record in ``CHECKS`` holding its stable id, the spec clause it enforces, how
binding that clause is (``must`` / ``should``), the report dimension a failure counts in, and the
fix. The judging functions live in ``core.resources``, ``core.prompts`` and ``core.protocol``;
the requests are sent by ``engine.protocol_probes``.

Truth first (SPEC §5.1): ``fail`` only when the server is provably at fault against a clause of
the spec; ``inconclusive`` (with the reason) whenever mcprobe's own guess may be the cause, e.g.
a prompt argument value mcprobe made up; ``notApplicable`` when the server does not offer what
the check needs (nothing is sent then). Only ``must`` failures cost points; a ``should`` failure
is reported and listed as a fix, but a server that skips a recommendation keeps its score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from mcprobe.core.lint.security_text import ModelText
from mcprobe.core.model import Finding

__all__ = [
    "CHECKS",
    "Area",
    "CheckResult",
    "CheckSpec",
    "Level",
    "SurfaceRun",
    "Verdict",
    "check_result",
]

SPEC = "https://modelcontextprotocol.io/specification/2025-11-25"
SPEC_MODERN = "MCP 2026-07-28"


class Area(StrEnum):
    RESOURCES = "resources"
    PROMPTS = "prompts"
    PROTOCOL = "protocol"
    HTTP = "http"


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"
    NOT_APPLICABLE = "notApplicable"


class Level(StrEnum):
    MUST = "must"  # a failure costs points
    SHOULD = "should"  # a failure is reported and fixed, never scored


@dataclass(frozen=True)
class CheckSpec:
    """One check as users see it (the report, docs/checks.md and the tests read these)."""

    check: str
    area: Area
    title: str
    clause: str  # where the spec says so (URL with anchor, or a named section)
    level: Level
    dimension: str  # the score dimension a failure counts in
    hint: str  # the fix, as a maintainer would write it


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict about one subject (a resource URI, a prompt name, or the server).

    ``request`` is what was sent (``method`` + JSON params), so the result is reproducible;
    ``observed`` is a short description of the answer (untrusted text from the target inside).
    """

    check: str
    verdict: Verdict
    message: str
    subject: str | None = None
    request: str | None = None
    observed: str | None = None

    @property
    def spec(self) -> CheckSpec:
        return CHECKS[self.check]

    @property
    def scored_failure(self) -> bool:
        return self.verdict is Verdict.FAIL and self.spec.level is Level.MUST


@dataclass(frozen=True)
class SurfaceRun:
    """Everything the resource, prompt and protocol checks produced for one server. The counts
    are None when the list was not taken (capability not declared, or the listing failed)."""

    checks: tuple[CheckResult, ...] = ()
    findings: tuple[Finding, ...] = ()
    resources: int | None = None
    templates: int | None = None
    prompts: int | None = None
    texts: tuple[ModelText, ...] = ()  # what the model reads about and from them (security)


def check_result(
    check: str,
    verdict: Verdict,
    message: str,
    *,
    subject: str | None = None,
    request: str | None = None,
    observed: str | None = None,
) -> CheckResult:
    """A ``CheckResult`` for a registered check (an unknown id is a programming error)."""
    if check not in CHECKS:
        raise KeyError(f"unregistered check {check!r}")
    return CheckResult(check, verdict, message, subject, request, observed)


_R, _P, _X = Area.RESOURCES, Area.PROMPTS, Area.PROTOCOL
_MUST, _SHOULD = Level.MUST, Level.SHOULD
_EH, _LV, _MD = "errorHandling", "liveness", "metadata"

_SPECS: tuple[CheckSpec, ...] = (
    # ---------------------------------------------------------------- resources
    CheckSpec(
        "resources.list",
        _R,
        "resources/list answers",
        f"{SPEC}/server/resources#listing-resources",
        _MUST,
        _LV,
        "answer resources/list with {resources: [...]} when the resources capability is declared",
    ),
    CheckSpec(
        "resources.templates_list",
        _R,
        "resources/templates/list answers",
        f"{SPEC}/server/resources#resource-templates",
        _SHOULD,
        _LV,
        "answer resources/templates/list with {resourceTemplates: [...]} (an empty list is fine)",
    ),
    CheckSpec(
        "resources.read",
        _R,
        "A listed resource can be read",
        f"{SPEC}/server/resources#reading-resources",
        _MUST,
        _LV,
        "answer resources/read of every listed URI with {contents: [{uri, text | blob}]}",
    ),
    CheckSpec(
        "resources.read_mime",
        _R,
        "Read contents carry the listed mimeType",
        f"{SPEC}/server/resources#resource-contents",
        _SHOULD,
        _LV,
        "send the same mimeType in resources/read contents as in resources/list",
    ),
    CheckSpec(
        "resources.template_read",
        _R,
        "An expanded resource template can be read",
        f"{SPEC}/server/resources#resource-templates",
        _MUST,
        _LV,
        "resolve URIs that match an advertised template (or describe the values the template "
        "accepts, and offer completion/complete for its variables)",
    ),
    CheckSpec(
        "resources.not_found",
        _R,
        "Reading an unknown URI is an error",
        f"{SPEC}/server/resources#error-handling",
        _MUST,
        _EH,
        "answer resources/read of an unknown URI with JSON-RPC error -32002 (Resource not found)",
    ),
    CheckSpec(
        "resources.not_found_code",
        _R,
        "Resource not found uses -32002 (or -32602, its 2026-07-28 successor)",
        f"{SPEC}/server/resources#error-handling",
        _SHOULD,
        _EH,
        "use code -32002 (Resource not found; -32602 from 2026-07-28 on) for an unknown URI",
    ),
    CheckSpec(
        "resources.subscribe",
        _R,
        "resources/subscribe works when advertised",
        f"{SPEC}/server/resources#subscriptions",
        _MUST,
        _MD,
        "accept resources/subscribe and resources/unsubscribe when capabilities.resources."
        "subscribe is true, or stop advertising it",
    ),
    # ---------------------------------------------------------------- prompts
    CheckSpec(
        "prompts.list",
        _P,
        "prompts/list answers",
        f"{SPEC}/server/prompts#listing-prompts",
        _MUST,
        _LV,
        "answer prompts/list with {prompts: [...]} when the prompts capability is declared",
    ),
    CheckSpec(
        "prompts.get",
        _P,
        "A listed prompt can be fetched",
        f"{SPEC}/server/prompts#getting-a-prompt",
        _MUST,
        _LV,
        "answer prompts/get with {messages: [{role: user|assistant, content: {type, ...}}]}",
    ),
    CheckSpec(
        "prompts.missing_argument",
        _P,
        "A missing required prompt argument is rejected",
        f"{SPEC}/server/prompts#error-handling",
        _MUST,
        _EH,
        "reject prompts/get without a required argument with JSON-RPC error -32602",
    ),
    CheckSpec(
        "prompts.unknown_name",
        _P,
        "An unknown prompt name is rejected",
        f"{SPEC}/server/prompts#error-handling",
        _MUST,
        _EH,
        "reject prompts/get of an unknown prompt name with JSON-RPC error -32602",
    ),
    # ---------------------------------------------------------------- protocol
    CheckSpec(
        "protocol.ping",
        _X,
        "ping is answered",
        f"{SPEC}/basic/utilities/ping#behavior-requirements",
        _MUST,
        _MD,
        "answer ping promptly with an empty result {}",
    ),
    CheckSpec(
        "protocol.unknown_method",
        _X,
        "An unknown method gets a JSON-RPC error",
        "https://www.jsonrpc.org/specification#error_object (MCP basic: JSON-RPC 2.0 errors)",
        _MUST,
        _MD,
        "answer requests for methods you do not implement with JSON-RPC error -32601",
    ),
    CheckSpec(
        "protocol.unknown_method_code",
        _X,
        "An unknown method's error code is -32601",
        "https://www.jsonrpc.org/specification#error_object (MCP basic: JSON-RPC 2.0 errors)",
        _SHOULD,
        _MD,
        "answer unknown methods with -32601 (with the Python SDK: upgrade to mcp 2.x)",
    ),
    CheckSpec(
        "protocol.invalid_cursor",
        _X,
        "An invalid tools/list cursor gets -32602",
        f"{SPEC}/server/utilities/pagination#error-handling",
        _SHOULD,
        _MD,
        "reject a tools/list cursor you never issued with JSON-RPC error -32602",
    ),
    CheckSpec(
        "protocol.version_negotiation",
        _X,
        "An unknown protocol version is answered with a supported one",
        f"{SPEC}/basic/lifecycle#version-negotiation",
        _MUST,
        _MD,
        "when initialize offers a version you do not support, answer with the latest version "
        "you do support (never echo the unknown one, never refuse the initialize)",
    ),
    CheckSpec(
        "protocol.logging",
        _X,
        "logging/setLevel works when advertised",
        f"{SPEC}/server/utilities/logging#setting-log-level",
        _MUST,
        _MD,
        "accept logging/setLevel when the logging capability is declared, or stop declaring it",
    ),
    CheckSpec(
        "protocol.progress",
        _X,
        "Progress notifications are well-formed",
        f"{SPEC}/basic/utilities/progress (the progress value MUST increase with each "
        "notification; progress notifications MUST only reference tokens provided in an active "
        "request, and MUST stop after completion)",
        _MUST,
        _MD,
        "send notifications/progress only with the request's own progressToken, with a "
        "numeric progress that increases every time, and none after the response",
    ),
    CheckSpec(
        "protocol.progress_total",
        _X,
        "Progress stays within its total",
        f"{SPEC}/basic/utilities/progress and the schema's ProgressNotification.total (\"total "
        'number of items to process (or total progress required), if known"; not a MUST)',
        _SHOULD,
        _MD,
        "announce a total no smaller than the progress you will report, or omit total when it "
        "is unknown",
    ),
    CheckSpec(
        "protocol.cancellation",
        _X,
        "A cancelled call stops (notifications/cancelled)",
        f"{SPEC}/basic/utilities/cancellation#behavior-requirements (receivers SHOULD stop "
        "processing the cancelled request and not send a response for it; they MAY ignore it)",
        _SHOULD,
        _MD,
        "on notifications/cancelled for a request in flight, stop its work and send no "
        "response for it (the SDKs: honour the request's cancellation signal / abort signal "
        "inside long-running tools)",
    ),
    CheckSpec(
        "protocol.completion",
        _X,
        "completion/complete works when advertised",
        f"{SPEC}/server/utilities/completion#requesting-completions",
        _MUST,
        _MD,
        "answer completion/complete with {completion: {values: [...]}} when the completions "
        "capability is declared, or stop declaring it",
    ),
)

_SPECS += (
    # ---------------------------------------------------------------- 2026-07-28 (modern era)
    CheckSpec(
        "modern.discover",
        _X,
        "server/discover answers with a well-formed DiscoverResult",
        f"{SPEC_MODERN} schema: DiscoverRequest (Servers MUST implement server/discover)",
        _MUST,
        _MD,
        'implement server/discover: {supportedVersions: ["2026-07-28"], capabilities, ttlMs, '
        'cacheScope, resultType: "complete"}',
    ),
    CheckSpec(
        "modern.result_type",
        _X,
        "2026-07-28 results carry resultType",
        f"{SPEC_MODERN} schema: Result.resultType (servers implementing this version MUST "
        "include this field)",
        _MUST,
        _MD,
        'put resultType: "complete" on every result of a 2026-07-28 request',
    ),
    CheckSpec(
        "modern.unsupported_version",
        _X,
        "A request naming an unsupported version gets UnsupportedProtocolVersionError",
        f"{SPEC_MODERN} schema: RequestMetaObject.protocolVersion (if the server does not "
        "support the requested version, it MUST return an UnsupportedProtocolVersionError)",
        _MUST,
        _MD,
        "answer a request whose _meta protocolVersion you do not support with JSON-RPC error "
        "-32022 and data {supported: [...]}",
    ),
)

_T = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports"
_SPECS += (
    # ---------------------------------------------------------------- Streamable HTTP (loopback)
    CheckSpec(
        "http.origin",
        Area.HTTP,
        "A foreign Origin is refused (DNS rebinding)",
        f"{_T}#security-warning (servers MUST validate the Origin header; an invalid one MUST "
        "get 403 Forbidden)",
        _MUST,
        _MD,
        "validate the Origin header of every request and answer a foreign one with 403 "
        "(the SDKs: enable DNS-rebinding protection / allowed origins)",
    ),
    CheckSpec(
        "http.host",
        Area.HTTP,
        "A foreign Host is refused (DNS rebinding)",
        f"{_T}#security-warning (local servers SHOULD bind to localhost; the SDKs validate Host "
        "against DNS rebinding)",
        _SHOULD,
        _MD,
        "accept only the Host names you serve (localhost, 127.0.0.1) and answer others with 4xx",
    ),
    CheckSpec(
        "http.content_type",
        Area.HTTP,
        "A POSTed request is answered as JSON or an SSE stream",
        f"{_T}#sending-messages-to-the-server (the server MUST return Content-Type "
        "text/event-stream or application/json)",
        _MUST,
        _MD,
        "answer a POSTed JSON-RPC request with Content-Type application/json or text/event-stream",
    ),
    CheckSpec(
        "http.protocol_version_header",
        Area.HTTP,
        "An unsupported MCP-Protocol-Version header gets 400",
        f"{_T}#protocol-version-header (an invalid or unsupported MCP-Protocol-Version MUST get "
        "400 Bad Request)",
        _MUST,
        _MD,
        "answer a request whose MCP-Protocol-Version header you do not support with 400",
    ),
    CheckSpec(
        "http.session_unknown",
        Area.HTTP,
        "An unknown Mcp-Session-Id gets 404",
        f"{_T}#session-management (a request with a terminated or unknown session id MUST get "
        "404 Not Found)",
        _SHOULD,
        _MD,
        "answer a request carrying a session id you did not issue (or already ended) with 404",
    ),
    CheckSpec(
        "http.session_delete",
        Area.HTTP,
        "DELETE ends the session (or is refused with 405)",
        f"{_T}#session-management (after a session ends, requests with its id MUST get 404; "
        "a server that does not let clients end sessions answers DELETE with 405)",
        _MUST,
        _MD,
        "end the session on DELETE with its Mcp-Session-Id and answer later requests carrying it "
        "with 404, or answer DELETE with 405",
    ),
    CheckSpec(
        "http.get_stream",
        Area.HTTP,
        "GET offers an SSE stream or is refused with 405",
        f"{_T}#listening-for-messages-from-the-server (the server MUST return "
        "text/event-stream or 405 Method Not Allowed)",
        _MUST,
        _MD,
        "answer GET with Accept: text/event-stream with an SSE stream, or with 405",
    ),
)

CHECKS: Mapping[str, CheckSpec] = MappingProxyType({spec.check: spec for spec in _SPECS})
"""Every check mcprobe makes, by id, in report order."""
