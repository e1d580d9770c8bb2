"""Output that fits the place: a terminal, a CI log, or a quiet script.

- On a terminal (stderr a TTY): one overwritten progress line while fuzzing.
- Elsewhere (CI logs): one plain progress line on stderr per tool as its first case finishes,
  so a log shows life during a long audit.
- ``-q/--quiet``: no progress, no informational lines; errors and gate failures only.
- ``-v``: one line per finished call, live, and one verdict line per call after the audit;
  ``-vv`` adds each call's latency to those verdict lines.
- Colour (the terminal summary): ``--color auto`` (default) colours only a TTY, and never when
  ``NO_COLOR`` is set to anything non-empty or ``TERM=dumb``; ``FORCE_COLOR`` (non-empty, not
  ``0``) colours a pipe too (CI logs that render ANSI), ``NO_COLOR`` still winning; ``always`` /
  ``never`` decide outright.
- Width: the progress line is cut to the terminal's width (a wrapped line cannot be overwritten
  by ``\r`` and would leave stale lines) and the summary wraps to it.

Hand-written ANSI rather than a terminal library (rich): the output is a dozen lines, every
target string already goes through ``clean_text`` (no markup language to escape a second time),
width-awareness is ``shutil.get_terminal_size`` plus ``textwrap``, and mcprobe adds nothing to
what the MCP SDK installs (``tests/test_packaging.py``).

Stdlib only at import time (the CLI builds its parser before the heavy imports).
"""

from __future__ import annotations

import argparse
import io
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from mcprobe.report.model import ConformanceReport

COLOR_MODES = ("auto", "always", "never")
_LINE_LIMIT = 120


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """-q / -v / --color on ``mcprobe audit``."""
    loud = parser.add_mutually_exclusive_group()
    loud.add_argument(
        "-q", "--quiet", action="store_true", help="errors and gate failures only on stderr"
    )
    loud.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="one line per call (-vv: with its latency)",
    )
    parser.add_argument(
        "--color",
        choices=COLOR_MODES,
        default="auto",
        help="colour the terminal summary (default auto: a TTY without NO_COLOR)",
    )


@dataclass(frozen=True)
class Console:
    """Where and how loudly to talk."""

    quiet: bool = False
    verbose: int = 0
    color: str = "auto"

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> Console:
        return cls(
            quiet=bool(getattr(ns, "quiet", False)),
            verbose=int(getattr(ns, "verbose", 0) or 0),
            color=str(getattr(ns, "color", "auto") or "auto"),
        )

    def colour_for(self, stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
        env = os.environ if environ is None else environ
        if self.color == "always":
            return True
        if self.color == "never" or env.get("NO_COLOR", ""):
            return False
        if env.get("FORCE_COLOR", "") not in ("", "0"):
            return True
        return isatty(stream) and env.get("TERM", "") != "dumb"

    @contextmanager
    def timeline(self, say: Callable[[str], None]) -> Iterator[None]:
        """At ``-vv``, the engine's timeline as it happens: every start of the target with its
        purpose and every phase of the audit with its wall time (``engine/timeline.py``)."""
        if self.verbose < 2 or self.quiet:
            yield
            return
        handler = _SayHandler(say)
        logger = logging.getLogger("mcprobe.engine")
        level = logger.level
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        try:
            yield
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)

    def progress(self, stderr: TextIO, *, fuzz: bool) -> Progress | None:
        if not fuzz or self.quiet:
            return None
        if self.verbose:
            return Progress(stderr, mode="every")
        return Progress(stderr, mode="line" if isatty(stderr) else "per-tool")


def terminal_width(stream: TextIO, default: int = 80) -> int:
    """The columns of the terminal ``stream`` writes to (``COLUMNS`` wins, as in the stdlib);
    ``default`` when it is not a terminal."""
    import shutil

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(stream.fileno()).columns or default
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return shutil.get_terminal_size((default, 24)).columns if isatty(stream) else default


class _SayHandler(logging.Handler):
    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.INFO)
        self._say = say

    def emit(self, record: logging.LogRecord) -> None:
        self._say(_printable(f"mcprobe: {record.getMessage()}"))


def isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _printable(text: str) -> str:
    # Progress messages carry tool names from the target: no escape sequence reaches a terminal.
    from mcprobe.report.render.escape import clean_text

    cleaned, _ = clean_text(text, _LINE_LIMIT)
    return cleaned.encode("utf-8", "backslashreplace").decode("utf-8")


class Progress:
    """The fuzz runner's progress callback (``done, total, message``).

    ``line``: one overwritten line (a terminal). ``per-tool``: a plain line when the first case
    of a tool not seen yet finishes, and one when the last case does (CI logs). ``every``: a
    plain line per finished case (``-v``)."""

    def __init__(
        self, stderr: TextIO, *, mode: str, prefix: str = "", width: int | None = None
    ) -> None:
        self._stderr = stderr
        self._mode = mode
        self._prefix = prefix
        self._width = width
        self._tools: set[tuple[str, str]] = set()
        self.used = False

    async def __call__(self, done: int, total: int, message: str) -> None:
        # The deep pass (``--deep``) reports its edges as ``deep:<field>:<edge>`` cases.
        phase = "deep fuzzing" if " deep:" in message else "fuzzing"
        text = _printable(f"mcprobe: {self._prefix}{phase} {message}")
        if self._mode == "line":
            # One row exactly: a line that wraps cannot be overwritten by \r (stale lines).
            width = self._width or terminal_width(self._stderr)
            if len(text) > width - 1:
                text = text[: max(1, width - 2)] + "…"
            self._stderr.write(f"\r\x1b[2K{text}")
        else:
            tool = (phase, _tool_of(message))
            first = tool not in self._tools
            self._tools.add(tool)
            if self._mode == "per-tool" and not first and done != total:
                return
            self._stderr.write(text + "\n")
        self._stderr.flush()
        self.used = True

    def finish(self) -> None:
        if self.used and self._mode == "line":
            self._stderr.write("\r\x1b[2K")
            self._stderr.flush()


def _tool_of(message: str) -> str:
    # "12/41 divide wrong_type:a" → "divide" (a tool name may not contain spaces in practice;
    # if it does, the line is merely printed once more than needed).
    parts = message.split(" ")
    return parts[1] if len(parts) > 2 else message


def call_lines(report: ConformanceReport, *, latency: bool) -> list[str]:
    """``-v``: one verdict line per call of the report (``-vv``: with the latency): the outcome
    and the call's per-call flags (its stored verdicts that are flags)."""
    from mcprobe.core.verdicts import flags  # the report is loaded, so the core is too

    lines = []
    calls = list(report.fuzz)
    if report.unknown_tool_probe is not None:
        calls.append(report.unknown_tool_probe)
    for result in calls:
        shown = [kind.flag for kind in flags(result.verdicts)]
        verdict = result.outcome + (f" ({', '.join(shown)})" if shown else "")
        timing = f" {result.latency_ms:.0f} ms" if latency else ""
        lines.append(_printable(f"mcprobe: call {result.name} {result.case} → {verdict}{timing}"))
    if report.deep is not None:  # --deep: one line per finding (the clean edges are counted)
        for tool in report.deep.tools:
            for finding in tool.findings:
                lines.append(
                    _printable(f"mcprobe: deep {tool.tool} {finding.label} → {finding.kind}")
                )
    return lines
