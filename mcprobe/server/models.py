"""The wire shapes of mcprobe's six MCP tools (SPEC §2): pydantic, camelCase, strict.

Input models forbid unknown keys and do not coerce types (``"5"`` is not a number), so a caller's
mistake gets a precise ``isError`` instead of a guess. Their JSON Schemas are the tools'
``inputSchema``; the output models' schemas are the ``outputSchema``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from mcprobe.core.client_capabilities import ClientCapability
from mcprobe.core.isolation import SandboxMode
from mcprobe.core.target_spec import ProtocolChoice, Transport
from mcprobe.report.formats import ReportFormat, expected_names
from mcprobe.report.model import (
    CoverageOut,
    DeepOut,
    FindingOut,
    FuzzResultOut,
    FuzzSummaryOut,
    ServerOut,
    TargetDeathOut,
    WireModel,
)


def _connection_id() -> Any:
    return Field(
        default=None,
        description="Which connection (from probe_connect); default: the most recently opened.",
    )


class ToolInput(WireModel):
    model_config = ConfigDict(strict=True)


# --------------------------------------------------------------------------- inputs


class ConnectInput(ToolInput):
    transport: Transport | None = Field(
        default=None,
        description="stdio (needs command), http (Streamable HTTP, falls back to SSE; needs url) "
        "or sse (legacy SSE; needs url). Default: inferred from command / url.",
    )
    command: str | None = Field(default=None, description="stdio: the program to start.")
    args: list[str] = Field(default_factory=list, description="stdio: its arguments, as given.")
    env: dict[str, str] = Field(
        default_factory=dict,
        description="stdio: extra environment variables. mcprobe never repeats a value; one "
        "whose name or shape says secret (API_TOKEN, DB_PASSWORD, a long random token...) or "
        "that secretEnv names is also redacted from everything the target sends back.",
    )
    secret_env: list[str] = Field(
        default_factory=list,
        description="stdio: names of env variables whose values are secrets too (as the CLI's "
        "--secret-env), e.g. a short password the name/shape rule would not recognise.",
    )
    cwd: str | None = Field(default=None, description="stdio: the working directory.")
    url: str | None = Field(default=None, description="http/sse: the server URL.")
    headers: dict[str, str] = Field(
        default_factory=dict,
        description="http/sse: extra request headers (values are secret: never echoed).",
    )
    bearer: str | None = Field(
        default=None, description="http/sse: a bearer token (secret: never echoed)."
    )
    timeout_seconds: float | None = Field(
        default=None,
        gt=0,
        le=600,
        description="Per-call timeout for the target's tools, in seconds (default 30); the "
        "handshake has its own limit, connectTimeoutSeconds.",
    )
    connect_timeout_seconds: float | None = Field(
        default=None,
        gt=0,
        le=600,
        description="Limit for starting the target and completing the handshake and tool "
        "listing, in seconds (default 30).",
    )
    client_capabilities: list[ClientCapability] | None = Field(
        default=None,
        description="Client capabilities mcprobe declares in initialize, like the CLI's "
        "--client-capabilities: any of roots (answered with an empty list), elicitation "
        "(declined), sampling (answered with an error); [] declares none. Default: all three, "
        "so servers that show some tools only to capable clients show them.",
    )
    protocol: ProtocolChoice = Field(
        default="auto",
        description="Protocol era, like the CLI's --protocol: handshake (initialize), modern "
        "(2026-07-28: server/discover and per-request _meta), or auto (initialize, then "
        "2026-07-28 if initialize is refused).",
    )
    sandbox: SandboxMode = Field(
        default="auto",
        description="Isolation of a stdio target, like the CLI's --sandbox: auto (default: a "
        "bubblewrap sandbox where the OS allows it: no network beyond loopback, host files "
        "read-only, private copies of its cwd and of the paths in its args and env (and, on "
        "probe_audit, in examples), a fresh "
        "HOME, its own PID namespace, resource limits), required (an error where no isolation "
        "is possible), off (the server runs with your rights). HTTP targets are never isolated.",
    )


class ConnectionInput(ToolInput):
    connection_id: str | None = _connection_id()


class FuzzInput(ToolInput):
    connection_id: str | None = _connection_id()
    max_tools: int | None = Field(
        default=None, ge=0, description="Fuzz at most this many tools (default 50)."
    )
    fuzz_writes: bool = Field(
        default=False,
        description="Consent to also call tools that declare destructiveHint: false (additive "
        "writes: they may create files or records). By default only readOnlyHint: true tools "
        "are called.",
    )
    fuzz_destructive: bool = Field(
        default=False,
        description="Explicit consent to call every tool, including ones that may be "
        "destructive (implies fuzzWrites). Only against a disposable server.",
    )
    deep: bool = Field(
        default=False,
        description="After the fuzz calls, the deep pass (like the CLI's --deep): each tool's "
        "working valid call again with one field changed at a time to a schema-valid edge value "
        "(empty and control-character strings, JSON-looking strings, 0, -1, 2^31, fractions, "
        "empty and one-element arrays…), judged against that base. The same consent as the "
        "fuzz calls; about 3 s per tool.",
    )
    seed: int | None = Field(
        default=None,
        ge=0,
        description="With deep: the seed of the edge values (default 0); the report prints the "
        "seed used, and the same seed sends the same calls again.",
    )
    tools: list[str] | None = Field(
        default=None, description="Only fuzz these tools (names as listed by the target)."
    )
    skip_tools: list[str] | None = Field(
        default=None,
        description="Never call these tools. Inside the sandbox (an isolated stdio target) "
        "every other tool is called; without isolation the consent inputs decide.",
    )
    examples: dict[str, dict[str, Any] | list[dict[str, Any]]] | None = Field(
        default=None,
        description="Realistic arguments per tool: tool name -> one argument object or a list of "
        "them (read each tool's description and schema and use values that work on this "
        "server). They are the valid calls (a refusal then costs the server) and the base of "
        "the malformed ones; each must validate against the tool's inputSchema.",
    )
    concurrency: int = Field(
        default=4,
        ge=1,
        le=16,
        description="How many calls may be in flight at once; changes no verdict (the calls in "
        "flight when the target dies are replayed one at a time).",
    )


class ReportOptions(ToolInput):
    """What to audit and how to report it: shared by probe_report and probe_audit."""

    fuzz: bool = Field(default=False, description="Also run the behavioural pass (calls tools).")
    max_tools: int | None = Field(
        default=None, ge=0, description="With fuzz: fuzz at most this many tools (default 50)."
    )
    fuzz_writes: bool = Field(
        default=False,
        description="With fuzz: consent to also call tools that declare destructiveHint: false "
        "(additive writes).",
    )
    fuzz_destructive: bool = Field(
        default=False,
        description="With fuzz: consent to call every tool, including ones that may be "
        "destructive (implies fuzzWrites).",
    )
    deep: bool = Field(
        default=False,
        description="After the fuzz calls, the deep pass (like the CLI's --deep): each tool's "
        "working valid call again with one field changed at a time to a schema-valid edge value "
        "(empty and control-character strings, JSON-looking strings, 0, -1, 2^31, fractions, "
        "empty and one-element arrays…), judged against that base. The same consent as the "
        "fuzz calls; about 3 s per tool; implies fuzz.",
    )
    seed: int | None = Field(
        default=None,
        ge=0,
        description="With deep: the seed of the edge values (default 0); the report prints the "
        "seed used, and the same seed sends the same calls again.",
    )
    skip_tools: list[str] | None = Field(
        default=None,
        description="With fuzz: never call these tools. Inside the sandbox (an isolated stdio "
        "target) every other tool is called; without isolation the consent inputs decide.",
    )
    examples: dict[str, dict[str, Any] | list[dict[str, Any]]] | None = Field(
        default=None,
        description="With fuzz: realistic arguments per tool: tool name -> one argument "
        "object or a list of them (read each tool's description and schema and use values "
        "that work on this server). They are the valid calls (a refusal then costs the "
        "server) and the base of the malformed ones; each must validate against the tool's "
        "inputSchema.",
    )
    concurrency: int = Field(
        default=4,
        ge=1,
        le=16,
        description="How many calls may be in flight at once; changes no verdict (the calls in "
        "flight when the target dies are replayed one at a time).",
    )
    lock: dict[str, Any] | None = Field(
        default=None,
        description="A lock from `mcprobe pin` (or an earlier report's `lock`): the report's "
        "`drift` lists tools added, removed or changed since.",
    )
    surface: bool = Field(
        default=True,
        description="Run the resource, prompt, protocol and HTTP transport checks (read-only "
        "by the spec); false audits the tools only.",
    )
    format: ReportFormat = Field(
        default="md",
        description="The report format of the text content, as the CLI's --format: "
        f"{expected_names()} (default md). structuredContent is always the JSON report.",
    )
    detail: Literal["summary", "full"] = Field(
        default="summary",
        description="summary (default): the summary Markdown (grade, worst problems, critical "
        "callout, fixes) and a report whose fuzz/findings/checks lists keep only what carries "
        "a verdict; full: the whole Markdown report and every list.",
    )


class ReportInput(ReportOptions):
    connection_id: str | None = _connection_id()
    pin: bool = Field(
        default=False,
        description="Also return this server's lock in the report's `lock` field (save it, pass "
        "it as `lock` later to see drift). Lists only: calls no tool.",
    )


class AuditInput(ConnectInput, ReportOptions):
    """probe_audit: the target of probe_connect and the options of probe_report, in one call."""


class DisconnectInput(ToolInput):
    connection_id: str | None = _connection_id()
    all: bool = Field(default=False, description="Close every open connection.")


# --------------------------------------------------------------------------- outputs


class Counts(WireModel):
    tools: int
    resources: int | None = Field(description="null when the server does not offer resources")
    prompts: int | None = Field(description="null when the server does not offer prompts")


class ConnectOutput(WireModel):
    connection_id: str
    name: str | None
    version: str | None
    protocol_version: str | None
    capabilities: dict[str, Any]
    counts: Counts
    instructions: str | None
    default_connection_id: str | None
    era: Literal["handshake", "modern"] = Field(
        description="the era connected in: initialize, or 2026-07-28 (server/discover)"
    )
    client_capabilities: list[ClientCapability] = Field(
        description="the client capabilities mcprobe declared (none in the 2026-07-28 era, "
        "which has no initialize)"
    )


class SeveritySummary(WireModel):
    critical: int = 0
    error: int
    warning: int
    info: int


class LintOutput(WireModel):
    connection_id: str
    server: ServerOut
    findings: list[FindingOut]
    summary: SeveritySummary


class FuzzOutput(WireModel):
    connection_id: str
    server: ServerOut
    results: list[FuzzResultOut]
    coverage: CoverageOut
    summary: FuzzSummaryOut
    unknown_tool_probe: FuzzResultOut | None
    crashed_by: str | None
    critical: list[str]
    notes: list[str]
    deaths: list[TargetDeathOut] = Field(
        default_factory=list, description="every time the target died, with its restarts"
    )
    fuzz_stopped: str | None = Field(
        default=None, description="why the fuzz run could not go on after a death"
    )
    deep: DeepOut | None = Field(
        default=None,
        description="with deep: true, the deep pass: the seed, each tool's base and its findings",
    )


class ListOutput(WireModel):
    connection_id: str
    server: ServerOut
    tools: list[Any] = Field(description="raw tool definitions exactly as the target sent them")
    resources: list[Any] | None = Field(
        default=None, description="raw resources/list entries (every page); null: not advertised"
    )
    resource_templates: list[Any] | None = Field(
        default=None, description="raw resources/templates/list entries; null: not listed"
    )
    prompts: list[Any] | None = Field(
        default=None, description="raw prompts/list entries (every page); null: not advertised"
    )


class DisconnectOutput(WireModel):
    removed: list[str]
    remaining: list[str] = Field(description="ids of the connections still open")
    default_connection_id: str | None
