"""The terminal (issue 26 item 6): width-aware progress and summary, FORCE_COLOR, the F cap
explained, and bare ``mcprobe`` on a TTY: a hint on stderr and a clean exit on Ctrl-C."""

from __future__ import annotations

import io
import os
import re
import select
import signal
import sys
import time

import anyio
import pytest

from mcprobe.cli.console import Console, Progress
from mcprobe.core.score.security import F_BAND_CAP as SECURITY_CAP
from mcprobe.report.model import ConformanceReport, CriticalOut, DimensionOut, ServerOut
from mcprobe.report.render.terminal import render_terminal

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _report(**fields: object) -> ConformanceReport:
    values: dict[str, object] = {
        "mcprobe_version": "0",
        "server": ServerOut(name="a-server-with-a-rather-long-name-indeed", version="1"),
        "overall": 72,
        "grade": "C",
        "dimensions": [
            DimensionOut(
                key="metadata",
                name="Metadata & Documentation",
                score=7.5,
                measured=True,
                reasons=[],
            ),
            DimensionOut(key="security", name="Security", score=None, measured=False, reasons=[]),
        ],
        "critical": ["tool `x` silently accepts malformed input " * 4],
        "findings": [],
    }
    values.update(fields)
    return ConformanceReport.model_validate(values)


@pytest.mark.parametrize("width", [50, 80, 120])
def test_the_summary_fits_the_terminal_width(width: int) -> None:
    text = render_terminal(_report(), colour=True, width=width)
    for line in text.splitlines():
        assert len(_ANSI.sub("", line)) <= width, (width, line)
    assert "a-server-with-a-rather-long-name-indeed" in text
    assert "Metadata & Documentation" in text


def test_the_progress_line_never_wraps_so_it_leaves_no_stale_lines() -> None:
    out = io.StringIO()
    progress = Progress(out, mode="line", width=50)
    anyio.run(progress, 3, 40, "3/40 a_tool_with_a_long_name wrong_type:some_parameter_name")
    written = out.getvalue()
    assert written.startswith("\r\x1b[2K")
    visible = written.removeprefix("\r\x1b[2K")
    assert len(visible) <= 49 and visible.endswith("…") and "\n" not in visible


def test_force_color_colours_a_pipe_and_no_color_still_wins() -> None:
    pipe = io.StringIO()
    assert not Console().colour_for(pipe, {})
    assert Console().colour_for(pipe, {"FORCE_COLOR": "1"})
    assert not Console().colour_for(pipe, {"FORCE_COLOR": "0"})
    assert not Console().colour_for(pipe, {"FORCE_COLOR": "1", "NO_COLOR": "1"})


def test_the_f_cap_is_explained_where_it_applies() -> None:
    capped = _report(
        overall=SECURITY_CAP, grade="F", critical_problems=[CriticalOut(kind="securityCritical")]
    )
    text = render_terminal(capped, colour=False, width=80)
    assert f"capped at {SECURITY_CAP} (grade F)" in " ".join(text.split())
    assert "capped at" not in render_terminal(_report(), colour=False)


_INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"clientInfo":{"name":"tty-test","version":"0"}}}\n'
)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty behaviour checked on Linux")
def test_bare_mcprobe_on_a_tty_says_what_it_waits_for_and_ends_on_ctrl_c_while_serving() -> None:
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: mcprobe on a terminal, as a person starts it
        # A terminal's Ctrl-C: SIGINT at its default (a background job's children inherit it
        # ignored or blocked, as under CI or a non-interactive shell).
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        os.execv(sys.executable, [sys.executable, "-m", "mcprobe"])
    out = b""

    def read_for(seconds: float) -> None:
        nonlocal out
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    return
            if b"waiting for a client" in out and seconds > 5:
                return

    try:
        read_for(30)
        assert b"MCP server on stdin/stdout, waiting for a client (Ctrl-C to quit" in out
        # An initialize answered: the server is up and its stdin reader is blocked on the next
        # line when Ctrl-C comes (a Ctrl-C during start-up would not test the reader at all).
        os.write(fd, _INITIALIZE)
        deadline = time.monotonic() + 30
        while b'"serverInfo"' not in out and time.monotonic() < deadline:
            read_for(0.2)
        assert b'"serverInfo"' in out, out[-300:]
        read_for(0.5)
        os.write(fd, b"\x03")
        deadline = time.monotonic() + 10
        status = 0
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            read_for(0.2)
        else:
            raise AssertionError(f"mcprobe still running 10 s after Ctrl-C: {out[-300:]!r}")
        assert os.waitstatus_to_exitcode(status) == 130
        assert b"mcprobe: interrupted" in out
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)


def test_per_tool_progress_names_the_deep_pass_and_prints_its_first_edge_of_a_fuzzed_tool() -> None:
    out = io.StringIO()
    progress = Progress(out, mode="per-tool")

    async def feed() -> None:
        await progress(1, 3, "1/3 greet valid")
        await progress(2, 3, "2/3 greet wrong_type:name")
        await progress(1, 9, "1/9 greet deep:name:emptyString")
        await progress(2, 9, "2/9 greet deep:name:nul")

    anyio.run(feed)
    assert out.getvalue().splitlines() == [
        "mcprobe: fuzzing 1/3 greet valid",
        "mcprobe: deep fuzzing 1/9 greet deep:name:emptyString",
    ]
