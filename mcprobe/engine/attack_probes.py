"""Send the attack probes of ``core/security/probes.py`` (SPEC §5.2) and collect their answers.

Only with consent to call every tool: the target runs isolated (the sandbox contains whatever
a probe makes it do), or ``--fuzz-destructive``. The probes are harmless (a shell computes a
sum, a planted file is read, mcprobe's own listener is fetched) but they do make a vulnerable
server run a shell and read or fetch what it is told.

The I/O here: the planted file (a fresh directory of mcprobe's, outside every path the target
was started with, removed afterwards; for an isolated target under ``/var/tmp``, which the
sandbox shows read-only, as its ``/tmp`` is private), the loopback listener (127.0.0.1 only,
port 0, answers every request with a fixed page and records its path; closed afterwards; for an
isolated target on the loopback of the sandbox's own network namespace,
``client/transports/netns.py``, since the host's is out of its reach) and the calls
themselves, each within the per-call timeout and the audit's deadline. A call that fails, times
out or kills the target proves nothing and is left alone (the fuzz run reports deaths).
"""

from __future__ import annotations

import json
import secrets
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import anyio
from anyio.abc import Listener, SocketListener, SocketStream

from mcprobe.client.transports.netns import listener_in
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.knobs import FUZZ_DESTRUCTIVE, FrontEnd
from mcprobe.core.model import JSON, Finding, FuzzRun, Outcome, RawCall, RawKind
from mcprobe.core.security.probes import Probe, ProbeSetup, judge_probes, plan_probes
from mcprobe.core.security.results import answer_findings, code_runners, exposed_values
from mcprobe.core.security.template_probes import (
    TemplateProbe,
    judge_template_probes,
    plan_template_probes,
)
from mcprobe.core.target_protocol import RequestTarget, Target
from mcprobe.engine.security_watch import WatchedTarget, answers, probe_key
from mcprobe.engine.timeline import LOGGER

__all__ = ["ProbeRun", "answer_security", "probe_note", "run_attack_probes"]

_MAX_PROBES = 400  # per audit: a server with many tools is probed in listing order up to this
_MAX_REQUEST = 8192
_PROBE_TIMEOUT = 5.0  # seconds per probe at most: a probe that takes longer proves nothing
_MIN_BUDGET = 2.0  # seconds the probes may take at least; else half the fuzz run's time
_SLOW_MS = 2000.0  # a tool whose calls took longer than this is not probed (they would only wait)
_UNPROBED = (Outcome.TIMEOUT, Outcome.PROTOCOL_CRASH, Outcome.NOT_RUN)


@dataclass(frozen=True)
class ProbeRun:
    findings: tuple[Finding, ...]
    probes: tuple[Probe, ...]
    sent: int
    notes: tuple[str, ...] = field(default=())
    template_probes: tuple[TemplateProbe, ...] = field(default=())
    templates_sent: int = 0


def _outside(path: Path, avoid: Sequence[str]) -> bool:
    """``path`` is inside none of the absolute paths in ``avoid``."""
    resolved = path.resolve()
    for entry in avoid:
        if entry.startswith("/") and (Path(entry).resolve() in (resolved, *resolved.parents)):
            return False
    return True


_VISIBLE_IN_SANDBOX = ("/var/tmp",)
"""Where a file mcprobe plants is seen by an isolated target: the host filesystem is bound
read-only, but ``/tmp`` and ``/dev`` are the sandbox's own (core/isolation.py)."""


def _plant(avoid: Sequence[str], content: str, *, isolated: bool = False) -> Path | None:
    """A fresh directory with the canary file, outside every absolute path in ``avoid`` (the
    target's arguments and working directory), or None when no such place is found."""
    bases = _VISIBLE_IN_SANDBOX if isolated else (tempfile.gettempdir(), "/var/tmp", "/dev/shm")
    for base in bases:
        if not Path(base).is_dir() or not _outside(Path(base) / "x", avoid):
            continue
        directory = Path(tempfile.mkdtemp(prefix="mcprobe-probe-", dir=base))
        (directory / "mcprobe-canary.txt").write_text(content + "\n", encoding="utf-8")
        return directory
    return None


@asynccontextmanager
async def _listener(paths: list[str], sock: socket.socket | None = None) -> AsyncIterator[str]:
    """A loopback HTTP listener (127.0.0.1, a free port) recording the path of every request;
    on ``sock`` when given (a socket bound in the sandbox's network namespace)."""
    listener: Listener[SocketStream]
    if sock is not None:
        listener = await SocketListener.from_socket(sock)
    else:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)

    async def serve(stream: SocketStream) -> None:
        async with stream:
            data = b""
            with anyio.move_on_after(5):
                while b"\r\n" not in data and len(data) < _MAX_REQUEST:
                    data += await stream.receive(1024)
            parts = data.split(b"\r\n", 1)[0].split(b" ")
            if len(parts) >= 2:
                paths.append(parts[1].decode("latin-1"))
            body = b"mcprobe loopback listener"
            head = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
            with anyio.move_on_after(5):
                await stream.send(head + str(len(body)).encode() + b"\r\n\r\n" + body)

    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(listener.serve, serve)
            try:
                yield f"http://127.0.0.1:{port}"
            finally:
                group.cancel_scope.cancel()
    finally:
        await listener.aclose()


def _valid_arguments(fuzz: FuzzRun) -> dict[str, Any]:
    """Per tool, the arguments of its first valid case (a refused valid call is still the best
    base: the probes change one string of it). A tool that timed out, crashed the target, was
    not run or answered slowly during fuzzing is not probed: its probes would only wait."""
    valid: dict[str, Any] = {}
    slow = {r.tool for r in fuzz.results if r.outcome in _UNPROBED or r.latency_ms > _SLOW_MS}
    for result in fuzz.results:
        if result.tool in slow or result.kind is not CaseKind.VALID:
            continue
        if isinstance(result.arguments, Mapping):
            valid.setdefault(result.tool, result.arguments)
    return valid


def _answer_text(raw: RawCall) -> str:
    parts = []
    if raw.result is not None:
        parts.append(json.dumps(raw.result, ensure_ascii=False, default=str))
    if raw.error_message:
        parts.append(raw.error_message)
    if raw.error_data is not None:
        parts.append(json.dumps(raw.error_data, ensure_ascii=False, default=str))
    return "\n".join(parts)


def _setup(nonce: str, directory: Path | None, content: str, url: str | None) -> ProbeSetup:
    return ProbeSetup(
        nonce=nonce,
        addends=(10_000 + secrets.randbelow(40_000), 10_000 + secrets.randbelow(40_000)),
        canary_file=str(directory / "mcprobe-canary.txt") if directory else None,
        canary_content=content,
        listener=url,
    )


async def _send(
    target: Target,
    probes: Sequence[Probe],
    call_timeout: float | None,
    deadline: float | None,
    width: int = 1,
) -> tuple[dict[tuple[str, str], str], list[str]]:
    """Send ``probes``, ``width`` at a time (the audit's concurrency: probing a slow server one
    call after another would multiply its audit), until the budget ends or the target dies."""
    answers: dict[tuple[str, str], str] = {}
    notes: list[str] = []
    timeout = min(call_timeout or _PROBE_TIMEOUT, _PROBE_TIMEOUT)
    given_up: set[str] = set()
    pending = iter(probes)
    spent: list[float] = []  # each answered probe's latency (ms), for the -vv timeline

    def stop(note: str) -> None:
        if note not in notes:
            notes.append(note)

    async def worker() -> None:
        for probe in pending:  # one iterator shared by the workers: each probe is sent once
            if notes:
                return
            if deadline is not None and anyio.current_time() >= deadline:
                return stop(_BUDGET_NOTE)
            if not target.alive:
                return stop("Attack probes: the target died; the remaining probes were not sent.")
            if probe.tool in given_up:
                continue
            raw = None
            with anyio.move_on_after(_remaining(deadline)):  # the budget cuts a call in flight
                raw = await target.call_tool(probe.tool, probe.arguments, timeout=timeout)
            if raw is None:
                return stop(_BUDGET_NOTE)
            if raw.kind is RawKind.TIMEOUT:
                given_up.add(probe.tool)  # one probe that waits is enough for this tool
            answers[(probe.tool, probe.label)] = _answer_text(raw)
            spent.append(raw.latency_ms)

    async with anyio.create_task_group() as group:
        for _ in range(max(1, min(width, len(probes)))):
            group.start_soon(worker)
    # mcprobe's own words, no target text: the calls the physical limit of an audit must count
    # (scripts/bench_audit.py reads this line).
    LOGGER.info("attack probes: %d call(s), %.2f s of call time", len(spent), sum(spent) / 1000)
    return answers, notes


_BUDGET_NOTE = "Attack probes: their time budget ran out; the rest were not sent."


async def run_attack_probes(
    target: Target,
    tools: Sequence[JSON],
    fuzz: FuzzRun,
    *,
    avoid: Sequence[str] = (),
    call_timeout: float | None = None,
    deadline: float | None = None,
    isolated: bool = False,
    pid: int | None = None,
    width: int = 1,
) -> ProbeRun:
    """Plan, send and judge the probes for every tool that had a clean valid call.
    ``isolated``: the target (process ``pid``) runs in the sandbox, so the planted file goes
    where it can see it and the listener into its network namespace."""
    valid = _valid_arguments(fuzz)
    by_name = {t.get("name"): t for t in tools if isinstance(t, Mapping)}
    content = f"mcprobe-file-canary-{secrets.token_hex(8)}"
    directory = _plant(avoid, content, isolated=isolated)
    notes: list[str] = []
    if directory is None:
        where = " that the sandbox shows (/var/tmp)" if isolated else ""
        notes.append(
            f"Attack probes: no place{where} outside the target's paths for the planted file; "
            "no traversal probe was sent."
        )
    sock: socket.socket | None = None
    if isolated:
        made = listener_in(pid)
        if isinstance(made, str):
            notes.append(
                f"Attack probes: no SSRF probe was sent: the isolated target has a network of "
                f"its own and mcprobe could not listen in it ({made})."
            )
        else:
            sock = made
    paths: list[str] = []
    try:
        async with _listener(paths, sock) as url:
            reachable = url if sock is not None or not isolated else None
            setup = _setup(secrets.token_hex(4), directory, content, reachable)
            probes = [
                probe
                for name, arguments in valid.items()
                if name in by_name
                for probe in plan_probes(by_name[name], arguments, setup)
            ][:_MAX_PROBES]
            answers, stopped = await _send(target, probes, call_timeout, deadline, width)
            if any(p.kind == "ssrf" for p in probes):
                await anyio.sleep(0.2)  # a fetch answered after its call returned is still a hit
            templated, read = await _template_probes(target, setup, call_timeout, deadline)
    finally:
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
    notes += stopped
    found = [*judge_probes(probes, answers, paths), *judge_template_probes(templated, read)]
    return ProbeRun(
        tuple(found), tuple(probes), len(answers), tuple(notes), tuple(templated), len(read)
    )


async def _template_probes(
    target: Target, setup: ProbeSetup, call_timeout: float | None, deadline: float | None
) -> tuple[list[TemplateProbe], dict[str, str]]:
    """List the resource templates (when the server declares resources) and read each probe's
    URI, one after another, until the budget ends or the target dies; URI → answer text."""
    caps = target.snapshot.capabilities
    if setup.canary_file is None or not isinstance(target, RequestTarget):
        return [], {}
    if not isinstance(caps, Mapping) or "resources" not in caps:
        return [], {}
    timeout = min(call_timeout or _PROBE_TIMEOUT, _PROBE_TIMEOUT)
    templates: list[JSON] | None = None
    with anyio.move_on_after(_remaining(deadline)):
        templates, _ = await target.list_all("resources/templates/list", "resourceTemplates")
    probes = plan_template_probes(templates or [], setup.canary_file, setup.canary_content)
    read: dict[str, str] = {}
    for probe in probes:
        if not target.alive or _remaining(deadline) <= 0:
            break
        raw = None
        with anyio.move_on_after(_remaining(deadline)):
            raw = await target.request("resources/read", {"uri": probe.uri}, timeout=timeout)
        if raw is None:
            break
        read[probe.uri] = _answer_text(raw)
    return probes, read


def _remaining(deadline: float | None) -> float:
    return float("inf") if deadline is None else max(0.0, deadline - anyio.current_time())


def _budget(deadline: float | None, fuzz_seconds: float) -> float:
    """The probes' own deadline: half the fuzz run's time (at least ``_MIN_BUDGET``), never past
    the audit's deadline — probing must not multiply an audit's duration."""
    own = anyio.current_time() + max(_MIN_BUDGET, fuzz_seconds / 2)
    return own if deadline is None else min(deadline, own)


def probe_note(run: ProbeRun, *, isolated: bool = False, words: FrontEnd = "cli") -> str:
    """The report note naming what was probed (the findings carry each proving probe) and the
    consent that allowed it."""
    kinds: dict[str, int] = {}
    for probe in run.probes:
        kinds[probe.kind] = kinds.get(probe.kind, 0) + 1
    listed = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    tools = sorted({p.tool for p in run.probes})
    consent = "isolated" if isolated else FUZZ_DESTRUCTIVE.set(words)
    templates = len({p.template for p in run.template_probes})
    read = (
        f"; {run.templates_sent} of {len(run.template_probes)} `resources/read` traversal "
        f"probe(s) to {templates} resource template(s)"
        if run.template_probes
        else ""
    )
    return (
        f"Attack probes ({consent}): {run.sent} of {len(run.probes)} sent ({listed}) "
        f"to {len(tools)} tool(s){read}; each probe's label and arguments"
        + (" (or URI)" if read else "")
        + " are in the findings it proved"
        " (security.command_injection, path_traversal, any_file_read, ssrf)."
    )


async def answer_security(
    watch: WatchedTarget,
    tools: Sequence[JSON],
    fuzz: FuzzRun | None,
    *,
    probe: bool,
    avoid: Sequence[str] = (),
    call_timeout: float | None = None,
    deadline: float | None = None,
    fuzz_seconds: float = 0.0,
    known: Sequence[str] = (),
    isolated: bool = False,
    pid: int | None = None,
    concurrency: int = 1,
    words: FrontEnd = "cli",
) -> tuple[list[Finding], list[str], list[str]]:
    """The security findings of what the tools answered: the attack probes first (when
    ``probe``: consent to call every tool), then the result scan over every watched answer, the
    probes' included (``core/security/results.py``). Returns the findings, the report notes and
    the credential values seen in answers (for the report's redaction)."""
    if fuzz is None:
        return [], [], []
    found: list[Finding] = []
    notes: list[str] = []
    labels: dict[tuple[str, str], str] = {}
    if probe:
        run = await run_attack_probes(
            cast(Target, watch),
            tools,
            fuzz,
            avoid=avoid,
            call_timeout=call_timeout,
            deadline=_budget(deadline, fuzz_seconds),
            isolated=isolated,
            pid=pid,
            width=concurrency,
        )
        found += run.findings
        shown = probe_note(run, isolated=isolated, words=words)
        sent_any = run.probes or run.template_probes
        notes += [*run.notes, shown] if sent_any else list(run.notes)
        labels = {probe_key(p.tool, p.arguments): p.label for p in run.probes}
    listed = {t.get("name") for t in tools if isinstance(t, Mapping)}
    scanned = [a for a in answers(watch, fuzz.results, labels) if a.tool in listed]
    found += answer_findings(scanned, code_runners(tools), known)
    return found, notes, exposed_values(scanned)
