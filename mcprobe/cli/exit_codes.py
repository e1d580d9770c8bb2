"""The exit codes of ``mcprobe``: one table, rendered into ``--help`` and checked against the
README, ``docs/cli.md`` and the agent skill by ``tests/front/test_exit_codes.py``.

Stdlib only (the CLI renders ``--help`` before any heavy import). ``cli/commands.py`` keeps its
``EXIT_*`` constants; a test keeps them and this table equal, so a new code cannot go
undocumented.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

EXIT_OK = 0
EXIT_USAGE = 1
EXIT_CONNECT = 2
EXIT_SCORE = 3
EXIT_CRITICAL = 4
EXIT_INTERNAL = 5
EXIT_DRIFT = 6
EXIT_REGRESSION = 7
EXIT_NOTHING_CALLED = 8
EXIT_INTERRUPTED = 130
EXIT_HANGUP = 128 + signal.SIGHUP  # 129
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143


@dataclass(frozen=True)
class ExitCode:
    code: int
    meaning: str


EXIT_CODES: tuple[ExitCode, ...] = (
    ExitCode(0, "the audit completed and every gate passed (findings alone do not fail a run)"),
    ExitCode(
        1,
        "usage error: bad option or value, no target or two, unwritable output, bad config, a "
        "gate over a report that is not graded (no tool was called)",
    ),
    ExitCode(
        2, "could not connect to the target (missing command, failed handshake, HTTP refusal)"
    ),
    ExitCode(3, "the overall score is below --fail-under (or was not measured)"),
    ExitCode(4, "a critical behavioural issue was found and --fail-on-critical is set"),
    ExitCode(5, "internal error of mcprobe itself (a bug; MCPROBE_DEBUG=1 shows the traceback)"),
    ExitCode(6, "a tool definition drifted from --lock and --fail-on-drift is set"),
    ExitCode(7, "something got worse than --baseline and --fail-on-regression is set"),
    ExitCode(
        8,
        "--fuzz called no tool at all (every tool skipped by consent, --tools or --skip-tools, "
        "or none could be called): one line says why and which flag adds how many tools",
    ),
    ExitCode(129, "stopped by SIGHUP: cleaned up like Ctrl-C (the target is shut down)"),
    ExitCode(130, "interrupted (Ctrl-C)"),
    ExitCode(143, "stopped by SIGTERM (a cancelled CI job): cleaned up like Ctrl-C"),
)

PRECEDENCE = (4, 6, 7, 3)
"""When several gates fail, the exit code is the first of these that applies (the most specific
signal); every failing gate's reason is printed."""


def exit_code_table() -> str:
    """The table as plain text for ``--help``."""
    lines = ["exit codes:"]
    lines += [f"  {entry.code:>3}  {entry.meaning}" for entry in EXIT_CODES]
    order = ", ".join(str(code) for code in PRECEDENCE)
    lines.append(f"  several gates failing: the first of {order} wins; every reason is printed")
    return "\n".join(lines) + "\n"
