"""What the report says about the target's deaths during the fuzz pass (SPEC §5.1).

``fuzz_runner`` restarts a dead target (at most ``MAX_RESTARTS`` times per audit) and replays
the cases that were in flight one at a time; this module turns its ``TargetDeath`` records into
mcprobe's own sentences: how many times the target died and was restarted, on which cases, how
long each restart took, the end of each dead process's stderr, which deaths were flaky (no
replay reproduced them: candidates named, no tool blamed), and why the run stopped if it did.

Pure: no I/O. Target text (tool names, stderr) is put in single backticks, so the renderers
show it as quoted data; they escape every note.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mcprobe.core.isolation import FILE_LIMIT_DEATH
from mcprobe.core.model import FuzzRun, TargetDeath
from mcprobe.report.model import RestartOut, TargetDeathOut

__all__ = ["STDERR_QUOTE", "death_notes", "death_verdict", "deaths_out"]

STDERR_QUOTE = 300
"""Characters of a dead process's stderr tail quoted per death."""
_CASES_NAMED = 5


DeathVerdict = Literal["crash", "flakyCrash"]


def death_verdict(death: TargetDeath, flaky: Sequence[tuple[str, ...]]) -> DeathVerdict | None:
    """The catalogue key of a death (``core.verdicts``): ``crash`` when a replay alone caused
    it (its one case is the culprit), ``flakyCrash`` when no replay of its suspects reproduced
    it, else None (its suspects were judged by their replays, or could not all be replayed)."""
    if death.replay:
        return "crash"
    if death.cases in flaky:
        return "flakyCrash"
    return None


def deaths_out(fuzz: FuzzRun) -> list[TargetDeathOut]:
    """The deaths as the report carries them (JSON)."""
    return [
        TargetDeathOut(
            cases=list(death.cases),
            cause=death.cause,
            stderr_tail=death.stderr_tail,
            replay=death.replay,
            verdict=death_verdict(death, fuzz.flaky_crashes),
            restarts=[RestartOut(seconds=a.seconds, error=a.error) for a in death.restarts],
        )
        for death in fuzz.deaths
    ]


def _quoted(text: str) -> str:
    """Target text (tool names, stderr) in single backticks, the lint convention, so renderers
    show it as a quote (a backtick inside would end the quote early: it becomes ')."""
    return "`" + text.replace("`", "'") + "`"


def _cases(cases: Sequence[str]) -> str:
    named = ", ".join(_quoted(case) for case in cases[:_CASES_NAMED])
    more = len(cases) - _CASES_NAMED
    return f"{named} and {more} more" if more > 0 else named


def _stderr(tail: str) -> str:
    text = " ".join(tail.split())
    if not text:
        return ""  # an HTTP target has none; an empty one says nothing
    if len(text) > STDERR_QUOTE:
        text = "…" + text[-STDERR_QUOTE:]
    return f" Its stderr ended with: {_quoted(text)}"


def _restarts(death: TargetDeath) -> str:
    parts = []
    for attempt in death.restarts:
        if attempt.ok:
            parts.append(f"restarted in {attempt.seconds:.2f} s")
        else:
            parts.append(f"a restart failed after {attempt.seconds:.2f} s ({attempt.error})")
    return ("; " + "; ".join(parts)) if parts else "; not restarted"


def _one(number: int, death: TargetDeath, flaky: Sequence[tuple[str, ...]]) -> str:
    verdict = death_verdict(death, flaky)
    if verdict == "crash" and FILE_LIMIT_DEATH in death.cause:
        what = (
            f"replaying {_quoted(death.cases[0])} alone killed it again ({death.cause}): that "
            "case hits the sandbox's file-size limit, which is not counted against the server"
        )
    elif verdict == "crash":
        what = (
            f"replaying {_quoted(death.cases[0])} alone killed it again ({death.cause}): that case "
            "crashes the server"
        )
    elif not death.cases:
        what = f"{death.cause}"
    else:
        n = len(death.cases)
        inflight = f"{n} case{'s were' if n > 1 else ' was'} in flight"
        what = f"{death.cause} while {inflight} ({_cases(death.cases)})"
        if verdict == "flakyCrash":
            what += (
                "; replayed alone, none of them killed it: a flaky crash (rerun to see whether "
                "it recurs), no tool is blamed"
            )
    return f"Target death {number}: {what}{_restarts(death)}.{_stderr(death.stderr_tail)}"


def death_notes(fuzz: FuzzRun) -> list[str]:
    """The report's notes about ``fuzz.deaths`` (none when the target never died)."""
    if not fuzz.deaths:
        return []
    restarts = [a for d in fuzz.deaths for a in d.restarts if a.ok]
    failed = [a for d in fuzz.deaths for a in d.restarts if not a.ok]
    n = len(fuzz.deaths)
    summary = (
        f"The target died {n} time{'s' if n > 1 else ''} during the fuzz run and was "
        f"restarted {len(restarts)} time{'' if len(restarts) == 1 else 's'}"
    )
    if failed:
        summary += f" ({len(failed)} restart attempt{'s' if len(failed) > 1 else ''} failed)"
    summary += "; the cases in flight at each death were replayed one at a time, and only a "
    summary += "case whose replay killed it again counts as a protocolCrash."
    notes = [summary]
    notes += [_one(i, d, fuzz.flaky_crashes) for i, d in enumerate(fuzz.deaths, start=1)]
    if fuzz.stopped is not None:
        notes.append(f"The fuzz run stopped: {fuzz.stopped}.")
    return notes
