"""One audit, end to end: lint → fuzz → score → report → Markdown.

``audit(request)`` is the one entry point: every front-end (the CLI, the MCP server, the
library) builds an ``AuditRequest`` (``engine/request.py``) and calls it, either to open the
target itself or on a target the caller holds open (``Opened``: the MCP server's registry).
The report is built once (``report/build.py``), then scrubbed, then rendered to Markdown, so
every front-end shows the same numbers.

Secrets: the report is built from secret-free parts (``describe_target``, scrubbed target
findings), then scrubbed field by field (``report/redact.py``: the target's strings, never
mcprobe's vocabulary) before the Markdown is rendered from it; every other renderer reads the
same scrubbed report.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, cast

import anyio
import anyio.abc

from mcprobe.client.canary import with_canary
from mcprobe.client.connection import open_target
from mcprobe.core.cases.user_examples import checked_examples
from mcprobe.core.checks.records import CheckResult, SurfaceRun
from mcprobe.core.deep.model import DEFAULT_SEED, DeepRun
from mcprobe.core.knobs import FrontEnd
from mcprobe.core.lint.engine import lint_server
from mcprobe.core.lint.suppress import apply_overrides
from mcprobe.core.lint.surface_security import surface_security_findings
from mcprobe.core.model import Finding, FuzzRun
from mcprobe.core.score.dimensions import score_server
from mcprobe.core.score.surface import apply_surface
from mcprobe.core.security.proofs import (
    canary_findings,
    echo_findings,
    server_echo_findings,
    sighting_findings,
)
from mcprobe.core.security.results import credential_findings, exposed_values
from mcprobe.core.target_protocol import (
    Era,
    IsolatedTarget,
    RequestTarget,
    Target,
    WireWatchedTarget,
)
from mcprobe.core.target_spec import TRANSPORTS_BY_NAME, TargetSpec
from mcprobe.core.version import __version__
from mcprobe.engine.attack_probes import answer_security
from mcprobe.engine.deep_runner import deep_notes, run_deep
from mcprobe.engine.fuzz_runner import ProgressCallback, run_fuzz
from mcprobe.engine.gc_budget import with_fewer_collections
from mcprobe.engine.offload import computed
from mcprobe.engine.progress_probes import CancellationProbe, progress_checks, traces_so_far
from mcprobe.engine.protocol_probes import run_surface_probes, second_connection_checks
from mcprobe.engine.request import AuditRequest
from mcprobe.engine.security_watch import WatchedTarget, observations, relisting_findings
from mcprobe.engine.start_values import start_values
from mcprobe.engine.timeline import LOGGER, phase
from mcprobe.report.build import build_report
from mcprobe.report.deaths import death_notes
from mcprobe.report.model import (
    ConformanceReport,
    TargetOut,
    describe_isolation,
    describe_target,
)
from mcprobe.report.pinning import drift_against
from mcprobe.report.redact import Redactor
from mcprobe.report.render.markdown import render_markdown
from mcprobe.report.surface import surface_out

if TYPE_CHECKING:
    import subprocess

__all__ = ["AuditRequest", "Opened", "audit"]


def _with_isolation(target_out: TargetOut, target: Target) -> TargetOut:
    """The report's target with how it ran (sandboxed or not), when the target knows."""
    if not isinstance(target, IsolatedTarget):
        return target_out
    return target_out.model_copy(update={"isolation": describe_isolation(target.isolation)})


@dataclass(frozen=True)
class Opened:
    """A target the caller already holds open (the MCP server's registry): audited as it is,
    never closed here; ``connection_id`` names it in the report."""

    target: Target
    connection_id: str | None = None


@with_fewer_collections
async def audit(
    request: AuditRequest,
    *,
    progress: ProgressCallback | None = None,
    opened: Opened | None = None,
    started: subprocess.Popen[bytes] | None = None,
    on_report: Callable[[ConformanceReport], None] | None = None,
) -> ConformanceReport:
    """The one entry point of the pipeline: audit what ``request`` says, return its report.

    Without ``opened``, connect to ``request.spec``, audit, disconnect; raises
    ``mcprobe.core.errors.ConnectFailed`` when the target cannot be reached or handshaken in
    time. ``started``: a stdio target already started from the spec (see ``open_target``),
    adopted and owned from here on. Closing comes last: once the report is complete,
    ``on_report`` gets it while the target is still open (the CLI writes it out there, so the
    user has it before the shutdown), and the target then only gets ``request.close_grace`` to
    exit on stdin EOF before SIGTERM.

    With ``opened``, audit that open target (no fresh connections: they start the target
    again) and leave it open."""
    deadline = request.deadline()
    if opened is not None:
        return await _audit_open(
            opened.target,
            request,
            connection_id=opened.connection_id,
            progress=progress,
            deadline=deadline,
        )
    spec = request.spec
    if started is None:
        spec = with_canary(spec, request.seed)  # a pre-started one got it from its starter
    LOGGER.info(
        "target start 1: the audit (listing, fuzz calls, cancellation probe, attack probes, "
        "resource/prompt/protocol checks, relisting)"
    )
    async with open_target(spec, deadline=deadline, started=started) as target:
        LOGGER.info("target start 1: connected (%s)", target.snapshot.protocol_version)
        second = (
            partial(
                second_connection_checks,
                spec,
                deadline,
                request.timeout,
                protocol=spec.protocol,
                wire=target.transport,
            )
            if request.fresh_connections
            else None
        )
        report = await _audit_open(
            target,
            dataclasses.replace(request, spec=spec),
            progress=progress,
            deadline=deadline,
            second_connection=second,
        )
        target.close_soon(request.close_grace)
        if on_report is not None:
            on_report(report)
        return report


async def _audit_open(
    target: Target,
    request: AuditRequest,
    *,
    connection_id: str | None = None,
    progress: ProgressCallback | None = None,
    deadline: float | None = None,
    second_connection: Callable[[Era], Awaitable[tuple[list[CheckResult], list[Era]]]]
    | None = None,
) -> ConformanceReport:
    """Audit an open target. ``deadline`` is absolute. From the spec: the secrets scrubbed from
    the report (``report/redact.py``), the canary (name, value) planted in the target's
    environment and the credentials mcprobe sends (both looked for in every answer:
    ``core/security/proofs.py``), and where the target's own files are (its arguments and
    working directory: the attack probes plant their file outside them), and the places its
    arguments and start environment name (the bases of the valid calls: ``start_values``).
    ``second_connection`` makes the checks that need a fresh connection to the same target
    (version negotiation, the other era), given the era of ``target``; it returns those checks
    and the eras the target speaks."""
    spec = request.spec
    secrets = spec.secret_values()
    canary = spec.canary()
    echo_secrets = spec_credentials(spec)
    target_out = _with_isolation(describe_target(spec), target)
    if progress is not None and secrets:
        progress = _scrubbed_progress(progress, Redactor.of(secrets))
    snapshot = target.snapshot
    fuzz_run: FuzzRun | None = None
    watch = WatchedTarget(target)
    traced = traces_so_far(target)  # calls of earlier audits on this connection are not judged
    examples = checked_examples(snapshot.tools, request.examples) if request.examples else {}
    fuzz_started = anyio.current_time()
    isolated = isinstance(target, IsolatedTarget) and target.isolation.isolated
    era: Era = target.era if isinstance(target, RequestTarget) else "handshake"
    second: list[tuple[list[CheckResult], list[Era]]] = []
    async with anyio.create_task_group() as alongside:
        # The cancellation probe starts beside the fuzz calls once one is slow (within their
        # concurrency: it holds one of their slots), so its wait overlaps the rest of the audit.
        early = _early_cancellation(target, request, traced, alongside)
        if request.fuzz:
            async with phase("fuzz calls"):
                fuzz_run = await run_fuzz(
                    cast(Target, watch),
                    snapshot.tools,
                    max_tools=request.max_tools,
                    fuzz_writes=request.fuzz_writes,
                    fuzz_destructive=request.fuzz_destructive,
                    include=request.include,
                    isolated=isolated,
                    skip=request.skip_tools,
                    concurrency=request.concurrency,
                    call_timeout=request.timeout,
                    deadline=deadline,
                    progress=progress,
                    examples=examples,
                    discovered=start_values(spec.args, spec.env, secrets),
                    words=request.words,
                    on_result=early.offer if early is not None else None,
                    slots=early.slots if early is not None else None,
                )
        fuzz_seconds = anyio.current_time() - fuzz_started  # the attack probes' budget is half that
        deep_run: DeepRun | None = None
        if request.deep and fuzz_run is not None:
            async with phase("deep fuzzing"):
                deep_run = await run_deep(
                    cast(Target, watch),
                    snapshot.tools,
                    fuzz_run,
                    seed=DEFAULT_SEED if request.seed is None else request.seed,
                    concurrency=request.concurrency,
                    call_timeout=request.timeout,
                    deadline=deadline,
                    progress=progress,
                    # Path-like fields of writing tools: only where their writes are contained or
                    # consented to (the sandbox's private copies, --fuzz-writes).
                    path_edges=isolated or request.fuzz_writes,
                    words=request.words,
                )
        # The checks on fresh connections (other processes) start with the attack probes: the
        # probes' latencies are scored nowhere, so a process booting beside them distorts
        # nothing, and the audit waits for the slower of the two instead of their sum.
        if request.surface and isinstance(target, RequestTarget) and second_connection:
            alongside.start_soon(_second, second_connection, era, second)
        # The attack probes (with consent to call every tool) and the scan of every answer.
        async with phase("attack probes and the answer scan"):
            answered, probe_notes, leaked = await answer_security(
                watch,
                snapshot.tools,
                fuzz_run,
                probe=request.fuzz_destructive or isolated,  # consent follows isolation
                avoid=_target_paths(spec),
                isolated=isolated,
                pid=target.pid if isinstance(target, IsolatedTarget) else None,
                concurrency=request.concurrency,
                call_timeout=request.timeout,
                deadline=deadline,
                fuzz_seconds=fuzz_seconds,
                known=[value for _, value in echo_secrets],
                words=request.words,
            )
        surface = await _checks_after_fuzz(target, fuzz_run, request, era, traced, early)
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
    findings += server_echo_findings(snapshot, echo_secrets)
    findings += [*answered, *_beyond_tools(target, surface, canary)]
    async with phase("relisting (tools/list again, for rug pulls)"):
        findings += await relisting_findings(target, fuzzed=fuzz_run is not None)
    # Overrides apply before scoring, so the score and every rendering agree; each one is noted.
    findings, notes = apply_overrides(findings, request.overrides)
    # Resource and prompt lint is reported, not scored by Schema Quality (a rate over tools);
    # the surface checks fold into the score through apply_surface.
    surface_findings, surface_notes = apply_overrides(
        list(surface.findings) if surface is not None else [], request.overrides
    )
    notes = [*notes, *surface_notes, *probe_notes]
    score = await computed(
        partial(score_server, snapshot, findings, fuzz_run, deep=deep_run, words=request.words)
    )
    if surface is not None:
        score = apply_surface(
            score, surface.checks, tools=snapshot.tools, fuzz=fuzz_run, words=request.words
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
    if deep_run is not None:
        notes.extend(deep_notes(deep_run, request.words))
    if canary is not None:
        notes.append(
            f"Canary: `{canary[0]}={canary[1]}` was added to the target's environment (not a "
            "secret); security.canary_leak reports any answer that contains it."
        )
    elif _behind_a_url(target_out.transport):
        notes.append(_NO_CANARY_OVER_HTTP + _STDIO_AUDIT[request.words])
    if era == "modern":
        # 2026-07-28 requests declare no client capabilities (see client.connection._discover).
        target_out = target_out.model_copy(update={"client_capabilities": []})
    drift = (
        drift_against(request.lock, snapshot, Redactor.of(secrets))
        if request.lock is not None
        else None
    )
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
            surface=surface_out(surface) if surface is not None else None,
            era=era,
            eras=eras,
            drift=drift,
            deep=deep_run,
            words=request.words,
        )
    )
    # Credentials the target handed out are reported masked, never republished anywhere.
    contents = [t for t in surface.texts if t.kind == "content"] if surface is not None else []
    scrubbed = (*secrets, *leaked, *exposed_values((), contents))
    return await computed(partial(_scrubbed_and_rendered, report, scrubbed))


def _scrubbed_and_rendered(
    report: ConformanceReport, secrets: tuple[str, ...]
) -> ConformanceReport:
    report = scrub_report(report, secrets)
    return report.model_copy(update={"markdown": render_markdown(report)})


def _behind_a_url(transport: str) -> bool:
    """Whether a target reached by ``transport`` was already running behind a URL (its
    ``TransportKind`` needs a ``url``; ``memory``, a server held in process, is no transport)."""
    kind = TRANSPORTS_BY_NAME.get(transport)  # type: ignore[call-overload]
    return kind is not None and kind.needs == "url"


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
    request: AuditRequest,
    era: str,
    traced: int,
    early: CancellationProbe | None = None,
) -> SurfaceRun | None:
    """The resource/prompt/protocol checks and the cancellation probe on the audited
    connection, after the fuzz calls and the attack probes (the fresh-connection checks run
    beside them: ``_audit_open``); ``early``: the cancellation probe already started beside the
    fuzz calls, whose observation counts when it is of the finished run's candidate."""
    # After the fuzz calls, whose latencies are scored: a fresh process booting beside them
    # would slow them down, mcprobe's doing, not the server's (SPEC §5.1). The surface checks
    # come after fuzzing, so a resource read that kills the target cannot cost the tools their
    # cases.
    if not (request.surface and isinstance(target, RequestTarget)):
        return None
    surface, observed = await _surface_and_cancellation(
        target, fuzz_run, request, era, traced, early
    )
    return dataclasses.replace(surface, checks=(*surface.checks, *observed))


def _early_cancellation(
    target: Target, request: AuditRequest, traced: int, task_group: anyio.abc.TaskGroup
) -> CancellationProbe | None:
    """The cancellation probe to start beside the fuzz calls, when the audit makes one (the
    surface checks on a connection that takes requests, after fuzzing)."""
    if not (request.fuzz and request.surface and isinstance(target, RequestTarget)):
        return None
    slots = anyio.CapacityLimiter(request.concurrency)
    return CancellationProbe(target, task_group, slots, since=traced)


async def _second(
    second_connection: Callable[[Era], Awaitable[tuple[list[CheckResult], list[Era]]]],
    era: Era,
    into: list[tuple[list[CheckResult], list[Era]]],
) -> None:
    async with phase("checks on fresh connections (version negotiation, other era, HTTP)"):
        into.append(await second_connection(era))


async def _surface_and_cancellation(
    target: RequestTarget,
    fuzz_run: FuzzRun | None,
    request: AuditRequest,
    era: str,
    traced: int,
    early: CancellationProbe | None = None,
) -> tuple[SurfaceRun, list[CheckResult]]:
    """The resource, prompt and protocol checks, and progress as the fuzz run saw it with one
    cancelled call (only with consent to call), concurrently."""
    found: list[SurfaceRun] = []
    observed: list[CheckResult] = []

    async def surface() -> None:
        async with phase("resource, prompt and protocol checks"):
            found.append(await run_surface_probes(target, timeout=request.timeout, era=era))

    async def cancellation() -> None:
        async with phase("progress checks and the cancellation probe"):
            observed.extend(await progress_checks(target, fuzz_run, since=traced, early=early))

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
