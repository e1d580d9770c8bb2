"""One audit, end to end: lint → fuzz → score → report → Markdown.

``run_audit`` works on an already open ``Target`` (the MCP server's registry holds those);
``audit_spec`` opens the target itself and is what the CLI and the library call. Both produce
the same ``ConformanceReport``, so every front-end shows the same numbers.

Secrets: the report is built from secret-free parts (``describe_target``, scrubbed target
findings), then scrubbed field by field (``report/redact.py``: the target's strings, never
mcprobe's vocabulary) before the Markdown is rendered from it; every other renderer reads the
same scrubbed report.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import anyio

from mcprobe.client.canary import with_canary
from mcprobe.client.connection import open_target
from mcprobe.client.transports.stdio import AFTER_REPORT_GRACE
from mcprobe.core.cases.discovery import discover_values
from mcprobe.core.cases.selection import DEFAULT_MAX_TOOLS
from mcprobe.core.cases.user_examples import checked_examples
from mcprobe.core.checks.catalogue import CheckResult, SurfaceRun
from mcprobe.core.knobs import FrontEnd
from mcprobe.core.lint.engine import lint_server
from mcprobe.core.lint.suppress import RuleOverride, apply_overrides
from mcprobe.core.lint.surface_security import surface_security_findings
from mcprobe.core.model import Finding, FuzzRun
from mcprobe.core.score.dimensions import score_server
from mcprobe.core.score.surface import apply_surface
from mcprobe.core.security.proofs import canary_findings, echo_findings, sighting_findings
from mcprobe.core.security.results import credential_findings, exposed_values
from mcprobe.core.target_protocol import (
    IsolatedTarget,
    RequestTarget,
    Target,
    WireWatchedTarget,
)
from mcprobe.core.target_spec import TargetSpec
from mcprobe.core.version import __version__
from mcprobe.engine.attack_probes import answer_security
from mcprobe.engine.fuzz_runner import DEFAULT_CONCURRENCY, ProgressCallback, run_fuzz
from mcprobe.engine.offload import computed
from mcprobe.engine.progress_probes import progress_checks, traces_so_far
from mcprobe.engine.protocol_probes import run_surface_probes, second_connection_checks
from mcprobe.engine.security_watch import WatchedTarget, observations, relisting_findings
from mcprobe.engine.timeline import LOGGER, phase
from mcprobe.report.build import build_report
from mcprobe.report.deaths import death_notes
from mcprobe.report.model import (
    ConformanceReport,
    TargetOut,
    describe_isolation,
    describe_target,
)
from mcprobe.report.pinning import Lock, drift_against
from mcprobe.report.redact import Redactor
from mcprobe.report.render.markdown import render_markdown
from mcprobe.report.surface import surface_out

if TYPE_CHECKING:
    import subprocess

__all__ = ["AuditOptions", "audit_spec", "run_audit"]


@dataclass(frozen=True)
class AuditOptions:
    """Knobs of one audit.

    ``fuzz_writes`` consents to calling tools that declare ``destructiveHint: false`` (additive
    writes), ``fuzz_destructive`` to calling every tool (it implies writes; see
    ``core.selection``); ``include`` narrows the fuzzed tools to these names;
    ``call_timeout`` is the per-call limit (None: the spec's, 30 s by default);
    ``overall_timeout`` bounds the whole audit, connect
    included when ``audit_spec`` connects (None: unbounded apart from the per-call limits).
    """

    max_tools: int = DEFAULT_MAX_TOOLS
    fuzz_writes: bool = False
    fuzz_destructive: bool = False
    include: tuple[str, ...] | None = None
    skip_tools: tuple[str, ...] = ()  # never called, isolated or not (--skip-tools)
    concurrency: int = DEFAULT_CONCURRENCY
    call_timeout: float | None = None
    overall_timeout: float | None = None
    overrides: tuple[RuleOverride, ...] = ()  # the config file's per-rule ignore/severity
    close_grace: float = AFTER_REPORT_GRACE  # stdio: exit-on-EOF time once the report is done
    surface: bool = True  # the resource, prompt and protocol checks (read-only by the spec)
    lock: Lock | None = None  # `mcprobe pin` output: the report's drift section compares with it
    # tool name → the user's argument objects (the valid control, provenance ``user``); checked
    # against the listed schemas before any call (``core/cases/user_examples.py``)
    examples: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    words: FrontEnd = "cli"  # whose vocabulary the advice uses: CLI flags, tool inputs, keywords

    def deadline(self) -> float | None:
        """The absolute ``anyio.current_time()`` deadline for an audit starting now."""
        if self.overall_timeout is None:
            return None
        return anyio.current_time() + self.overall_timeout


def _with_isolation(target_out: TargetOut | None, target: Target) -> TargetOut | None:
    """The report's target with how it ran (sandboxed or not), when the target knows."""
    if target_out is None or not isinstance(target, IsolatedTarget):
        return target_out
    return target_out.model_copy(update={"isolation": describe_isolation(target.isolation)})


async def run_audit(
    target: Target,
    *,
    fuzz: bool,
    options: AuditOptions | None = None,
    connection_id: str | None = None,
    target_out: TargetOut | None = None,
    secrets: Sequence[str] = (),
    progress: ProgressCallback | None = None,
    deadline: float | None = None,
    canary: tuple[str, str] | None = None,
    echo_secrets: Sequence[tuple[str, str]] = (),
    second_connection: Callable[[str], Awaitable[tuple[list[CheckResult], list[str]]]]
    | None = None,
    avoid_paths: Sequence[str] = (),
) -> ConformanceReport:
    """Audit an open target. ``deadline`` (absolute) overrides ``options.overall_timeout``;
    ``secrets`` are scrubbed from the report (``report/redact.py``). ``canary`` (name, value) is the
    variable planted in the target's environment; ``echo_secrets`` the (kind, value) credentials
    mcprobe sent: both are looked for in every answer (``core/security/proofs.py``).
    ``second_connection`` makes the checks that need a fresh connection to the same target
    (version negotiation, the other era), given the era of ``target``; it returns those checks
    and the eras the target speaks. ``avoid_paths``: where the target's own files are (its
    arguments and working directory); the attack probes plant their file outside them."""
    options = options or AuditOptions()
    target_out = _with_isolation(target_out, target)
    if deadline is None:
        deadline = options.deadline()
    if progress is not None and secrets:
        progress = _scrubbed_progress(progress, Redactor.of(secrets))
    snapshot = target.snapshot
    fuzz_run: FuzzRun | None = None
    watch = WatchedTarget(target)
    traced = traces_so_far(target)  # calls of earlier audits on this connection are not judged
    examples = checked_examples(snapshot.tools, options.examples) if options.examples else {}
    fuzz_started = anyio.current_time()
    isolated = isinstance(target, IsolatedTarget) and target.isolation.isolated
    if fuzz:
        async with phase("fuzz calls"):
            fuzz_run = await run_fuzz(
                cast(Target, watch),
                snapshot.tools,
                max_tools=options.max_tools,
                fuzz_writes=options.fuzz_writes,
                fuzz_destructive=options.fuzz_destructive,
                include=options.include,
                isolated=isolated,
                skip=options.skip_tools,
                concurrency=options.concurrency,
                call_timeout=options.call_timeout,
                deadline=deadline,
                progress=progress,
                examples=examples,
                discovered=discover_values(target_out.args) if target_out is not None else None,
                words=options.words,
            )
    era = target.era if isinstance(target, RequestTarget) else "handshake"
    second: list[tuple[list[CheckResult], list[str]]] = []
    async with anyio.create_task_group() as alongside:
        # The checks on fresh connections (other processes) start with the attack probes: the
        # probes' latencies are scored nowhere, so a process booting beside them distorts
        # nothing, and the audit waits for the slower of the two instead of their sum.
        if options.surface and isinstance(target, RequestTarget) and second_connection:
            alongside.start_soon(_second, second_connection, era, second)
        # The attack probes (with consent to call every tool) and the scan of every answer.
        async with phase("attack probes and the answer scan"):
            answered, probe_notes, leaked = await answer_security(
                watch,
                snapshot.tools,
                fuzz_run,
                probe=options.fuzz_destructive or isolated,  # consent follows isolation
                avoid=avoid_paths,
                isolated=isolated,
                pid=target.pid if isinstance(target, IsolatedTarget) else None,
                concurrency=options.concurrency,
                call_timeout=options.call_timeout,
                deadline=deadline,
                fuzz_seconds=anyio.current_time() - fuzz_started,
                known=[value for _, value in echo_secrets],
                words=options.words,
            )
        surface = await _checks_after_fuzz(target, fuzz_run, options, era, traced)
    eras = [era]
    if second and surface is not None:
        extra, eras = second[0]
        surface = dataclasses.replace(surface, checks=(*surface.checks, *extra))
    # Session findings are read after fuzzing: a target may misbehave on the wire mid-run.
    # The long pure steps run off the event loop (``offload``): a signal never waits for them.
    linted = await computed(partial(lint_server, snapshot))
    findings = _dedupe([*linted, *target.session_findings()])
    seen = observations(watch, fuzz_run.results if fuzz_run is not None else ())
    findings += [*canary_findings(seen, canary), *echo_findings(seen, echo_secrets)]
    findings += [*answered, *_beyond_tools(target, surface, canary)]
    async with phase("relisting (tools/list again, for rug pulls)"):
        findings += await relisting_findings(target, fuzzed=fuzz_run is not None)
    # Overrides apply before scoring, so the score and every rendering agree; each one is noted.
    findings, notes = apply_overrides(findings, options.overrides)
    # Resource and prompt lint is reported, not scored by Schema Quality (a rate over tools);
    # the surface checks fold into the score through apply_surface.
    surface_findings, surface_notes = apply_overrides(
        list(surface.findings) if surface is not None else [], options.overrides
    )
    notes = [*notes, *surface_notes, *probe_notes]
    score = await computed(partial(score_server, snapshot, findings, fuzz_run, words=options.words))
    if surface is not None:
        score = apply_surface(
            score, surface.checks, tools=snapshot.tools, fuzz=fuzz_run, words=options.words
        )
        findings = _dedupe([*findings, *surface_findings])
    if isinstance(target, RequestTarget):
        for method, count in sorted(target.served_requests().items()):
            notes.append(
                f"The target sent {count} {method} request(s); mcprobe answered them as its "
                "declared client capabilities say (roots: an empty list, elicitation: declined, "
                "sampling: an error), so a tool result that depends on them reflects that answer."
            )
    if fuzz_run is not None:
        notes.extend(death_notes(fuzz_run))
    if canary is not None:
        notes.append(
            f"Canary: `{canary[0]}={canary[1]}` was added to the target's environment (not a "
            "secret); security.canary_leak reports any answer that contains it."
        )
    elif target_out is not None and target_out.transport in _REMOTE:
        notes.append(_NO_CANARY_OVER_HTTP + _STDIO_AUDIT[options.words])
    report = await computed(
        partial(
            build_report,
            snapshot,
            findings,
            score,
            fuzz_run,
            mcprobe_version=__version__,
            connection_id=connection_id,
            target=target_out,
            notes=notes,
            words=options.words,
        )
    )
    if surface is not None:
        report = report.model_copy(update={"surface": surface_out(surface)})
    server = report.server.model_copy(update={"era": era, "eras": eras})
    report = report.model_copy(update={"server": server})
    if era == "modern" and report.target is not None:
        # 2026-07-28 requests declare no client capabilities (see target.connection._discover).
        target_out = report.target.model_copy(update={"client_capabilities": []})
        report = report.model_copy(update={"target": target_out})
    if options.lock is not None:
        drift = drift_against(options.lock, snapshot, Redactor.of(secrets))
        report = report.model_copy(update={"drift": drift})
    # Credentials the target handed out are reported masked, never republished anywhere.
    contents = [t for t in surface.texts if t.kind == "content"] if surface is not None else []
    scrubbed = (*secrets, *leaked, *exposed_values((), contents))
    return await computed(partial(_scrubbed_and_rendered, report, scrubbed))


def _scrubbed_and_rendered(
    report: ConformanceReport, secrets: tuple[str, ...]
) -> ConformanceReport:
    report = scrub_report(report, secrets)
    return report.model_copy(update={"markdown": render_markdown(report)})


_REMOTE = ("http", "sse")  # core.target_spec.Transport: every one but stdio
_NO_CANARY_OVER_HTTP = (
    "Environment exposure was not provable here: mcprobe plants its canary variable only in a "
    "process it starts, and this server was already running behind a URL, so a tool that hands "
    "out its environment (security.canary_leak) cannot be caught over HTTP. To prove it, audit "
    "the server's stdio command: "
)
_STDIO_AUDIT: dict[FrontEnd, str] = {
    "cli": "`mcprobe audit --fuzz -- <command>`.",
    "tool": "probe_audit with `command` and `fuzz: true`.",
    "library": "`mcprobe.audit_stdio(command, args, fuzz=True)`.",
}


async def _checks_after_fuzz(
    target: Target,
    fuzz_run: FuzzRun | None,
    options: AuditOptions,
    era: str,
    traced: int,
) -> SurfaceRun | None:
    """The resource/prompt/protocol checks and the cancellation probe on the audited
    connection, after the fuzz calls and the attack probes (the fresh-connection checks run
    beside them: ``run_audit``)."""
    # After the fuzz calls, whose latencies are scored: a fresh process booting beside them
    # would slow them down, mcprobe's doing, not the server's (SPEC §5.1). The surface checks
    # come after fuzzing, so a resource read that kills the target cannot cost the tools their
    # cases.
    if not (options.surface and isinstance(target, RequestTarget)):
        return None
    surface, observed = await _surface_and_cancellation(target, fuzz_run, options, era, traced)
    return dataclasses.replace(surface, checks=(*surface.checks, *observed))


async def _second(
    second_connection: Callable[[str], Awaitable[tuple[list[CheckResult], list[str]]]],
    era: str,
    into: list[tuple[list[CheckResult], list[str]]],
) -> None:
    async with phase("checks on fresh connections (version negotiation, other era, HTTP)"):
        into.append(await second_connection(era))


async def _surface_and_cancellation(
    target: RequestTarget,
    fuzz_run: FuzzRun | None,
    options: AuditOptions,
    era: str,
    traced: int,
) -> tuple[SurfaceRun, list[CheckResult]]:
    """The resource, prompt and protocol checks, and progress as the fuzz run saw it with one
    cancelled call (only with consent to call), concurrently."""
    found: list[SurfaceRun] = []
    observed: list[CheckResult] = []

    async def surface() -> None:
        async with phase("resource, prompt and protocol checks"):
            found.append(await run_surface_probes(target, timeout=options.call_timeout, era=era))

    async def cancellation() -> None:
        async with phase("progress checks and the cancellation probe"):
            observed.extend(await progress_checks(target, fuzz_run, since=traced))

    async with anyio.create_task_group() as tg:
        tg.start_soon(surface)
        tg.start_soon(cancellation)
    return found[0], observed


def _beyond_tools(
    target: Target, surface: SurfaceRun | None, canary: tuple[str, str] | None
) -> list[Finding]:
    """The security findings outside tool answers and definitions, scored with the tools' own
    (the F cap included): the canary wherever the transport saw it (logs, resources, prompts,
    every other answer) and the text rules over resources and prompts."""
    found: list[Finding] = []
    if isinstance(target, WireWatchedTarget):
        found += sighting_findings(target.canary_sightings(), canary)
    if surface is not None:
        found += surface_security_findings(surface.texts)
        found += credential_findings((), [t for t in surface.texts if t.kind == "content"])
    return found


async def audit_spec(
    spec: TargetSpec,
    *,
    fuzz: bool,
    options: AuditOptions | None = None,
    progress: ProgressCallback | None = None,
    started: subprocess.Popen[bytes] | None = None,
    on_report: Callable[[ConformanceReport], None] | None = None,
) -> ConformanceReport:
    """Connect to ``spec``, audit it, disconnect. Raises ``mcprobe.core.errors.ConnectFailed`` when
    the target cannot be reached or handshaken in time. ``started``: a stdio target already
    started from ``spec`` (see ``open_target``), adopted and owned from here on.

    Closing comes last: once the report is complete, ``on_report`` gets it while the target is
    still open (the CLI writes it out there, so the user has it before the shutdown), and the
    target then only gets ``options.close_grace`` to exit on stdin EOF before SIGTERM."""
    options = options or AuditOptions()
    deadline = options.deadline()
    if started is None:
        spec = with_canary(spec)  # a pre-started target got its canary from its starter
    LOGGER.info("target start 1: the audit (listing, fuzz calls, resource/prompt/protocol checks)")
    async with open_target(spec, deadline=deadline, started=started) as target:
        LOGGER.info("target start 1: connected (%s)", target.snapshot.protocol_version)
        report = await run_audit(
            target,
            fuzz=fuzz,
            options=options,
            target_out=describe_target(spec),
            secrets=spec.secret_values(),
            progress=progress,
            deadline=deadline,
            canary=spec.canary(),
            echo_secrets=spec_credentials(spec),
            avoid_paths=_target_paths(spec),
            second_connection=partial(
                second_connection_checks,
                spec,
                deadline,
                options.call_timeout,
                protocol=spec.protocol,
                wire=target.transport,
            ),
        )
        target.close_soon(options.close_grace)
        if on_report is not None:
            on_report(report)
        return report


def _target_paths(spec: TargetSpec) -> list[str]:
    """The absolute paths a stdio target was started with (its files may be there)."""
    paths = [a for a in spec.args if a.startswith("/")]
    paths.append(spec.cwd or os.getcwd())
    if spec.command and spec.command.startswith("/"):
        paths.append(spec.command)
    return paths


def _scrubbed_progress(progress: ProgressCallback, redactor: Redactor) -> ProgressCallback:
    # Progress messages name the target's tools: every front-end (terminal, MCP progress
    # notifications, the library's callback) gets them scrubbed.
    async def scrubbed(done: int, total: int, message: str) -> None:
        await progress(done, total, redactor.progress(message))

    return scrubbed


def spec_credentials(spec: TargetSpec) -> list[tuple[str, str]]:
    """The credentials mcprobe sends with ``spec`` as (kind, value): the bearer token and the
    header values (``--env`` values are configuration, often echoed honestly: not included)."""
    found = [("the bearer token", spec.bearer)] if spec.bearer else []
    found += [(f"the value of header `{name}`", value) for name, value in spec.headers.items()]
    return found


def scrub_report(report: ConformanceReport, secrets: tuple[str, ...]) -> ConformanceReport:
    """``report`` with the secrets scrubbed from the target's strings, field by field
    (``report/redact.py``); ``markdown`` is dropped when there is anything to scrub (render it
    again from the result)."""
    return Redactor.of(secrets).report(report)


def _dedupe(findings: Iterable[Finding]) -> list[Finding]:
    seen: set[Finding] = set()
    kept: list[Finding] = []
    for finding in findings:
        if finding not in seen:
            seen.add(finding)
            kept.append(finding)
    return kept
