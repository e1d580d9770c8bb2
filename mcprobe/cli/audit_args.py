"""``mcprobe audit``'s command line (and ``mcprobe pin``'s, a subset): the parser, then two
stages. ``check_audit_args`` (stage one, stdlib only) finds every usage error before a stdio
target is started; ``invocation_of`` (stage two) loads what needs pydantic and builds the
``AuditInvocation``: the ``AuditRequest`` every front-end builds, plus what the CLI does with
the report. Also the few helpers the other commands share (``encodable``, ``connect_message``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit, urlunsplit

from mcprobe.cli import config_file, console, exit_codes, outputs, server_json
from mcprobe.cli.examples_file import read_examples_file
from mcprobe.cli.parser import Parser
from mcprobe.client.inherited_env import default_environment
from mcprobe.core.errors import UsageError  # one class for every bad-input path: exit 1
from mcprobe.report import formats as report_formats
from mcprobe.report.formats import output_format as output_format_named

if TYPE_CHECKING:
    from mcprobe.core.lint.suppress import RuleOverride
    from mcprobe.core.target_spec import TargetSpec
    from mcprobe.engine.request import AuditRequest
    from mcprobe.report.baseline import BaselineReport


TOKEN_ENV = "MCPROBE_TARGET_TOKEN"


DEFAULT_MAX_TOOLS = 50


DEBUG_ENV = "MCPROBE_DEBUG"


CLOSE_GRACE_ENV = "MCPROBE_CLOSE_GRACE"


_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


_STDERR_TAIL_LINES = 20


_REAP_SECONDS = 2.0


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


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 0, got {text!r}")
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


def audit_parser(out: TextIO, command: str = "audit") -> Parser:
    """The parser of ``mcprobe audit``; ``command="pin"``: the same target options under
    ``mcprobe pin``'s own name, usage and help (the audit-only options hidden from it)."""
    p = Parser(
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
        "server_json", "entry",
    }
)  # fmt: skip


def _add_audit_arguments(p: Parser) -> None:
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
        "--deep",
        action="store_true",
        help="after the fuzz calls, the deep pass: each working valid call again with one field "
        "changed at a time to a schema-valid edge value (implies --fuzz; about 3 s per tool)",
    )
    p.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        help="with --deep: the seed of its edge values (default 0; the report prints it)",
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
    _add_config_arguments(p)
    p.add_argument(
        "--server-json",
        metavar="FILE",
        help="the target as published to the MCP registry: a server.json's first package (stdio: "
        "npx, uvx or docker, which must have the package installed or cached) or, without "
        "packages, its first remote (URL and headers); --env / --header give what it requires",
    )
    p.add_argument(
        "--entry",
        metavar="KIND:N",
        help="with --server-json: which entry, package:N or remote:N (numbered from 0)",
    )
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


DEFAULT_PARALLEL = 2  # --parallel (cli/many.py)


def _add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """``mcprobe audit --config`` (``cli/many.py``) options, parsed there."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="audit the servers of a host config (Claude Desktop, Cursor, VS Code, Claude Code)",
    )
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="NAME",
        help="with --config: only this server (repeatable; default: every enabled server)",
    )
    parser.add_argument(
        "--output-dir", metavar="DIR", help="with --config: write one report per server here"
    )
    parser.add_argument(
        "--parallel",
        metavar="N",
        help=f"with --config: audit at most N servers at once (default {DEFAULT_PARALLEL})",
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


@dataclass(frozen=True)
class AuditInvocation:
    """A parsed, validated ``mcprobe audit`` command line: the audit it asks for (``request``,
    the one shape every front-end builds) and what the CLI does with the report."""

    request: AuditRequest
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
    fail_on_drift: bool = False
    reports: tuple[str, ...] = ()  # --report LIST: also written to report_dir
    report_dir: Path | None = None


@dataclass(frozen=True)
class AuditArgs:
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
    return invocation_of(check_audit_args(argv, out))


def check_audit_args(
    argv: Sequence[str],
    out: TextIO,
    config_keys: Collection[str] | None = None,
    name: str = "audit",
) -> AuditArgs:
    """Stage one of ``parse_audit``: stdlib only (it runs before the target is started).
    ``config_keys``: which of the config file's ``[audit]``/``[gates]`` defaults apply (None:
    all; ``mcprobe pin`` takes the timeouts only). ``name``: the command (``pin`` reuses it)."""
    argv, published = server_json.split(argv)
    if published is not None:  # --server-json FILE: the published entry becomes the target
        _no_other_target(audit_parser(out, name), argv)
        argv = server_json.expand(
            [*argv, "--server-json", published[0]]
            + (["--entry", published[1]] if published[1] is not None else [])
        )
    command: list[str] | None = None
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1 :]
    ns = audit_parser(out, name).parse_args(argv)
    if ns.config is not None or ns.server or ns.output_dir or ns.parallel:
        raise UsageError("--server, --output-dir and --parallel need --config FILE (before --)")
    overrides, config_path = _apply_config_file(ns, argv, config_keys)

    targets = [ns.url is not None, ns.stdio is not None, command is not None]
    if sum(targets) != 1:
        raise UsageError(
            "give exactly one target: a URL, -- COMMAND [ARG ...], --stdio 'COMMAND STRING' "
            "or --server-json FILE"
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
    fuzz = ns.fuzz or ns.fuzz_writes or ns.fuzz_destructive or ns.deep
    if ns.seed is not None and not ns.deep:
        raise UsageError("--seed needs --deep: it seeds the deep pass's edge values")
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
    return AuditArgs(
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


def _no_other_target(parser: Parser, argv: list[str]) -> None:
    """--server-json is the target: no URL, --stdio or -- COMMAND beside it."""
    if "--" in argv:
        raise UsageError("--server-json is the target: give no -- COMMAND beside it")
    ns = parser.parse_args(argv)
    if ns.url is not None or ns.stdio is not None:
        raise UsageError(
            "give exactly one target: --server-json FILE is one, so no URL or --stdio beside it"
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
    return f"mcprobe: config file {encodable(str(path))}"


def _spec(ns: argparse.Namespace, command: list[str] | None) -> TargetSpec:
    from mcprobe.core.target_spec import DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, target_spec

    if command is not None:
        # The canary (client/canary.py) is planted here, stdlib only, so that the pre-started
        # target (which reads ns.env) and the spec share it; engine.audit keeps a canary it finds.
        ns.env = [*ns.env, canary_pair(getattr(ns, "seed", None))]
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


def invocation_of(args: AuditArgs) -> AuditInvocation:
    """Stage two of ``parse_audit``: everything else (loads the baseline report: pydantic)."""
    from mcprobe.engine.request import AuditRequest

    ns = args.ns
    more: dict[str, Any] = {} if ns.concurrency is None else {"concurrency": ns.concurrency}
    request = AuditRequest(
        args.spec,
        fuzz=args.fuzz,
        fuzz_writes=ns.fuzz_writes,
        fuzz_destructive=ns.fuzz_destructive,
        deep=ns.deep,
        seed=ns.seed,
        max_tools=ns.max_tools or DEFAULT_MAX_TOOLS,
        include=tuple(ns.tools) if ns.tools else None,
        skip_tools=tuple(ns.skip_tools or ()),
        overall_timeout=ns.overall_timeout,
        overrides=args.overrides,
        lock=_load_lock(ns.lock),
        surface=not ns.no_surface,
        examples=ns.examples or {},
        **more,
    )
    grace = _close_grace()
    if grace is not None:
        request = dataclasses.replace(request, close_grace=grace)
    return AuditInvocation(
        request=request,
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
        fail_on_drift=ns.fail_on_drift,
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


CANARY_PREFIX = "MCPROBE_CANARY_"  # = core.target_spec.CANARY_PREFIX (a test keeps them equal)


def canary_pair(seed: int | None = None) -> tuple[str, str]:
    """A random canary; with an explicit ``--seed``, the one that seed gives
    (``core.target_spec.seeded_canary``, equal by a test), so a seeded run repeats byte for byte."""
    if seed is not None:
        import hashlib

        digest = hashlib.sha256(f"mcprobe-canary-seed:{seed}".encode()).hexdigest()
        return CANARY_PREFIX + digest[:8].upper(), "mcprobe-canary-" + digest[8:32]
    import secrets

    return CANARY_PREFIX + secrets.token_hex(4).upper(), "mcprobe-canary-" + secrets.token_hex(12)


def prespawn(args: AuditArgs) -> subprocess.Popen[bytes] | None:
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
            env=default_environment() | env,
            cwd=args.ns.cwd,
            mode=args.ns.sandbox or "auto",
            named_env=env,
            paths=args.spec.example_paths,
        )
    except (OSError, UsageError):  # the transport tries again and says why
        return None


def discard(started: subprocess.Popen[bytes]) -> None:
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


def encodable(text: str) -> str:
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


def stderr_tail(text: str) -> str:
    lines = text.rstrip().splitlines()[-_STDERR_TAIL_LINES:]
    return "\n".join(f"  | {line}" for line in lines)


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
