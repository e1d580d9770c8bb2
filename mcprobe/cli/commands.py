"""The ``mcprobe`` command line.

::

    mcprobe                                   run the stdio MCP server
    mcprobe serve                             the same
    mcprobe audit [options] URL               Streamable HTTP target (SSE fallback)
    mcprobe audit [options] -- COMMAND [ARG…] stdio target, argv exactly as given
    mcprobe audit [options] --stdio "CMD STR" stdio target, shell-style quoting

``run(argv, stdout, stderr) -> int`` does everything and returns the exit code; ``main`` only
calls ``sys.exit`` with it, so tests drive the CLI with string buffers. The report goes to stdout
(or ``--output FILE``); logs and errors go to stderr, one line each, secrets scrubbed. No
traceback ever reaches the user (set ``MCPROBE_DEBUG=1`` to get one on stderr).

Speed: the command line is checked with the standard library only, then a stdio target is
started (``_prespawn``) before the MCP SDK and pydantic are imported, so the target boots while
mcprobe loads; the transport adopts the running process. ``main`` ends an audit with
``os._exit`` once the report is flushed and the target reaped (``_exit_now``).

Exit codes (``EXIT_*`` below): 0 audit completed and every gate passed; 1 usage error (bad
option or value, unknown option, unwritable ``--output``); 2 could not connect to the target;
3 score below ``--fail-under``; 4 critical behavioural issue with ``--fail-on-critical``; 5
internal error of mcprobe itself; 6 drift against ``--lock`` with ``--fail-on-drift``; 7 worse
than ``--baseline`` with ``--fail-on-regression``; 130 interrupted. When several gates fail, the
first of 4, 6, 7, 3 wins (every reason is printed). The
one table is ``mcprobe.cli.exit_codes`` (rendered into ``--help``; tests keep the docs equal to it).

Front-end helpers live beside this module: ``console`` (progress, -q/-v, colour, the terminal
summary), ``baseline`` (``--baseline``), ``exit_codes``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn, TextIO

from mcprobe import __version__
from mcprobe.cli import console, outputs, termination
from mcprobe.cli import many as audit_many
from mcprobe.cli.audit_args import AuditInvocation, encodable, parse_audit
from mcprobe.cli.audit_run import interrupted, run_audit
from mcprobe.cli.exit_codes import (
    EXIT_CONNECT,
    EXIT_CRITICAL,
    EXIT_DRIFT,
    EXIT_HANGUP,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NOTHING_CALLED,
    EXIT_OK,
    EXIT_REGRESSION,
    EXIT_SCORE,
    EXIT_TERMINATED,
    EXIT_USAGE,
)
from mcprobe.cli.parser import Exit
from mcprobe.core.errors import UsageError  # one class for every bad-input path: exit 1

__all__ = [  # the command's surface, as tests and `python -m mcprobe` use it
    "EXIT_CONNECT",
    "EXIT_CRITICAL",
    "EXIT_DRIFT",
    "EXIT_HANGUP",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_NOTHING_CALLED",
    "EXIT_OK",
    "EXIT_REGRESSION",
    "EXIT_SCORE",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "AuditInvocation",
    "main",
    "parse_audit",
    "run",
]

if TYPE_CHECKING:
    pass


_USAGE = """\
usage: mcprobe [serve]
       mcprobe audit [options] URL
       mcprobe audit [options] -- COMMAND [ARG ...]
       mcprobe audit [options] --stdio "COMMAND STRING"
       mcprobe audit [options] --config HOST_CONFIG.json [--server NAME]...
       mcprobe scan [--json]
       mcprobe pin [target options] -- COMMAND [ARG ...] > mcprobe.lock
       mcprobe render REPORT.json --format FORMAT | --report LIST [--report-dir DIR]
       mcprobe badge REPORT.json [--label TEXT] > badge.svg
       mcprobe --version

Audit MCP servers over the live protocol. Without arguments (or with `serve`), run mcprobe's
own stdio MCP server. `mcprobe audit --help` lists the audit options with their defaults,
examples and the exit codes.
"""


_COMMANDS = ("audit", "pin", "scan", "render", "badge", "serve")


_SERVE_HELP = """\
usage: mcprobe [serve]

Run mcprobe's own MCP server on stdin/stdout (JSON-RPC; its probe_* tools are listed by
tools/list and in the README). An MCP client (Claude
Desktop, Claude Code, the MCP Inspector) starts it; on a terminal it waits for JSON-RPC on stdin
(Ctrl-C or Ctrl-D ends it). `mcprobe --help` lists the other commands.
"""


def run(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    """Run the command line ``argv`` (without the program name); return the exit code."""
    args = list(argv)
    try:
        if args[:1] == ["serve"] and args[1:] in (["-h"], ["--help"]):
            stdout.write(_SERVE_HELP)
            return EXIT_OK
        if not args or args[0] == "serve":
            if args[1:]:
                raise UsageError("serve takes no arguments (mcprobe serve --help)")
            _tty_hint(stderr)
            from mcprobe.server.app import main as serve

            try:
                serve()
            except Exception as exc:  # never a traceback: one line, exit 5
                stderr.write(f"mcprobe: internal error in the MCP server: {type(exc).__name__}\n")
                return EXIT_INTERNAL
            return EXIT_OK
        if args[0] in ("--version", "-V"):
            stdout.write(f"mcprobe {__version__}\n")
            return EXIT_OK
        if args[0] in ("-h", "--help", "help"):
            stdout.write(_USAGE)
            return EXIT_OK
        if args[0] in _FILE_COMMANDS:
            return _FILE_COMMANDS[args[0]](args[1:], stdout, stderr)
        if args[0] != "audit":
            raise UsageError(_unknown_command(args[0]))
        if audit_many.wants_config(args[1:]):
            with termination.like_interrupt():
                return audit_many.run_configured(args[1:], stdout, stderr)
        return run_audit(args[1:], stdout, stderr)
    except UsageError as exc:
        stderr.write(f"mcprobe: usage error: {encodable(str(exc))} (see mcprobe --help)\n")
        return EXIT_USAGE
    except Exit as exc:
        return exc.code
    except KeyboardInterrupt:

        def say(line: str) -> None:
            stderr.write(line + "\n")

        return interrupted(say)


def _run_scan(argv: list[str], stdout: TextIO, stderr: TextIO) -> int:
    return audit_many.run_scan(argv, stdout)


def _run_pin(argv: list[str], stdout: TextIO, stderr: TextIO) -> int:
    from mcprobe.cli.pin import run_pin

    return run_pin(argv, stdout, stderr)


def _run_badge(argv: list[str], stdout: TextIO, stderr: TextIO) -> int:
    from mcprobe.cli.badge import run_badge

    return run_badge(argv, stdout)


_FILE_COMMANDS: dict[str, Callable[[list[str], TextIO, TextIO], int]] = {
    "scan": _run_scan,
    "pin": _run_pin,
    "render": outputs.run_render,
    "badge": _run_badge,
}


def _unknown_command(word: str) -> str:
    import difflib

    close = difflib.get_close_matches(word, _COMMANDS, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown command {word!r} (expected audit, pin, scan, render, badge or serve){hint}"


def _tty_hint(stderr: TextIO) -> None:
    """Bare ``mcprobe`` on a terminal: say what it is waiting for (an MCP client speaks on
    stdin), instead of waiting silently."""
    if console.isatty(sys.stdin) and console.isatty(stderr):
        stderr.write(
            "mcprobe: MCP server on stdin/stdout, waiting for a client (Ctrl-C to quit; "
            "`mcprobe --help` for the audit command)\n"
        )
        stderr.flush()


def main() -> None:
    code = run(sys.argv[1:], sys.stdout, sys.stderr)
    if sys.argv[1:2] == ["audit"]:
        _exit_now(code)
    if sys.argv[1:] in ([], ["serve"]) and code in _STOPPED:
        # The SDK reads stdin in a worker thread that a signal cannot wake: a normal exit
        # would wait for it (until Ctrl-D). The server's lifespan has closed every target
        # connection by now (its task group was cancelled), so nothing is left to clean up.
        _exit_now(code)
    sys.exit(code)


_STOPPED = (EXIT_INTERRUPTED, EXIT_HANGUP, EXIT_TERMINATED)


def _exit_now(code: int) -> NoReturn:
    """End an audit without the interpreter's teardown.

    Tearing down the MCP SDK, pydantic and jsonschema modules takes ~0.4-0.5 s after the work
    is done (measured: ``import mcprobe.engine.audit`` then exit, 2 vCPU), a fifth of a quick audit.
    By now everything that matters is finished: the report is written (``--output`` closed),
    the target's process group is gone and reaped, no thread runs. So flush what is buffered
    and leave with ``os._exit``, which runs no finalizers."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    if "logging" in sys.modules:
        import logging

        logging.shutdown()
    os._exit(code)


if __name__ == "__main__":
    main()
