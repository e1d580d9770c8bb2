"""How the report tells the target's deaths (pure): the deaths as data, the notes, the
crash-loop critical line, and which verdict each death gets from the catalogue."""

from __future__ import annotations

from dataclasses import replace

from mcprobe.core.model import Coverage, FuzzRun, RestartAttempt, TargetDeath
from mcprobe.core.verdicts import verdict
from mcprobe.report.deaths import STDERR_QUOTE, death_notes, death_verdict, deaths_out
from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.markdown import render_markdown
from tests.support.synthetic_audits import build, clean_audit

KILLER = TargetDeath(
    cases=("bomb wrong_type:n", "alpha valid"),
    cause="target exited with code 9",
    stderr_tail="fatal: bomb could not handle n\n",
    restarts=(RestartAttempt(0.25),),
)
REPRODUCED = TargetDeath(
    cases=("bomb wrong_type:n",), cause="target exited with code 9", replay=True
)
FLAKY = TargetDeath(
    cases=("alpha valid",),
    cause="target exited with code 9",
    stderr_tail="x" * 2000,
    restarts=(RestartAttempt(0.5, error="could not start: boom"), RestartAttempt(0.1)),
)


def run_with(
    *deaths: TargetDeath, flaky: tuple[tuple[str, ...], ...] = (), stopped: str | None = None
) -> FuzzRun:
    return FuzzRun(
        results=(),
        coverage=Coverage(total_tools=0, fuzzed_tools=(), skipped=()),
        deaths=deaths,
        flaky_crashes=flaky,
        stopped=stopped,
    )


def test_each_death_gets_its_catalogue_verdict() -> None:
    flaky = (FLAKY.cases,)
    assert death_verdict(REPRODUCED, flaky) == "crash"
    assert death_verdict(FLAKY, flaky) == "flakyCrash"
    assert death_verdict(KILLER, flaky) is None  # its suspects were judged by their replays
    out = deaths_out(run_with(KILLER, REPRODUCED, FLAKY, flaky=flaky))
    assert [d.verdict for d in out] == [None, "crash", "flakyCrash"]
    assert out[0].cases == ["bomb wrong_type:n", "alpha valid"]
    assert [(r.seconds, r.error) for r in out[2].restarts] == [
        (0.5, "could not start: boom"),
        (0.1, None),
    ]
    assert verdict("flakyCrash").dimensions == frozenset()  # costs nothing


def test_the_notes_count_deaths_and_restarts_and_quote_each_stderr_clipped() -> None:
    notes = death_notes(run_with(KILLER, REPRODUCED, FLAKY, flaky=(FLAKY.cases,)))
    assert notes[0].startswith(
        "The target died 3 times during the fuzz run and was restarted 2 times "
        "(1 restart attempt failed)"
    )
    assert (
        "2 cases were in flight (`bomb wrong_type:n`, `alpha valid`); restarted in 0.25 s"
        in notes[1]
    )
    assert "Its stderr ended with: `fatal: bomb could not handle n`" in notes[1]
    assert "replaying `bomb wrong_type:n` alone killed it again" in notes[2]
    assert "not restarted" in notes[2]
    assert "a flaky crash" in notes[3] and "no tool is blamed" in notes[3]
    assert "a restart failed after 0.50 s (could not start: boom)" in notes[3]
    assert "…" + "x" * STDERR_QUOTE + "`" in notes[3] and "x" * (STDERR_QUOTE + 1) not in notes[3]


def test_target_text_in_a_note_cannot_end_its_quote() -> None:
    death = TargetDeath(cases=("a`b valid",), cause="target exited with code 1", stderr_tail="x`y")
    note = death_notes(run_with(death))[1]
    assert "(`a'b valid`)" in note and "`x'y`" in note


def test_no_death_no_note() -> None:
    assert death_notes(run_with()) == []


def test_a_stopped_run_is_a_critical_crash_loop_in_the_report_and_its_markdown() -> None:
    stopped = "the target died 4 times and the restart budget (3 per audit) is used up"
    audit = build_with_fuzz(run_with(KILLER, stopped=stopped))
    assert audit.fuzz_stopped == stopped
    assert f"the fuzz run stopped: {stopped}" in audit.critical
    markdown = render_markdown(audit)
    assert "⚠ Critical:" in markdown
    assert "- The fuzz run stopped: the target died 4 times and the restart budget" in markdown
    assert [d.cases for d in audit.deaths] == [list(KILLER.cases)]


def test_a_run_that_went_on_after_a_death_is_not_a_crash_loop() -> None:
    audit = build_with_fuzz(run_with(FLAKY, flaky=(FLAKY.cases,)))
    assert audit.fuzz_stopped is None
    assert not any("fuzz run stopped" in line for line in audit.critical)
    assert "✓ No critical behavioral issues" in render_markdown(audit)


def build_with_fuzz(fuzz: FuzzRun) -> ConformanceReport:
    return build(replace(clean_audit(), fuzz=fuzz))
