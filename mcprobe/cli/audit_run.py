"""One ``mcprobe audit`` from a checked command line to its exit code: start the target early,
run the engine (``engine.audit``), deliver the report (stdout, ``--output``, ``--report``),
compare it with ``--baseline``, apply the gates, and turn every failure into one line and an
exit code (``exit_codes``), never a traceback."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from mcprobe import render_report
from mcprobe.cli import console, outputs, termination
from mcprobe.cli.audit_args import (
    DEBUG_ENV,
    AuditArgs,
    AuditInvocation,
    check_audit_args,
    config_line,
    connect_message,
    discard,
    encodable,
    invocation_of,
    prespawn,
    stderr_tail,
)
from mcprobe.cli.exit_codes import (
    EXIT_CONNECT,
    EXIT_CRITICAL,
    EXIT_DRIFT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NOTHING_CALLED,
    EXIT_OK,
    EXIT_REGRESSION,
    EXIT_SCORE,
    EXIT_USAGE,
)
from mcprobe.core.errors import UsageError  # one class for every bad-input path: exit 1
from mcprobe.report.formats import FORMAT_NAMES

if TYPE_CHECKING:
    from mcprobe.report.model import ConformanceReport


def _audit(
    invocation: AuditInvocation,
    progress: console.Progress | None,
    started: subprocess.Popen[bytes] | None = None,
    on_report: Callable[[ConformanceReport], None] | None = None,
) -> ConformanceReport:
    import anyio

    async def go() -> ConformanceReport:
        return await run_invocation(
            invocation, progress=progress, started=started, on_report=on_report
        )

    return anyio.run(go)


async def run_invocation(
    invocation: AuditInvocation,
    *,
    progress: console.Progress | None,
    started: subprocess.Popen[bytes] | None = None,
    on_report: Callable[[ConformanceReport], None] | None = None,
) -> ConformanceReport:
    """The audit ``invocation`` asks for, through the engine's one entry point; ``started`` and
    ``on_report`` are what only ``mcprobe audit`` has (the pre-started target, the report
    written before the target's shutdown). One place, so that ``mcprobe audit`` and ``mcprobe
    audit --config`` (``cli/many.py``) audit alike."""
    from mcprobe.engine.audit import audit

    return await audit(invocation.request, progress=progress, started=started, on_report=on_report)


def _find(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for sub in exc.exceptions:
            found = _find(sub, kind)
            if found is not None:
                return found
    return None


def run_audit(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    """``mcprobe audit ARGV`` of one target (``--config`` is ``cli/many.py``'s)."""
    # SIGTERM (a cancelled CI job) and SIGHUP stop an audit like Ctrl-C: the target is shut down.
    with termination.like_interrupt():
        args = check_audit_args(argv, stdout)
        started = prespawn(args)
        try:
            return _run_checked_audit(args, started, stdout, stderr)
        finally:
            if started is not None:
                discard(started)


def interrupted(say: Callable[[str], None]) -> int:
    """Ctrl-C, or SIGTERM / SIGHUP routed to it (``termination``): one line, 130 / 143 / 129."""
    signum = termination.received()
    if signum is None:
        say("mcprobe: interrupted")
        return EXIT_INTERRUPTED
    say(f"mcprobe: stopped by {signal.Signals(signum).name}; the target was shut down")
    return 128 + signum


def _run_checked_audit(
    args: AuditArgs, started: subprocess.Popen[bytes] | None, stdout: TextIO, stderr: TextIO
) -> int:
    from mcprobe.core.errors import ConnectFailed, McprobeError
    from mcprobe.report.redact import Redactor

    invocation = invocation_of(args)
    redactor = Redactor.of(invocation.request.spec.secret_values())

    def say(text: str) -> None:
        stderr.write(encodable(redactor.prose(text)) + "\n")

    if args.config_path is not None and not invocation.console_mode.quiet:
        say(config_line(args.config_path))
    progress = invocation.console_mode.progress(stderr, fuzz=invocation.request.fuzz)
    try:
        with invocation.console_mode.timeline(say):
            return _audit_and_report(invocation, progress, stdout, say, started)
    except BaseException as exc:
        if progress is not None:
            progress.finish()
        connect = _find(exc, ConnectFailed)
        if isinstance(connect, ConnectFailed):
            say(connect_message(invocation.request.spec, connect))
            if connect.stderr_tail.strip():
                say("mcprobe: the target's stderr ended with:\n" + stderr_tail(connect.stderr_tail))
            return EXIT_CONNECT
        if _find(exc, KeyboardInterrupt) is not None:
            return interrupted(say)
        usage = _find(exc, UsageError)
        if usage is not None:
            say(f"mcprobe: usage error: {usage}")
            return EXIT_USAGE
        if _find(exc, Exception) is None:
            raise  # SystemExit and friends: not ours to swallow
        if os.environ.get(DEBUG_ENV):
            say("".join(traceback.format_exception(exc)).rstrip())
        mine = _find(exc, McprobeError)
        detail = str(mine) if mine is not None else f"{type(exc).__name__}: {exc}"
        say(f"mcprobe: internal error: {detail} (set {DEBUG_ENV}=1 for a traceback)")
        return EXIT_INTERNAL


def _audit_and_report(
    invocation: AuditInvocation,
    progress: console.Progress | None,
    stdout: TextIO,
    say: Callable[[str], None],
    started: subprocess.Popen[bytes] | None = None,
) -> int:
    # The report is written while the target is still open (``engine.audit``'s on_report), so
    # the user has it before the target's shutdown, which then takes a short grace only.
    codes: list[int] = []
    report = _audit(
        invocation,
        progress,
        started,
        on_report=lambda done: codes.append(_deliver(invocation, done, progress, stdout, say)),
    )
    return codes[0] if codes else _deliver(invocation, report, progress, stdout, say)


def _deliver(
    invocation: AuditInvocation,
    report: ConformanceReport,
    progress: console.Progress | None,
    stdout: TextIO,
    say: Callable[[str], None],
) -> int:
    """Render and write the report, compare it with the baseline, apply the gates. The report
    was scrubbed field by field when it was built (``report/redact.py``): the rendered text is
    written as is, never searched and replaced (that could corrupt JSON or XML)."""
    if progress is not None:
        progress.finish()
    loud = invocation.console_mode
    if loud.verbose and not loud.quiet:
        for line in console.call_lines(report, latency=loud.verbose > 1):
            say(line)
    if invocation.summary:
        from mcprobe.report.render.terminal import render_terminal

        width = console.terminal_width(stdout)
        rendered = render_terminal(report, colour=loud.colour_for(stdout), width=width)
        rendered += f"  full report: --format {'|'.join(FORMAT_NAMES)}, or --output FILE\n"
    else:
        rendered = render_report(
            report,
            invocation.output_format,  # type: ignore[arg-type]
            sarif_artifact=invocation.sarif_artifact,
        )
    text = encodable(rendered)
    if invocation.output is None:
        _write_report(stdout, text)
    else:
        try:
            invocation.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            say(f"mcprobe: cannot write --output {str(invocation.output)!r}: {exc.strerror}")
            return EXIT_USAGE
        if not loud.quiet:
            say(
                f"mcprobe: {invocation.output_format} report written to {invocation.output} "
                f"(score {_score_text(report)})"
            )
    _say_unknown_tools(report, say)
    if invocation.reports and invocation.report_dir is not None:
        written = outputs.write_reports(
            report,
            invocation.reports,
            invocation.report_dir,
            say,
            sarif_artifact=invocation.sarif_artifact,
            quiet=loud.quiet,
        )
        if not written:
            return EXIT_USAGE
    try:
        regressions = _compare_baseline(invocation, report, say)
    except UsageError as refused:
        say(f"mcprobe: usage error: {refused}")
        return EXIT_USAGE
    if invocation.baseline_update and invocation.baseline_path is not None:
        path = invocation.baseline_path
        try:
            path.write_text(encodable(render_report(report, "json")), encoding="utf-8")
        except OSError as exc:
            say(f"mcprobe: --baseline-update: cannot write {str(path)!r}: {exc.strerror}")
            return EXIT_USAGE
        if not loud.quiet:
            say(f"mcprobe: --baseline-update: this audit is the new baseline in {path}")
    return evaluate_gates(invocation, report, say, regressions)


def _say_unknown_tools(report: ConformanceReport, say: Callable[[str], None]) -> None:
    """A ``--tools`` name the server does not list is named on stderr, with the nearest real
    one (the report lists it among the skipped tools, easy to miss)."""
    if report.coverage is None:
        return
    from mcprobe.core.cases.selection import unknown_requested
    from mcprobe.core.model import SkippedTool

    skipped = [SkippedTool(s.tool, s.reason) for s in report.coverage.skipped]
    for named in unknown_requested(skipped, report.coverage.fuzzed):
        say(f"mcprobe: --tools: the server lists no tool named {named}")


def _compare_baseline(
    invocation: AuditInvocation, report: ConformanceReport, say: Callable[[str], None]
) -> tuple[str, ...]:
    """Print what changed against ``--baseline``; return what got worse."""
    if invocation.baseline is None:
        return ()
    from mcprobe.report.baseline import BaselineReport, comparability, compare
    from mcprobe.report.render.baseline_text import render_baseline
    from mcprobe.report.render.escape import clean_text
    from mcprobe.report.render.json_report import report_to_jsonable

    now = BaselineReport.model_validate(report_to_jsonable(report))
    check = comparability(invocation.baseline, now)
    quiet = invocation.console_mode.quiet
    if check.refusal is not None:
        if invocation.baseline_update:
            if not quiet:
                say(f"mcprobe: --baseline: {clean_text(check.refusal, 300)[0]}; replaced")
            return ()
        raise UsageError(
            f"--baseline: {clean_text(check.refusal, 300)[0]}: nothing compared "
            "(--baseline-update makes this audit the baseline)"
        )
    if not quiet:
        where = invocation.baseline_path
        say(f"mcprobe: compared with --baseline {where}: {clean_text(check.compared, 300)[0]}")
    diff = compare(invocation.baseline, now)
    if not quiet:
        for line in render_baseline(diff):
            say(f"mcprobe: {line}")
    if check.caution is not None:
        say(f"mcprobe: --baseline: {check.caution}")
        if invocation.fail_on_regression and diff.regressions:
            say(
                "mcprobe: --fail-on-regression not applied across mcprobe versions; "
                "refresh the baseline with --baseline-update"
            )
        return ()
    return diff.regressions


def _write_report(stdout: TextIO, text: str) -> None:
    try:
        stdout.write(text)
        stdout.flush()
    except BrokenPipeError:
        # `mcprobe audit … | head`: the reader left. The gates still decide the exit code;
        # point the descriptor at /dev/null so the interpreter's final flush stays quiet.
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stdout.fileno())


def _score_text(report: ConformanceReport) -> str:
    if report.not_graded is not None:
        return f"not graded ({report.not_graded})"
    if report.overall is None:
        return "not measured"
    static = " (static: tools not called)" if report.static is not None else ""
    return f"{report.overall}/100, grade {report.grade}{static}"


def _nothing_fuzzed(invocation: AuditInvocation, report: ConformanceReport) -> str | None:
    """Why a requested gate cannot judge anything, or None: zero tools fuzzed with ``--fuzz``,
    or a report that is not graded (a server with tools none of which was called, e.g. no
    ``--fuzz``). A server without tools is graded from the static audit and judged on it."""
    gates = [
        name
        for name, on in (
            ("--fail-under", invocation.fail_under is not None),
            ("--fail-on-critical", invocation.fail_on_critical),
        )
        if on
    ]
    if not gates:
        return None
    if report.not_graded is not None:
        return f"{' and '.join(gates)}, but the report is not graded: {report.not_graded}"
    if report.static is not None and not invocation.allow_static:
        return (
            f"{' and '.join(gates)}, but the report is static (graded although no tool was "
            f"called: {report.static}); pass --allow-static to gate on it anyway"
        )
    return None


def _called_nothing(invocation: AuditInvocation, report: ConformanceReport) -> str | None:
    """Why ``--fuzz`` called no tool at all (exit 8), or None: a server that lists tools, none
    of which got a case sent (skipped by consent, --tools, --skip-tools, no case, deadline)."""
    if not invocation.request.fuzz or report.coverage is None or report.coverage.total_tools == 0:
        return None
    if any(r.outcome != "notRun" for r in report.fuzz):
        return None
    return report.not_graded or report.static or "every tool was skipped (see the coverage)"


def evaluate_gates(
    invocation: AuditInvocation,
    report: ConformanceReport,
    say: Callable[[str], None],
    regressions: tuple[str, ...] = (),
) -> int:
    """The exit code of the gates; when several fail, the first of 4, 6, 7, 3 wins. A fuzz gate
    over zero fuzzed tools is a usage error (1), never a pass (the report is already written)."""
    nothing = _called_nothing(invocation, report)
    if nothing is not None:
        say(f"mcprobe: --fuzz called no tool: {nothing}")
        return EXIT_NOTHING_CALLED
    unfuzzed = _nothing_fuzzed(invocation, report)
    if unfuzzed is not None:
        say(f"mcprobe: usage error: {unfuzzed}")
        return EXIT_USAGE
    code = EXIT_OK
    if invocation.fail_under is not None and (
        report.overall is None or report.overall < invocation.fail_under
    ):
        say(f"mcprobe: score {_score_text(report)} is below --fail-under {invocation.fail_under:g}")
        code = EXIT_SCORE
    if invocation.fail_on_regression and regressions:
        say(f"mcprobe: worse than --baseline ({len(regressions)}):")
        for line in regressions:
            say(f"  - {line}")
        code = EXIT_REGRESSION
    if invocation.fail_on_drift and report.drift is not None and report.drift.drifted:
        drift = report.drift
        say(
            f"mcprobe: drift against --lock: {len(drift.added)} added, {len(drift.removed)} "
            f"removed, {len(drift.changed)} changed tool(s)"
        )
        code = EXIT_DRIFT
    if invocation.fail_on_critical and report.critical:
        say(f"mcprobe: {len(report.critical)} critical behavioural issue(s):")
        for line in report.critical:
            say(f"  - {' '.join(line.split())}")
        code = EXIT_CRITICAL
    return code
