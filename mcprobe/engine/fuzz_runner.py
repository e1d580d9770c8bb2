"""Send the core's fuzz cases to a live target and classify what comes back (SPEC §5, §5.1).

The runner is the only part of the behavioural pass that waits: it selects the tools
(``selection``), builds their cases (``cases``), sends them with bounded concurrency, classifies
each answer (``classify``) and reports one progress event per finished case. It only sees the
``Target`` protocol, so tests drive it with in-memory fakes.

Rules the report relies on:

- **Order.** Cases are sent in case order (tools in listing order, each tool's cases in
  generation order) by ``concurrency`` workers; results come back in that same order, never in
  completion order. ``concurrency=1`` is strictly sequential.
- **Target death, restart and continue.** A call that comes back ``TRANSPORT_LOST``, or a
  target whose ``alive`` turns False, is a death. No new case is sent to the corpse; the cases
  that were in flight (sent, unanswered) become *suspects*, cases that were answered keep their
  answer. Before the next call the target is started again (``RestartableTarget.restart``, the
  same spec), at most ``MAX_RESTARTS`` times per audit, and the cases not yet sent continue, so
  one fragile tool no longer hides the rest of the server. The unsent cases of the suspects'
  tools go last (after every other tool's and the probe), so a tool that dies on every input
  cannot use up the budget before the healthy tools were audited. Every death is a ``TargetDeath``
  record (the suspects, what the I/O layer saw, the end of the dead process's stderr, each
  restart attempt with its duration or its error).
- **Exact culprits, replayed before anything new.** Right after a death, before any case not
  yet sent, its suspects are replayed *alone* on a restarted target, earliest-sent first (the
  one sent earliest had run longest when the target died, the likeliest culprit), until one
  reproduces the death: that one is a ``protocolCrash``. The death is then explained, so the
  run goes on, and its other suspects are replayed at the end (after the cases and the
  unknown-tool probe), each judged by its replay. A suspect whose replay does not kill the
  target gets the outcome of its replay; a death none of whose suspects reproduces it is a
  flaky crash (``FuzzRun.flaky_crashes`` names the candidates) and blames no tool. So a
  target that dies on every call spends its restarts on replays that name a culprit (one per
  tool it killed on) instead of on fresh batches of cases that end ``notRun``, and
  ``concurrency`` changes which cases are suspects, never a verdict.
- **When it cannot go on.** With the restart budget used up, a restart that fails, or a target
  that cannot be restarted, nothing more is sent: unsent cases and unreplayed suspects become
  ``notRun`` with the reason, and ``FuzzRun.stopped`` says why. ``FuzzRun.crashed_by`` is no
  longer set: every ``protocolCrash`` is a reproduced culprit, there are no victims to tell
  apart from it, and the run goes on after a death.
- **Deadline.** ``deadline`` is an absolute ``anyio.current_time()``. Once it is reached no
  further case is sent (``notRun``, ``deadline_hit=True``); a call still in flight at the
  deadline is abandoned and reported ``notRun`` too (cut short by mcprobe, so the tool is not
  blamed with a ``timeout``).
- **Unknown-tool probe.** After the cases, one call to a tool name that provably does not exist
  (a suspect like any case if the target dies on it).
- **Protocol probes, once per server.** ``non_object_arguments`` (``[]`` as the whole
  ``arguments``) tests the server's protocol layer, which answers the same for every tool: only
  the first selected tool's such case is sent, and its result is ``FuzzRun.non_object_probe``,
  not one of ``results``.
- **Evidence.** Once every case is classified, ``evidence.judge_controls`` marks the results
  that prove nothing (a refused synthesized valid call, rejections without a working control,
  failures caused by the machine) ``inconclusive``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import anyio

from mcprobe.core.calls.classify import classify_call, classify_unknown_tool_probe
from mcprobe.core.calls.evidence import judge_controls
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.cases.selection import (
    DEFAULT_MAX_TOOLS,
    UNKNOWN_REQUESTED,
    real_values_allowed,
    select_tools,
    unknown_tool_name,
)
from mcprobe.core.knobs import FrontEnd
from mcprobe.core.model import (
    JSON,
    Case,
    CaseResult,
    Coverage,
    FuzzRun,
    Outcome,
    RawCall,
    RawKind,
    RestartAttempt,
    SkipCause,
    SkippedTool,
    TargetDeath,
)
from mcprobe.core.target_protocol import RestartableTarget, Target
from mcprobe.engine.answer_retry import retry_with_answer_values
from mcprobe.engine.listed_retry import retry_with_listed_values
from mcprobe.engine.setup_retry import retry_after_setup
from mcprobe.engine.timeline import LOGGER

__all__ = ["DEFAULT_CONCURRENCY", "MAX_RESTARTS", "ProgressCallback", "ResultHook", "run_fuzz"]

DEFAULT_CONCURRENCY = 4
MAX_RESTARTS = 3
"""Restarts of a dead target per audit (SPEC §5.1); a target that keeps dying stops the run."""

ProgressCallback = Callable[[int, int, str], Awaitable[None]]
"""``progress(done, total, message)``; message like ``"12/41 divide wrong_type:a"``."""

ResultHook = Callable[[CaseResult], None]
"""``on_result(result)``: each fuzz case's result as it is finished (classified, not yet judged
by ``judge_controls``; a replayed case is reported again, a retried one, after its setup or
with listed values, is not). Called on the worker's own task, so it must not block: it may
start a task (the cancellation probe does). What it is told is provisional: the run's result
is the ``FuzzRun``."""

_REPRODUCED = "replayed alone, it killed the target again: this case crashes the server"
_NOT_REPRODUCED = "in flight when the target died; replayed alone, it did not kill it"


@dataclass(frozen=True)
class _Item:
    """One call to make: a fuzz case of ``tool``, or the unknown-tool probe (``case`` None)."""

    name: str
    label: str
    arguments: JSON
    case: Case | None = None
    tool: JSON = None

    @property
    def key(self) -> str:
        return f"{self.name} {self.label}"

    def classify(self, raw: RawCall) -> CaseResult:
        if self.case is None:
            return classify_unknown_tool_probe(self.name, raw)
        result = classify_call(self.case, raw, self.tool)
        if raw.kind is RawKind.RESULT and raw.detail:
            # The I/O layer's word on a reply it could not keep (e.g. over the size cap).
            result = _noted(result, raw.detail)
        return result

    def not_run(self, why: str) -> CaseResult:
        return self.classify(RawCall(kind=RawKind.NOT_RUN, detail=why))


@dataclass
class _Death:
    """A death being handled: its suspects (item indices, dispatch order) and its record."""

    suspects: list[int]
    cause: str
    stderr_tail: str
    replay: bool = False
    restarts: list[RestartAttempt] = field(default_factory=list)
    reproduced: bool = False
    cleared: int = 0  # suspects whose replay did not kill the target
    pending: list[int] = field(default_factory=list)  # suspects not replayed yet (sent order)

    def __post_init__(self) -> None:
        if not self.replay:
            self.pending = list(self.suspects)

    def record(self, items: Sequence[_Item]) -> TargetDeath:
        return TargetDeath(
            cases=tuple(items[i].key for i in self.suspects),
            cause=self.cause,
            stderr_tail=self.stderr_tail,
            replay=self.replay,
            restarts=tuple(self.restarts),
        )


class _Run:
    """Mutable bookkeeping of one run (never leaves this module)."""

    def __init__(
        self,
        target: Target,
        items: list[_Item],
        *,
        cases: int,
        call_timeout: float | None,
        deadline: float | None,
        progress: ProgressCallback | None,
        on_result: ResultHook | None = None,
        slots: anyio.CapacityLimiter | None = None,
    ) -> None:
        self.target = target
        self.on_result = on_result
        self.slots = slots
        self.items = items
        self.cases = cases  # items[:cases] are fuzz cases, the rest the probe
        self.results: list[CaseResult | None] = [None] * len(items)
        self.call_timeout = call_timeout
        self.deadline = deadline
        self.progress = progress
        self.done = 0
        self.deaths: list[_Death] = []
        self.restarts = 0
        self.stopped: str | None = None
        self.withheld: str | None = None  # why the deferred cases were not sent
        self.deadline_hit = False
        self.last_answered: int | None = None
        self.dead_noted = False  # the current death already has its record
        self.normal: deque[int] = deque(range(cases))
        self.deferred: deque[int] = deque()
        self.crashers: set[str] = set()  # tools one of whose cases killed the target alone
        self.answers: dict[int, JSON] = {}  # valid calls' raw results (``answer_retry``)

    # ---------------------------------------------------------------- bookkeeping

    async def finish(self, index: int, result: CaseResult) -> None:
        self.results[index] = result
        if index >= self.cases:
            return  # the probe is not a case: no progress event
        if self.on_result is not None:
            self.on_result(result)
        self.done += 1
        if self.progress is not None:
            item = self.items[index]
            message = f"{self.done}/{self.cases} {item.name} {item.label}"
            await self.progress(self.done, self.cases, message)

    def past_deadline(self) -> bool:
        if self.deadline is not None and anyio.current_time() >= self.deadline:
            self.deadline_hit = True
        return self.deadline_hit

    def note_death(self, suspects: list[int], cause: str, *, replay: bool = False) -> None:
        self.deaths.append(_Death(suspects, cause, self.target.stderr_tail(), replay=replay))
        self.dead_noted = True

    async def ensure_alive(self) -> bool:
        """True when the target can take a call now, restarting it if it is dead and the budget
        allows; False (and ``stopped`` set) when the run cannot go on."""
        if self.stopped is not None or self.past_deadline():
            return False
        if self.target.alive:
            return True
        if not self.dead_noted:
            # Found dead between calls, with nothing in flight (it exited on its own).
            self.note_death([], _between_calls(self.items, self.last_answered))
        death = self.deaths[-1]
        if not isinstance(self.target, RestartableTarget):
            self.stopped = "the target died and this kind of target cannot be restarted"
            return False
        while self.restarts < MAX_RESTARTS:
            if self.past_deadline():
                return False
            self.restarts += 1
            LOGGER.info("target start: restart %d of %d after a death", self.restarts, MAX_RESTARTS)
            attempt = await self.target.restart()
            death.restarts.append(attempt)
            if attempt.ok and self.target.alive:
                self.dead_noted = False
                return True
        failed = death.restarts[-1].error if death.restarts else None
        if failed is not None:
            self.stopped = f"the target could not be started again ({failed})"
        else:
            self.stopped = (
                f"the target died {len(self.deaths)} times and the restart budget "
                f"({MAX_RESTARTS} per audit) is used up"
            )
        return False

    # ---------------------------------------------------------------- sending

    async def send(self, index: int) -> RawCall | None:
        """One call; None when the overall deadline cut it short (reported ``notRun``)."""
        if self.slots is None:
            return await self.sent(index)
        async with self.slots:  # shared with a call made beside the run (the cancellation probe)
            return await self.sent(index)

    async def sent(self, index: int) -> RawCall | None:
        item = self.items[index]
        if self.deadline is None:
            raw = await self.target.call_tool(item.name, item.arguments, timeout=self.call_timeout)
        else:
            raw = None
            with anyio.move_on_after(max(0.0, self.deadline - anyio.current_time())):
                raw = await self.target.call_tool(
                    item.name, item.arguments, timeout=self.call_timeout
                )
        if raw is None or (raw.kind in (RawKind.TIMEOUT, RawKind.NOT_RUN) and self.past_deadline()):
            # The audit's clock ran out, not the tool's: never blame it with a timeout.
            self.deadline_hit = True
            return None
        if raw.kind is RawKind.RESULT and item.case is not None and not item.case.malformed:
            self.answers[index] = raw.result
        return raw

    def died(self, raw: RawCall) -> bool:
        return raw.kind is RawKind.TRANSPORT_LOST or not self.target.alive

    async def wave(self, queue: deque[int], concurrency: int) -> None:
        """Send from ``queue`` with ``concurrency`` workers until it is empty or the target
        dies; then record the death (its suspects: the calls that came back unanswered)."""
        lost: list[tuple[int, int]] = []  # (dispatch sequence, index)
        cause: list[str] = []
        dead = False
        sequence = 0

        async def worker() -> None:
            nonlocal dead, sequence
            while queue and not dead and not self.past_deadline():
                if not self.target.alive:
                    dead = True
                    return
                index = queue.popleft()
                sequence += 1
                sent_as = sequence
                raw = await self.send(index)
                if raw is None:
                    await self.finish(index, self.items[index].not_run(_CUT))
                    continue
                if raw.kind is RawKind.TRANSPORT_LOST:
                    dead = True
                    lost.append((sent_as, index))
                    cause.append(raw.detail or "connection closed")
                    continue
                if not self.target.alive:
                    dead = True  # answered, then died: the answer stands
                self.last_answered = index
                await self.finish(index, self.items[index].classify(raw))

        async with anyio.create_task_group() as tg:
            for _ in range(min(concurrency, len(queue))):
                tg.start_soon(worker)
        if dead or not self.target.alive:
            suspects = [index for _, index in sorted(lost)]
            why = cause[0] if cause else _between_calls(self.items, self.last_answered)
            self.note_death(suspects, why)
            self.defer({self.items[i].name for i in suspects})

    def can_afford_deferred(self) -> bool:
        """Whether the restart budget left covers the replays still owed (one restart per death
        whose suspects wait, worst case) with the deferred cases run first; if not, they are
        not run, and every suspect still gets its replay."""
        spare = MAX_RESTARTS - self.restarts - (0 if self.target.alive else 1)
        owed = sum(1 for d in self.deaths if d.pending)
        if spare >= owed:
            return True
        self.withheld = (
            f"the restart budget ({MAX_RESTARTS} per audit) is kept for replaying the cases "
            "in flight at each death, so the other cases of their tools were not sent"
        )
        return False

    def defer(self, tools: set[str]) -> None:
        """Move the unsent cases of ``tools`` (in flight at a death) behind every other tool's,
        so a tool that keeps killing the target cannot spend the restart budget before the
        healthy tools were audited."""
        keep = [i for i in self.normal if self.items[i].name not in tools]
        moved = [i for i in self.normal if self.items[i].name in tools]
        self.normal = deque(keep)
        self.deferred.extend(moved)

    async def replay(self, *, final: bool) -> None:
        """Replay the deaths' suspects alone (earliest-sent first, but a tool already proven to
        kill the target after every other tool's suspects); judge them by the replay.
        Not ``final`` (right after a death): only until one reproduces its death; ``final``:
        every suspect still waiting."""
        for death in [d for d in self.deaths if d.pending]:
            while death.pending and (final or not death.reproduced):
                # The suspects of a tool already proven to kill the target wait behind the
                # others (stable, sent order otherwise): each may cost a restart, and the budget
                # is better spent on judging an innocent bystander than on a second proof.
                death.pending.sort(key=lambda i: self.items[i].name in self.crashers)
                index = death.pending.pop(0)
                item = self.items[index]
                if not await self.ensure_alive():
                    why = self.stopped or "the overall audit deadline was reached"
                    await self.finish(index, item.not_run(_unreplayed(why)))
                    continue
                raw = await self.send(index)
                if raw is None:
                    await self.finish(index, item.not_run(_CUT))
                    continue
                result = item.classify(raw)
                if self.died(raw):
                    death.reproduced = True
                    self.crashers.add(item.name)
                    self.note_death([index], raw.detail or "connection closed", replay=True)
                    await self.finish(index, _noted(result, _REPRODUCED))
                else:
                    death.cleared += 1
                    self.last_answered = index
                    await self.finish(index, _noted(result, _NOT_REPRODUCED))

    def flaky(self) -> tuple[tuple[str, ...], ...]:
        """Deaths whose suspects were all replayed and none reproduced it (or that happened
        with nothing in flight): the candidates of each."""
        return tuple(
            tuple(self.items[i].key for i in death.suspects)
            for death in self.deaths
            if not death.replay and not death.reproduced and death.cleared == len(death.suspects)
        )


_CUT = "not run: cut short by the overall audit deadline"


def _unreplayed(why: str) -> str:
    return f"not judged: in flight when the target died, and it could not be replayed alone ({why})"


def _between_calls(items: Sequence[_Item], last: int | None) -> str:
    after = f" (after {items[last].key} was answered)" if last is not None else ""
    return f"the target died between calls, with no call in flight{after}"


def _noted(result: CaseResult, note: str) -> CaseResult:
    return replace(result, note=f"{result.note}; {note}" if result.note else note)


async def run_fuzz(
    target: Target,
    tools: Sequence[JSON],
    *,
    max_tools: int = DEFAULT_MAX_TOOLS,
    fuzz_writes: bool = False,
    fuzz_destructive: bool = False,
    include: Sequence[str] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    call_timeout: float | None = None,
    deadline: float | None = None,
    progress: ProgressCallback | None = None,
    examples: Mapping[str, Sequence[JSON]] | None = None,
    discovered: Mapping[str, tuple[JSON, ...]] | None = None,
    isolated: bool = False,
    skip: Sequence[str] = (),
    words: FrontEnd = "cli",
    on_result: ResultHook | None = None,
    slots: anyio.CapacityLimiter | None = None,
) -> FuzzRun:
    """Fuzz the selected ``tools`` (raw definitions as listed) of ``target``.

    ``isolated``: the target runs in the sandbox, so every tool is called (``skip`` excepted);
    otherwise the consent levels choose (``core/cases/selection.py``).

    ``call_timeout`` is passed to every call (None: the target's own per-call default).
    ``examples``: tool name → the user's argument objects for it (checked by the caller).
    ``discovered``: values the server named itself (``core.cases.discovery``).
    ``words``: the front-end whose vocabulary the skip reasons and notes use (``core/knobs.py``).
    ``on_result``: told each case's result as it finishes (``ResultHook``). ``slots``: a limiter
    every call holds while in flight; give it ``concurrency`` tokens and a call made beside the
    run that holds one too (the cancellation probe) keeps the calls in flight within
    ``concurrency`` (the run's workers alone never wait on it).
    Raises ``ValueError`` for ``concurrency < 1`` or a negative ``max_tools`` (caller bugs).
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    selection = select_tools(
        tools,
        max_tools=max_tools,
        fuzz_writes=fuzz_writes,
        fuzz_destructive=fuzz_destructive,
        include=include,
        isolated=isolated,
        skip=skip,
        words=words,
    )
    given = examples or {}
    # The user's real paths feed no call of a tool that may destroy them outside the sandbox.
    tool_cases = tuple(
        generate_cases(
            tool,
            given.get(str(tool.get("name")), ()),
            discovered if real_values_allowed(tool, isolated=isolated) else None,
        )
        for tool in selection.selected
    )
    items: list[_Item] = []
    flat_index: int | None = None
    for tool, cases in zip(selection.selected, tool_cases, strict=True):
        for case in cases.cases:
            if case.kind is CaseKind.NON_OBJECT_ARGUMENTS:
                if flat_index is not None:
                    continue  # the protocol layer answers it the same for every tool
                flat_index = len(items)
            items.append(_Item(case.tool, case.label, case.arguments, case, tool))
    n_cases = len(items)
    names = [
        str(t["name"]) for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)
    ]
    items.append(_Item(unknown_tool_name(names), "unknown_tool", {}))
    run = _Run(
        target,
        items,
        cases=n_cases,
        call_timeout=call_timeout,
        deadline=deadline,
        progress=progress,
        on_result=on_result,
        slots=slots,
    )

    # The tools nobody suspects, the probe, the tools in flight at a death; after each death its
    # suspects alone until one reproduces it; the suspects still unreplayed at the end.
    probe_queue = deque([n_cases])
    while True:
        if run.normal:
            queue, width = run.normal, concurrency
        elif probe_queue:
            queue, width = probe_queue, 1
        elif run.deferred and run.can_afford_deferred():
            queue, width = run.deferred, concurrency
        else:
            break
        if not await run.ensure_alive():  # restarted only when there is something to send
            break
        await run.wave(queue, width)
        await run.replay(final=False)  # a death's suspects, before anything new is sent
    await retry_after_setup(
        [item.case for item in items],
        run.results,
        run.send,
        lambda index, raw: items[index].classify(raw),
        run.ensure_alive,
    )

    async def resend(index: int, case: Case) -> CaseResult | None:
        original = items[index]
        items[index] = replace(original, arguments=case.arguments, case=case)
        raw = await run.send(index)
        if raw is None:
            items[index] = original
            return None
        return items[index].classify(raw)

    await retry_with_listed_values(items, run.results, resend, run.ensure_alive, isolated=isolated)
    await retry_with_answer_values(
        items, run.results, run.answers, resend, run.ensure_alive, isolated=isolated
    )
    await run.replay(final=True)
    stopped = run.stopped or run.withheld
    why = f"not run: {stopped}" if stopped is not None else _DEADLINE
    for index in (*run.normal, *run.deferred):
        await run.finish(index, items[index].not_run(why))
    probe = run.results[n_cases]

    skipped = list(selection.skipped)
    skipped += [
        SkippedTool(name, UNKNOWN_REQUESTED, SkipCause.UNKNOWN_REQUESTED)
        for name in selection.unknown_included
    ]
    flat = run.results[flat_index] if flat_index is not None else None
    finished = [r for i, r in enumerate(run.results[:n_cases]) if r is not None and i != flat_index]
    return FuzzRun(
        results=judge_controls(finished, isolated=isolated, words=words),
        isolated=isolated,
        coverage=Coverage(
            total_tools=len(tools),
            fuzzed_tools=selection.selected_names,
            skipped=tuple(skipped),
            called=tuple(
                SkippedTool(name, why)
                for name, why in zip(selection.selected_names, selection.why_called, strict=True)
            ),
        ),
        tool_cases=tool_cases,
        unknown_tool_probe=probe
        if probe is not None and probe.outcome is not Outcome.NOT_RUN
        else None,
        non_object_probe=flat,
        deadline_hit=run.deadline_hit,
        deaths=tuple(d.record(items) for d in run.deaths),
        flaky_crashes=run.flaky(),
        stopped=stopped,
    )


_DEADLINE = "not run: the overall audit deadline was reached"
