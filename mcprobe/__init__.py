"""mcprobe: audit MCP servers over the live protocol.

The library surface, the same pipeline as ``mcprobe audit`` and the ``probe_report`` tool::

    import mcprobe

    report = await mcprobe.audit_stdio("python", ["-m", "my_server"], fuzz=True)
    report = await mcprobe.audit_url("http://127.0.0.1:8000/mcp", bearer=token)
    report = mcprobe.audit_stdio_sync("python", ["-m", "my_server"])  # outside an event loop
    print(mcprobe.render_report(report))            # Markdown; or format="json"|"sarif"|"junit"

    # every knob, in the one request shape the CLI and the MCP server build too
    spec = mcprobe.target_spec(command="python", args=("-m", "my_server"))
    report = await mcprobe.audit(mcprobe.AuditRequest(spec, fuzz=True, skip_tools=("drop_db",)))

Failing to reach the target raises ``ConnectFailed`` (its ``stderr_tail`` quotes the target);
everything the target does once connected is data in the report, never an exception.

``import mcprobe`` stays cheap: the MCP SDK, pydantic and the pipeline load on first use.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from mcprobe.core.version import __version__

__all__ = [
    "AuditRequest",
    "ConformanceReport",
    "ConnectFailed",
    "McprobeError",
    "ReportFormat",
    "UsageError",
    "__version__",
    "audit",
    "audit_stdio",
    "audit_stdio_sync",
    "audit_url",
    "audit_url_sync",
    "render_report",
    "target_spec",
]

if TYPE_CHECKING:
    from mcprobe.core.errors import ConnectFailed as ConnectFailed
    from mcprobe.core.errors import McprobeError as McprobeError
    from mcprobe.core.errors import UsageError as UsageError
    from mcprobe.core.isolation import SandboxMode
    from mcprobe.core.target_spec import ProtocolChoice, TargetSpec, Transport
    from mcprobe.core.target_spec import target_spec as target_spec
    from mcprobe.engine.fuzz_runner import ProgressCallback
    from mcprobe.engine.request import AuditRequest as AuditRequest
    from mcprobe.report.model import ConformanceReport as ConformanceReport

from mcprobe.report.formats import ReportFormat

_LAZY = {
    "AuditRequest": "mcprobe.engine.request",
    "ConformanceReport": "mcprobe.report.model",
    "UsageError": "mcprobe.core.errors",
    "target_spec": "mcprobe.core.target_spec",
    "ConnectFailed": "mcprobe.core.errors",
    "McprobeError": "mcprobe.core.errors",
}

_P = ParamSpec("_P")
_T = TypeVar("_T")


if not TYPE_CHECKING:  # type checkers see the imports above; a typo stays a type error

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'mcprobe' has no attribute {name!r}")
        import importlib

        return getattr(importlib.import_module(module), name)


async def audit(
    request: AuditRequest,
    *,
    progress: ProgressCallback | None = None,
) -> ConformanceReport:
    """Run one audit as ``request`` says (``mcprobe.AuditRequest``: the target spec and every
    knob; the same request ``mcprobe audit`` and the MCP server build) and return its report.
    ``audit_stdio`` and ``audit_url`` are shorthands that build the request for you."""
    from mcprobe.engine.audit import audit as run

    return await run(request, progress=progress)


async def audit_stdio(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    secret_env: Sequence[str] = (),
    cwd: str | os.PathLike[str] | None = None,
    fuzz: bool = False,
    fuzz_writes: bool = False,
    fuzz_destructive: bool = False,
    deep: bool = False,
    seed: int | None = None,
    max_tools: int = 50,
    tools: Sequence[str] | None = None,
    skip_tools: Sequence[str] = (),
    timeout: float = 30.0,
    connect_timeout: float = 30.0,
    concurrency: int | None = None,
    overall_timeout: float | None = None,
    progress: ProgressCallback | None = None,
    surface: bool = True,
    client_capabilities: Sequence[str] | None = None,
    protocol: ProtocolChoice = "auto",
    examples: Mapping[str, Any] | None = None,
    sandbox: SandboxMode = "auto",
) -> ConformanceReport:
    """Audit a stdio MCP server started as ``command args…``.

    ``env`` is added to a minimal safe environment (the SDK passes only HOME, PATH, USER, …);
    the report names its variables, never their values, and a value whose name or shape says
    secret (``API_TOKEN``, a long random token…), or whose name ``secret_env`` lists (as
    ``--secret-env``), is also redacted from everything the target sends back. ``fuzz`` calls
    the tools: only those annotated ``readOnlyHint: true``, unless ``fuzz_writes`` (also
    ``destructiveHint: false`` tools: additive writes) or ``fuzz_destructive`` (every tool);
    both imply ``fuzz``; ``tools`` restricts fuzzing to those names. ``deep`` (as ``--deep``,
    implies ``fuzz``) adds the deep pass of valid inputs, seeded by ``seed`` (as ``--seed``;
    None: 0, the report names the seed used). Inside the sandbox
    (``sandbox``) every tool is called whatever its annotations, except ``skip_tools``.
    ``examples``: tool name →
    one argument object or a list of them, the valid calls (provenance ``user``) and the base of
    the malformed ones; each is checked against its tool's schema first (``UsageError`` naming
    the tool and the schema error, or an unknown tool). ``timeout`` is per call.
    ``surface=False`` skips the resource, prompt, protocol and HTTP transport checks (tools
    only). ``client_capabilities`` (as ``--client-capabilities``) lists what mcprobe declares
    in initialize, any of ``roots``, ``elicitation``, ``sampling`` (default: all three; ``[]``
    declares none). ``protocol`` (as ``--protocol``) picks the era: ``"handshake"``
    (initialize), ``"modern"`` (2026-07-28), or ``"auto"`` (initialize, then 2026-07-28 if it
    is refused). A bad value of either raises ``UsageError`` naming it and the choices. Raises
    ``ConnectFailed`` when the target cannot be started or does not complete the handshake
    within ``connect_timeout``. ``sandbox`` (as ``--sandbox``): ``"auto"`` runs the target in a
    bubblewrap sandbox where the OS allows it (no network beyond loopback, host files
    read-only, private copies of its cwd and named paths, a fresh HOME), ``"required"`` raises
    ``UsageError`` where it cannot, ``"off"`` runs it with your rights; the report's
    ``isolation`` says what was used.
    """
    from mcprobe.core.target_spec import target_spec

    spec = target_spec(
        sandbox=sandbox,
        command=command,
        args=tuple(args),
        env=dict(env or {}),
        secret_env=tuple(secret_env),
        cwd=os.fspath(cwd) if cwd is not None else None,
        connect_timeout=connect_timeout,
        call_timeout=timeout,
        client_capabilities=client_capabilities,
        protocol=protocol,
        examples=examples,  # its paths get private copies in the sandbox
    )
    return await audit(
        _request(
            spec,
            fuzz=fuzz,
            fuzz_writes=fuzz_writes,
            fuzz_destructive=fuzz_destructive,
            deep=deep,
            seed=seed,
            max_tools=max_tools,
            tools=tools,
            skip_tools=skip_tools,
            concurrency=concurrency,
            overall_timeout=overall_timeout,
            surface=surface,
            examples=examples,
        ),
        progress=progress,
    )


async def audit_url(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    bearer: str | None = None,
    transport: Transport = "http",
    fuzz: bool = False,
    fuzz_writes: bool = False,
    fuzz_destructive: bool = False,
    deep: bool = False,
    seed: int | None = None,
    max_tools: int = 50,
    tools: Sequence[str] | None = None,
    skip_tools: Sequence[str] = (),
    timeout: float = 30.0,
    connect_timeout: float = 30.0,
    concurrency: int | None = None,
    overall_timeout: float | None = None,
    progress: ProgressCallback | None = None,
    surface: bool = True,
    client_capabilities: Sequence[str] | None = None,
    protocol: ProtocolChoice = "auto",
    examples: Mapping[str, Any] | None = None,
) -> ConformanceReport:
    """Audit an MCP server over HTTP: Streamable HTTP, falling back to legacy SSE
    (``transport="sse"`` goes straight to SSE; any transport of ``core.target_spec.TRANSPORTS``
    that needs a ``url`` is taken, ``"stdio"`` is a ``UsageError``). ``headers`` and ``bearer``
    are sent with every request and never appear in the report. Other arguments as for
    ``audit_stdio``."""
    from mcprobe.core.target_spec import target_spec

    spec = target_spec(
        transport=transport,
        url=url,
        headers=dict(headers or {}),
        bearer=bearer,
        connect_timeout=connect_timeout,
        call_timeout=timeout,
        client_capabilities=client_capabilities,
        protocol=protocol,
    )
    return await audit(
        _request(
            spec,
            fuzz=fuzz,
            fuzz_writes=fuzz_writes,
            fuzz_destructive=fuzz_destructive,
            deep=deep,
            seed=seed,
            max_tools=max_tools,
            tools=tools,
            skip_tools=skip_tools,
            concurrency=concurrency,
            overall_timeout=overall_timeout,
            surface=surface,
            examples=examples,
        ),
        progress=progress,
    )


def _request(
    spec: TargetSpec, *, tools: Sequence[str] | None, concurrency: int | None, **knobs: Any
) -> AuditRequest:
    from mcprobe.engine.request import AuditRequest

    more: dict[str, Any] = {} if concurrency is None else {"concurrency": concurrency}
    include = tuple(tools) if tools is not None else None
    return AuditRequest(spec, include=include, words="library", **more, **knobs)


def _blocking(function: Callable[_P, Awaitable[_T]]) -> Callable[_P, _T]:
    @functools.wraps(function)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        import anyio

        async def call() -> _T:
            return await function(*args, **kwargs)

        return anyio.run(call)

    return run


audit_stdio_sync = _blocking(audit_stdio)
"""``audit_stdio`` for code that is not already inside an event loop."""
audit_url_sync = _blocking(audit_url)
"""``audit_url`` for code that is not already inside an event loop."""


def render_report(
    report: ConformanceReport, format: ReportFormat = "md", *, sarif_artifact: str | None = None
) -> str:
    """The report as Markdown (``md``), JSON, SARIF 2.1.0, JUnit XML or a self-contained HTML page.

    ``sarif_artifact`` (SARIF only) is the file every result points at; GitHub code scanning
    needs one (see ``mcprobe.report.render.sarif``)."""
    from mcprobe.report.formats import render

    return render(report, format, sarif_artifact=sarif_artifact)
