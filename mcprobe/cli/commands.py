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

import argparse
import contextlib
import io
import json
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import traceback
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO
from urllib.parse import urlsplit, urlunsplit

from mcprobe import __version__, render_report
from mcprobe.cli import config_file, console, exit_codes, outputs, termination
from mcprobe.cli import many as audit_many
from mcprobe.cli.examples_file import read_examples_file
from mcprobe.core.errors import UsageError  # one class for every bad-input path: exit 1
from mcprobe.report import formats as report_formats
from mcprobe.report.formats import output_format as output_format_named

if TYPE_CHECKING:
    from mcprobe.core.lint.suppress import RuleOverride
    from mcprobe.core.target_spec import TargetSpec
    from mcprobe.report.baseline import BaselineReport
    from mcprobe.report.model import ConformanceReport

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

TOKEN_ENV = "MCPROBE_TARGET_TOKEN"
DEFAULT_MAX_TOOLS = 50
DEBUG_ENV = "MCPROBE_DEBUG"
CLOSE_GRACE_ENV = "MCPROBE_CLOSE_GRACE"

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
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_STDERR_TAIL_LINES = 20
_REAP_SECONDS = 2.0


class _Exit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting and writes help to our stdout, not sys.stdout."""

    def __init__(self, out: TextIO, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._out = out

    def error(self, message: str) -> NoReturn:
        raise UsageError(message + self._suggestion(message))

    def _suggestion(self, message: str) -> str:
        """``; did you mean --fuzz?`` for a mistyped option (argparse 3.11 has no suggestions)."""
        import difflib

        if not message.startswith("unrecognized arguments: "):
            return ""
        known = sorted(o for o in self._option_string_actions if o.startswith("--"))
        for word in message.removeprefix("unrecognized arguments: ").split():
            name = word.split("=", 1)[0]
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
            if name.startswith("--") and close:
                return f"; did you mean {close[0]}?"
        return ""

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._out.write(message)
        raise _Exit(status)

    def _print_message(self, message: str, file: object = None) -> None:
        if message:
            self._out.write(message)


# --------------------------------------------------------------------------- value parsers


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, got {text!r}")
    return value


def _score(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a score from 0 to 100, got {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a score from 0 to 100, got {text!r}")
    return value


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not _HEADER_NAME.match(name):
        # Never echo the value: it is usually a secret.
        raise argparse.ArgumentTypeError('expected "Name: Value" with a valid header name')
    return name, value.strip()


def _env_pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not _ENV_NAME.match(name):
        raise argparse.ArgumentTypeError("expected NAME=VALUE or NAME with a valid variable name")
    if not sep:
        # NAME alone: mcprobe's own value, so a secret never has to be on a command line.
        inherited = os.environ.get(name)
        if inherited is None:
            raise argparse.ArgumentTypeError(f"{name} is not set in mcprobe's environment")
        return name, inherited
    return name, value


def _tool_names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected comma-separated tool names")
    return names


def _client_capabilities(text: str) -> tuple[str, ...]:
    from mcprobe.core.client_capabilities import parse_client_capabilities  # stdlib only

    try:
        return parse_client_capabilities(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _examples_file(path: str) -> dict[str, Any]:
    """``--examples FILE`` (``examples_file.read_examples_file``: the shape only)."""
    try:
        return read_examples_file(path)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _audit_parser(out: TextIO, command: str = "audit") -> _Parser:
    """The parser of ``mcprobe audit``; ``command="pin"``: the same target options under
    ``mcprobe pin``'s own name, usage and help (the audit-only options hidden from it)."""
    p = _Parser(
        out,
        prog=f"mcprobe {command}",
        usage=(
            f"mcprobe {command} [options] URL | mcprobe {command} [options] -- COMMAND [ARG ...] "
            f'| mcprobe {command} [options] --stdio "COMMAND STRING"'
        ),
        description=_PIN_DESCRIPTION
        if command == "pin"
        else "Connect to one MCP server, lint it, optionally fuzz it, score it, report.",
        epilog=_PIN_EPILOG if command == "pin" else _EPILOG + exit_codes.exit_code_table(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    _add_audit_arguments(p)
    if command == "pin":
        for action in p._actions:
            if action.dest not in _PIN_OPTIONS and action.option_strings[:1] != ["-h"]:
                action.help = argparse.SUPPRESS
    return p


_PIN_DESCRIPTION = """\
Connect to one MCP server, list its tools (none is called) and write its lock (identity and
every tool definition with its sha256) to stdout. `mcprobe audit --lock FILE` compares a later
listing with it (drift)."""
_PIN_EPILOG = """\
examples:
  mcprobe pin -- python -m my_server > mcprobe.lock
  mcprobe audit --lock mcprobe.lock --fail-on-drift -- python -m my_server

exit codes: 0 lock written, 1 usage error, 2 could not connect to the target.
"""
_PIN_OPTIONS = frozenset(
    {
        "url", "stdio", "timeout", "connect_timeout", "bearer", "header", "env", "secret_env",
        "cwd", "config_file", "no_config", "client_capabilities", "protocol", "quiet",
    }
)  # fmt: skip


def _add_audit_arguments(p: _Parser) -> None:
    p.add_argument("url", nargs="?", metavar="URL", help="Streamable HTTP endpoint (SSE fallback)")
    p.add_argument("--stdio", metavar="CMD", help="stdio target as one shell-quoted string")
    p.add_argument("--fuzz", action="store_true", help="call the tools (behavioural pass)")
    p.add_argument(
        "--fuzz-writes",
        action="store_true",
        help="also call tools declaring destructiveHint: false (additive writes; implies --fuzz)",
    )
    p.add_argument(
        "--fuzz-destructive",
        action="store_true",
        help="call every tool, even ones that may be destructive (implies --fuzz-writes)",
    )
    p.add_argument(
        "--max-tools", type=_positive_int, metavar="N", help="fuzz at most N tools (default 50)"
    )
    p.add_argument("--tools", type=_tool_names, metavar="A,B", help="fuzz only these tools")
    p.add_argument(
        "--skip-tools",
        type=_tool_names,
        metavar="A,B",
        help="never call these tools (isolated or not: inside the sandbox every other tool is "
        "called)",
    )
    p.add_argument(
        "--examples",
        type=_examples_file,
        metavar="FILE",
        help="JSON: tool name → realistic argument object(s), the valid calls (needs --fuzz)",
    )
    p.add_argument(
        "--timeout", type=_positive_float, metavar="SECONDS", help="per call (default 30)"
    )
    p.add_argument(
        "--connect-timeout",
        type=_positive_float,
        metavar="SECONDS",
        help="for start + handshake (default 30)",
    )
    p.add_argument(
        "--overall-timeout",
        type=_positive_float,
        metavar="SECONDS",
        help="bound the whole audit, connect included (cases not sent in time become notRun)",
    )
    p.add_argument(
        "--concurrency", type=_positive_int, metavar="N", help="parallel fuzz calls (default 4)"
    )
    p.add_argument("--json", action="store_true", help="same as --format json")
    p.add_argument(
        "--format",
        choices=report_formats.FORMAT_NAMES,
        help="report format (default md; on a terminal without --output: a short summary)",
    )
    p.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument(
        "--sarif-artifact",
        metavar="PATH",
        help="with --format sarif: the file every result points at (GitHub needs one)",
    )
    p.add_argument("--fail-under", type=_score, metavar="SCORE", help="exit 3 below this score")
    p.add_argument(
        "--fail-on-critical",
        action="store_true",
        help="exit 4 on a critical behavioural issue (needs --fuzz)",
    )
    p.add_argument(
        "--allow-static",
        action="store_true",
        help="let --fail-under / --fail-on-critical judge a static report (graded although no "
        "tool was called: consent without isolation, an HTTP target); without it that is a "
        "usage error",
    )
    p.add_argument("--bearer", metavar="TOKEN", help=f"HTTP bearer token (or env {TOKEN_ENV})")
    p.add_argument(
        "--header",
        type=_header,
        action="append",
        default=[],
        metavar='"NAME: VALUE"',
        help="HTTP header (repeatable)",
    )
    p.add_argument(
        "--env",
        type=_env_pair,
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="environment variable for a stdio target; NAME alone passes mcprobe's own value "
        "(repeatable; a value is redacted from the output when its name or shape says secret, "
        "see --secret-env)",
    )
    p.add_argument(
        "--secret-env",
        action="append",
        default=[],
        metavar="NAME",
        help="treat the --env value of NAME as a secret and redact it from every output, "
        "whatever its name or shape (repeatable)",
    )
    p.add_argument("--cwd", metavar="DIR", help="working directory of a stdio target")
    p.add_argument(
        "--baseline",
        metavar="REPORT.json",
        help="compare with an earlier JSON report: what got better and worse (on stderr)",
    )
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 7 when anything got worse than --baseline",
    )
    p.add_argument(
        "--baseline-update",
        action="store_true",
        help="after comparing, write this audit's JSON report to the --baseline file (created "
        "if missing): accept the current state as the new baseline",
    )
    p.add_argument("--lock", metavar="FILE", help="compare with `mcprobe pin` output (drift)")
    p.add_argument("--fail-on-drift", action="store_true", help="exit 6 when --lock shows drift")
    outputs.add_arguments(p)
    console.add_arguments(p)
    audit_many.add_arguments(p)
    config_file.add_arguments(p)
    p.add_argument(
        "--client-capabilities",
        type=_client_capabilities,
        metavar="LIST",
        help="client capabilities to declare: a comma list of roots, elicitation, sampling, or "
        "none (default: all three; roots answered with an empty list, elicitation declined, "
        "sampling with an error)",
    )
    p.add_argument(
        "--no-surface",
        action="store_true",
        help="skip the resource, prompt, protocol and HTTP transport checks: lint and fuzz the "
        "tools only (Liveness and Error Handling then rest on fuzzing alone, Metadata has no "
        "Protocol component)",
    )
    p.add_argument(
        "--protocol",
        choices=("auto", "handshake", "modern"),
        default="auto",
        help="protocol era: handshake (initialize), modern (2026-07-28: server/discover and "
        "per-request _meta), or auto (default: initialize, then 2026-07-28 if it is refused; "
        "the report says which eras the server speaks)",
    )
    p.add_argument(
        "--sandbox",
        choices=("auto", "required", "off"),
        default=None,
        help="isolation of a stdio target: auto (default: bubblewrap where the OS allows it: "
        "network loopback only, host files read-only, private copies of its cwd and of the "
        "paths in its args and env, a fresh HOME, its own PID namespace, resource limits), "
        "required (a usage error where no isolation is possible), off (the server runs with "
        "your rights); HTTP targets are never isolated",
    )


_EPILOG = """\
examples:
  mcprobe audit --fuzz -- python -m my_server            stdio target, argv as given
  mcprobe audit --fuzz --stdio "npx -y @acme/mcp"         stdio target, shell quoting
  MCPROBE_TARGET_TOKEN=... mcprobe audit --fuzz https://mcp.example.com/mcp
  mcprobe audit --fuzz --format html --output report.html -- python -m my_server
  mcprobe audit --fuzz --json --output new.json --baseline old.json --fail-on-regression \\
      -- python -m my_server
  mcprobe audit --fuzz --fail-under 80 --fail-on-critical --format sarif \\
      --sarif-artifact README.md --output mcprobe.sarif -- python -m my_server

output: the report goes to stdout (or --output); progress, errors and gate messages to stderr.
On a terminal, without --format or --output, a short coloured summary replaces the Markdown
(--format md prints the Markdown; NO_COLOR or --color never turns colour off). Not on a
terminal, one progress line per tool goes to stderr; -q silences everything but errors.

"""


# --------------------------------------------------------------------------- the audit invocation


@dataclass(frozen=True)
class AuditInvocation:
    """A parsed, validated ``mcprobe audit`` command line."""

    spec: TargetSpec
    fuzz: bool
    fuzz_writes: bool
    fuzz_destructive: bool
    max_tools: int
    tools: tuple[str, ...] | None
    skip_tools: tuple[str, ...]
    concurrency: int | None
    overall_timeout: float | None
    output_format: str
    output: Path | None
    sarif_artifact: str | None
    fail_under: float | None
    fail_on_critical: bool
    allow_static: bool
    console_mode: console.Console = field(default_factory=console.Console)
    summary: bool = False  # a terminal summary instead of the report on stdout
    baseline: BaselineReport | None = None
    fail_on_regression: bool = False
    baseline_path: Path | None = None  # --baseline (it may not exist yet with --baseline-update)
    baseline_update: bool = False
    overrides: tuple[RuleOverride, ...] = ()  # per-rule overrides from the config file
    lock: Any = None  # a core.pinning.Lock (--lock)
    fail_on_drift: bool = False
    surface: bool = True  # False: --no-surface (tools only)
    examples: dict[str, Any] | None = None  # --examples FILE, shape-checked
    reports: tuple[str, ...] = ()  # --report LIST: also written to report_dir
    report_dir: Path | None = None


@dataclass(frozen=True)
class _AuditArgs:
    """A checked ``mcprobe audit`` command line, before any heavy import: every usage error is
    found here, so a stdio target is only ever started for a valid command line."""

    ns: argparse.Namespace
    command: list[str] | None
    spec: TargetSpec
    output_format: str
    fuzz: bool
    output: Path | None
    summary: bool = False
    overrides: tuple[RuleOverride, ...] = ()
    config_path: Path | None = None  # the mcprobe.toml / pyproject.toml used, said on stderr
    reports: tuple[str, ...] = ()  # --report LIST
    report_dir: Path | None = None  # --report-dir (with --report: default the current one)


def parse_audit(argv: Sequence[str], out: TextIO) -> AuditInvocation:
    """Parse ``mcprobe audit`` arguments (after the word ``audit``); raise ``UsageError``."""
    return _invocation(_check_audit_args(argv, out))


def _check_audit_args(
    argv: Sequence[str],
    out: TextIO,
    config_keys: Collection[str] | None = None,
    name: str = "audit",
) -> _AuditArgs:
    """Stage one of ``parse_audit``: stdlib only (it runs before the target is started).
    ``config_keys``: which of the config file's ``[audit]``/``[gates]`` defaults apply (None:
    all; ``mcprobe pin`` takes the timeouts only). ``name``: the command (``pin`` reuses it)."""
    argv = list(argv)
    command: list[str] | None = None
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1 :]
    ns = _audit_parser(out, name).parse_args(argv)
    if ns.config is not None or ns.server or ns.output_dir or ns.parallel:
        raise UsageError("--server, --output-dir and --parallel need --config FILE (before --)")
    overrides, config_path = _apply_config_file(ns, argv, config_keys)

    targets = [ns.url is not None, ns.stdio is not None, command is not None]
    if sum(targets) != 1:
        raise UsageError(
            "give exactly one target: a URL, -- COMMAND [ARG ...], or --stdio 'COMMAND STRING'"
        )
    if command is not None and not command:
        raise UsageError("nothing after --: expected COMMAND [ARG ...]")
    if ns.stdio is not None:
        try:
            command = shlex.split(ns.stdio)
        except ValueError as exc:
            raise UsageError(f"--stdio: cannot split the command string: {exc}") from None
        if not command:
            raise UsageError("--stdio: empty command string")
    output_format = ns.format or ("json" if ns.json else "md")
    if ns.json and output_format != "json":
        raise UsageError(f"--json contradicts --format {ns.format}")
    reports, report_dir = outputs.check(ns)
    if (
        ns.sarif_artifact is not None
        and "sarif_artifact" not in output_format_named(output_format).options
        and "sarif" not in reports
    ):
        raise UsageError("--sarif-artifact only applies to --format sarif or --report sarif")
    fuzz = ns.fuzz or ns.fuzz_writes or ns.fuzz_destructive
    if (ns.fail_on_critical or ns.examples) and not fuzz:
        what = "--fail-on-critical" if ns.fail_on_critical else "--examples"
        raise UsageError(f"{what} needs --fuzz: it is about calling the tools")
    output = Path(ns.output) if ns.output else None
    if output is not None and not output.parent.is_dir():
        raise UsageError(f"--output: directory {str(output.parent)!r} does not exist")
    _check_compare_files(ns)
    summary = ns.format is None and not ns.json and output is None and console.isatty(out)
    _close_grace()  # a bad MCPROBE_CLOSE_GRACE is a usage error before anything starts
    spec = _spec(ns, command)  # the one target check the server and the library use too
    if spec.cwd is not None and not Path(spec.cwd).is_dir():
        raise UsageError(f"--cwd: {spec.cwd!r} is not a directory")
    return _AuditArgs(
        ns,
        command,
        spec,
        output_format,
        fuzz,
        output,
        summary,
        overrides,
        config_path,
        reports,
        report_dir,
    )


def _check_compare_files(ns: argparse.Namespace) -> None:
    """--baseline / --lock and the gates that need them."""
    if ns.fail_on_regression and ns.baseline is None:
        raise UsageError("--fail-on-regression needs --baseline REPORT.json")
    if ns.baseline_update and ns.baseline is None:
        raise UsageError("--baseline-update needs --baseline REPORT.json (the file to write)")
    if ns.baseline_update and ns.fail_on_regression:
        raise UsageError(
            "--baseline-update accepts this audit as the baseline: it cannot also "
            "--fail-on-regression against it"
        )
    if ns.baseline is not None and not ns.baseline_update and not Path(ns.baseline).is_file():
        raise UsageError(f"--baseline: {ns.baseline!r} is not a file")
    if ns.baseline_update and not Path(ns.baseline).parent.is_dir():
        raise UsageError(f"--baseline: directory of {ns.baseline!r} does not exist")
    if ns.fail_on_drift and ns.lock is None:
        raise UsageError("--fail-on-drift needs --lock mcprobe.lock")
    if ns.lock is not None and not Path(ns.lock).is_file():
        raise UsageError(f"--lock: {ns.lock!r} is not a file")


def config_line(path: Path) -> str:
    """Which config file gave defaults (as pytest's header says ``configfile:``)."""
    return f"mcprobe: config file {_encodable(str(path))}"


def _spec(ns: argparse.Namespace, command: list[str] | None) -> TargetSpec:
    from mcprobe.core.target_spec import DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, target_spec

    if command is not None:
        # The canary (client/canary.py) is planted here, stdlib only, so that the pre-started
        # target (which reads ns.env) and the spec share it; audit_spec keeps a canary it finds.
        ns.env = [*ns.env, _canary_pair()]
    bearer = ns.bearer
    if bearer is None and command is None:
        bearer = os.environ.get(TOKEN_ENV) or None
    return target_spec(
        command=command[0] if command else None,
        args=command[1:] if command else (),
        env=dict(ns.env),
        secret_env=tuple(ns.secret_env),
        cwd=ns.cwd,
        url=ns.url,
        headers=dict(ns.header),
        bearer=bearer,
        connect_timeout=ns.connect_timeout or DEFAULT_CONNECT_TIMEOUT,
        call_timeout=ns.timeout or DEFAULT_CALL_TIMEOUT,
        client_capabilities=ns.client_capabilities,
        protocol=ns.protocol,
        sandbox=ns.sandbox or "auto",
        examples=getattr(ns, "examples", None),  # its paths get private copies in the sandbox
    )


def _apply_config_file(
    ns: argparse.Namespace, argv: Sequence[str], keys: Collection[str] | None = None
) -> tuple[tuple[RuleOverride, ...], Path | None]:
    """Defaults and rule overrides from mcprobe.toml / [tool.mcprobe] (the command line wins),
    and the file they came from."""
    try:
        project = config_file.resolve(ns)
    except config_file.ConfigFileError as exc:
        raise UsageError(str(exc)) from None
    if project is None:
        return (), None
    if keys is not None:
        project = config_file.only(project, keys)
    config_file.apply_defaults(ns, project, argv)
    return tuple(project.overrides), project.path


def _invocation(args: _AuditArgs) -> AuditInvocation:
    """Stage two of ``parse_audit``: everything else (loads the baseline report: pydantic)."""
    ns, spec = args.ns, args.spec
    return AuditInvocation(
        spec=spec,
        fuzz=args.fuzz,
        fuzz_writes=ns.fuzz_writes or ns.fuzz_destructive,
        fuzz_destructive=ns.fuzz_destructive,
        max_tools=ns.max_tools or DEFAULT_MAX_TOOLS,
        tools=tuple(ns.tools) if ns.tools else None,
        skip_tools=tuple(ns.skip_tools or ()),
        concurrency=ns.concurrency,
        overall_timeout=ns.overall_timeout,
        output_format=args.output_format,
        output=args.output,
        sarif_artifact=ns.sarif_artifact,
        fail_under=ns.fail_under,
        fail_on_critical=ns.fail_on_critical,
        allow_static=ns.allow_static,
        console_mode=console.Console.from_namespace(ns),
        summary=args.summary,
        baseline=_load_baseline(ns.baseline)
        if ns.baseline is not None and Path(ns.baseline).is_file()
        else None,
        fail_on_regression=ns.fail_on_regression,
        baseline_path=Path(ns.baseline) if ns.baseline is not None else None,
        baseline_update=ns.baseline_update,
        overrides=args.overrides,
        lock=_load_lock(ns.lock),
        fail_on_drift=ns.fail_on_drift,
        surface=not ns.no_surface,
        examples=ns.examples,
        reports=args.reports,
        report_dir=args.report_dir,
    )


def _load_lock(path: str | None) -> Any:
    if path is None:
        return None
    from mcprobe.report.pinning import parse_lock

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--lock: cannot read {path!r}: {exc}") from None
    return parse_lock(text, f"--lock {path!r}")


def _load_baseline(path: str | None) -> BaselineReport | None:
    if path is None:
        return None

    from mcprobe.report.baseline import BaselineError, load_baseline

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--baseline: cannot read {path!r}: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"--baseline: {path!r} is not JSON: {exc}") from None
    try:
        return load_baseline(data)
    except BaselineError as exc:
        raise UsageError(f"--baseline: {path!r}: {exc}") from None


# --------------------------------------------------------------------------- early start

# ``mcp.client.stdio.DEFAULT_INHERITED_ENV_VARS`` on POSIX: the SDK's minimal environment.
# Importing it would load the whole SDK, which is exactly what starting early avoids; a test
# keeps the copy equal to ``get_default_environment()``.
_INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


def _default_environment() -> dict[str, str]:
    return {
        name: value
        for name in _INHERITED_ENV
        if (value := os.environ.get(name)) is not None and not value.startswith("()")
    }


CANARY_PREFIX = "MCPROBE_CANARY_"  # = core.target_spec.CANARY_PREFIX (a test keeps them equal)


def _canary_pair() -> tuple[str, str]:
    import secrets

    return CANARY_PREFIX + secrets.token_hex(4).upper(), "mcprobe-canary-" + secrets.token_hex(12)


def _prespawn(args: _AuditArgs) -> subprocess.Popen[bytes] | None:
    """Start a stdio target now, before the MCP SDK and pydantic are imported (0.5-2 s), so it
    boots while mcprobe loads; ``open_target`` adopts it. Started exactly like
    ``stdio_transport.spawn_target`` (both call ``sandbox.start``). None for URL targets and when
    the command cannot be started: the transport then tries again and reports why, exactly as
    without pre-start."""
    if args.command is None or os.name != "posix":
        return None
    from mcprobe.client.transports.sandbox import start  # stdlib only

    env = dict(args.ns.env)
    try:
        return start(
            args.command,
            env=_default_environment() | env,
            cwd=args.ns.cwd,
            mode=args.ns.sandbox or "auto",
            named_env=env,
            paths=args.spec.example_paths,
        )
    except (OSError, UsageError):  # the transport tries again and says why
        return None


def _discard(started: subprocess.Popen[bytes]) -> None:
    """The CLI's safety net for a pre-started target: gone when the CLI returns, even if the
    audit never adopted it (an interrupt during the imports). A no-op once it was reaped."""
    if started.returncode is None and started.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(started.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            started.wait(timeout=_REAP_SECONDS)  # SIGKILLed: only a stuck kernel call waits
    from mcprobe.client.transports.lifeline import lifeline
    from mcprobe.client.transports.sandbox import release

    lifeline().release(started.pid)
    release(started.pid)  # its private copies (a no-op once the audit released them)
    for pipe in (started.stdin, started.stdout, started.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


# --------------------------------------------------------------------------- output


def _encodable(text: str) -> str:
    # A hostile target can smuggle lone surrogates into its text; no stream can encode them.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def connect_message(spec: TargetSpec, failure: BaseException) -> str:
    """``mcprobe: could not connect to TARGET: WHY``, the target named once (the reason may
    already be a whole sentence that names it)."""
    reason = str(failure)
    if reason.startswith("could not connect to "):
        return f"mcprobe: {reason}"
    return f"mcprobe: could not connect to {describe_target(spec)}: {reason}"


def describe_target(spec: TargetSpec) -> str:
    """The target for messages: the command line, or the URL without any userinfo."""
    from mcprobe.core.target_spec import TRANSPORTS_BY_NAME

    if TRANSPORTS_BY_NAME[spec.transport].needs == "command":
        return shlex.join([spec.command or "", *spec.args])
    parts = urlsplit(spec.url or "")
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _tail(text: str) -> str:
    lines = text.rstrip().splitlines()[-_STDERR_TAIL_LINES:]
    return "\n".join(f"  | {line}" for line in lines)


# --------------------------------------------------------------------------- running


def _close_grace() -> float | None:
    """``MCPROBE_CLOSE_GRACE``: seconds a stdio target may take to exit on stdin EOF once the
    report is written (default ``AFTER_REPORT_GRACE``, 0.1 s), then SIGTERM."""
    text = os.environ.get(CLOSE_GRACE_ENV)
    if text is None or not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 60:
        raise UsageError(
            f"{CLOSE_GRACE_ENV} must be a number of seconds from 0 to 60, got {text!r}"
        )
    return value


def _audit(
    invocation: AuditInvocation,
    progress: console.Progress | None,
    started: subprocess.Popen[bytes] | None = None,
    on_report: Callable[[ConformanceReport], None] | None = None,
) -> ConformanceReport:
    import anyio

    close_grace = _close_grace()

    async def go() -> ConformanceReport:
        return await run_invocation(
            invocation,
            progress=progress,
            started=started,
            on_report=on_report,
            close_grace=close_grace,
        )

    return anyio.run(go)


async def run_invocation(
    invocation: AuditInvocation, *, progress: console.Progress | None, **more: Any
) -> ConformanceReport:
    """The audit pipeline with everything ``invocation`` says; ``more``: what only one caller
    has (the pre-started target, the report callback, the close grace). One place, so that
    ``mcprobe audit`` and ``mcprobe audit --config`` (``audit_many``) audit alike (the latter
    used to copy the options one by one and had dropped ``--lock`` and the rule overrides)."""
    from mcprobe import _run_pipeline

    return await _run_pipeline(
        invocation.spec,
        fuzz=invocation.fuzz,
        fuzz_writes=invocation.fuzz_writes,
        fuzz_destructive=invocation.fuzz_destructive,
        max_tools=invocation.max_tools,
        tools=invocation.tools,
        skip_tools=invocation.skip_tools,
        concurrency=invocation.concurrency,
        overall_timeout=invocation.overall_timeout,
        progress=progress,
        overrides=invocation.overrides,
        lock=invocation.lock,
        surface=invocation.surface,
        examples=invocation.examples,
        words="cli",
        **more,
    )


def _find(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for sub in exc.exceptions:
            found = _find(sub, kind)
            if found is not None:
                return found
    return None


def _run_audit(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    # SIGTERM (a cancelled CI job) and SIGHUP stop an audit like Ctrl-C: the target is shut down.
    with termination.like_interrupt():
        if audit_many.wants_config(argv):
            return audit_many.run_configured(argv, stdout, stderr)
        args = _check_audit_args(argv, stdout)
        started = _prespawn(args)
        try:
            return _run_checked_audit(args, started, stdout, stderr)
        finally:
            if started is not None:
                _discard(started)


def _interrupted(say: Callable[[str], None]) -> int:
    """Ctrl-C, or SIGTERM / SIGHUP routed to it (``termination``): one line, 130 / 143 / 129."""
    signum = termination.received()
    if signum is None:
        say("mcprobe: interrupted")
        return EXIT_INTERRUPTED
    say(f"mcprobe: stopped by {signal.Signals(signum).name}; the target was shut down")
    return 128 + signum


def _run_checked_audit(
    args: _AuditArgs, started: subprocess.Popen[bytes] | None, stdout: TextIO, stderr: TextIO
) -> int:
    from mcprobe.core.errors import ConnectFailed, McprobeError
    from mcprobe.report.redact import Redactor

    invocation = _invocation(args)
    redactor = Redactor.of(invocation.spec.secret_values())

    def say(text: str) -> None:
        stderr.write(_encodable(redactor.prose(text)) + "\n")

    if args.config_path is not None and not invocation.console_mode.quiet:
        say(config_line(args.config_path))
    progress = invocation.console_mode.progress(stderr, fuzz=invocation.fuzz)
    try:
        with invocation.console_mode.timeline(say):
            return _audit_and_report(invocation, progress, stdout, say, started)
    except BaseException as exc:
        if progress is not None:
            progress.finish()
        connect = _find(exc, ConnectFailed)
        if isinstance(connect, ConnectFailed):
            say(connect_message(invocation.spec, connect))
            if connect.stderr_tail.strip():
                say("mcprobe: the target's stderr ended with:\n" + _tail(connect.stderr_tail))
            return EXIT_CONNECT
        if _find(exc, KeyboardInterrupt) is not None:
            return _interrupted(say)
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
    # The report is written while the target is still open (``audit_spec``'s on_report), so
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
        rendered += "  full report: --format md|html|json|sarif|junit, or --output FILE\n"
    else:
        rendered = render_report(
            report,
            invocation.output_format,  # type: ignore[arg-type]
            sarif_artifact=invocation.sarif_artifact,
        )
    text = _encodable(rendered)
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
            path.write_text(_encodable(render_report(report, "json")), encoding="utf-8")
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
    if not invocation.fuzz or report.coverage is None or report.coverage.total_tools == 0:
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
        return _run_audit(args[1:], stdout, stderr)
    except UsageError as exc:
        stderr.write(f"mcprobe: usage error: {_encodable(str(exc))} (see mcprobe --help)\n")
        return EXIT_USAGE
    except _Exit as exc:
        return exc.code
    except KeyboardInterrupt:

        def say(line: str) -> None:
            stderr.write(line + "\n")

        return _interrupted(say)


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
