"""``mcprobe audit --config FILE [--server NAME]… [--output-dir DIR] [--parallel N] [options]``
and ``mcprobe scan``.

Every selected server of a host config (``host_config``) is audited with the same options, each
exactly as ``mcprobe audit`` would (its argv is checked by ``cli.parse_audit``), at most
``--parallel`` at a time (default 2). With ``--output-dir`` (created if missing) each report is
written there as ``NAME.EXT`` (``--json`` / ``--format`` with several servers need it: stdout
gets the table, never a report); a summary table (server, score, grade, critical, security)
goes to stdout, and the exit code is the worst of the servers': 5, 2, 4, 7, 3, 0 in that order
(internal error and could-not-connect first, then the gates; a code not in this list counts
as the worst).

One selected server and no ``--output-dir``: the plain single audit (report on stdout).
"""

from __future__ import annotations

import io
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from mcprobe.cli.audit_args import DEFAULT_PARALLEL
from mcprobe.cli.host_config import ConfigError, HostServer, find_configs, read_config, server_argv
from mcprobe.report.formats import output_format

if TYPE_CHECKING:
    from mcprobe.cli.audit_args import AuditInvocation
    from mcprobe.report.model import ConformanceReport

WORST_FIRST = (5, 2, 4, 7, 3, 0)
_OWN = {"--config": True, "--server": True, "--output-dir": True, "--parallel": True}


def wants_config(argv: Sequence[str]) -> bool:
    own = list(argv)[: list(argv).index("--")] if "--" in argv else list(argv)
    if "-h" in own or "--help" in own:
        return False  # the audit parser prints the help
    return any(a == "--config" or a.startswith("--config=") for a in own)


def _split(argv: Sequence[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Our options out of ``argv``; the rest (the shared audit options) stays in order."""
    mine: dict[str, list[str]] = {name: [] for name in _OWN}
    rest: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        arg = items[i]
        name, eq, value = arg.partition("=")
        if name in _OWN:
            if not eq:
                if i + 1 >= len(items):
                    raise _usage(f"{name} needs a value")
                value = items[i + 1]
                i += 1
            mine[name].append(value)
        elif arg == "--":
            raise _usage("--config gives the targets: no -- COMMAND with it")
        else:
            rest.append(arg)
        i += 1
    return mine, rest


def _usage(message: str) -> Exception:
    from mcprobe.core.errors import UsageError

    return UsageError(message)


def _select(servers: list[HostServer], names: list[str], path: str) -> list[HostServer]:
    if not names:
        chosen = [s for s in servers if not s.disabled]
        if not chosen:
            raise _usage(f"--config {path!r}: no enabled server in it")
        return chosen
    by_name = {s.name: s for s in servers}
    missing = [n for n in names if n not in by_name]
    if missing:
        known = ", ".join(sorted(by_name)) or "none"
        raise _usage(f"--server {missing[0]!r} is not in {path!r} (servers: {known})")
    return [by_name[n] for n in dict.fromkeys(names)]


@dataclass
class _Row:
    server: str
    code: int
    report: ConformanceReport | None = None
    problem: str | None = None


def run_configured(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    from mcprobe.cli.audit_args import check_audit_args, config_line, invocation_of
    from mcprobe.cli.audit_run import run_audit

    mine, rest = _split(argv)
    if len(mine["--config"]) != 1:
        raise _usage("give --config once")
    if len(mine["--output-dir"]) > 1 or len(mine["--parallel"]) > 1:
        raise _usage("--output-dir and --parallel are given once")
    path = mine["--config"][0]
    out_dir = Path(mine["--output-dir"][0]) if mine["--output-dir"] else None
    parallel = DEFAULT_PARALLEL
    if mine["--parallel"]:
        text = mine["--parallel"][0]
        if not text.isdigit() or int(text) < 1:
            raise _usage(f"--parallel: expected a whole number ≥ 1, got {text!r}")
        parallel = int(text)
    try:
        listed = _select(read_config(Path(path), resolve=False), mine["--server"], path)
        names = {server.name for server in listed}
        servers = [s for s in read_config(Path(path), only=names) if s.name in names]
    except ConfigError as exc:
        raise _usage(f"--config: {exc}") from None
    if len(servers) == 1 and out_dir is None:
        return run_audit([*rest, *server_argv(servers[0])], stdout, stderr)
    if any(
        a in ("--output", "--baseline", "--examples", "--report", "--report-dir")
        or a.startswith(("--output=", "--baseline=", "--examples=", "--report=", "--report-dir="))
        for a in rest
    ):
        raise _usage(
            "several servers: use --output-dir (one report each); --output, --report, "
            "--baseline and --examples apply to one --server"
        )
    checked = [check_audit_args([*rest, *server_argv(s)], io.StringIO()) for s in servers]
    asked = next((a.ns for a in checked if a.ns.format or a.ns.json), None)
    if out_dir is None and asked is not None:
        named = "--json" if asked.json else f"--format {asked.format}"
        raise _usage(
            f"several servers: {named} needs --output-dir DIR (one report per server there); "
            "stdout gets the summary table"
        )
    if out_dir is not None:
        _make_dir(out_dir)
    invocations = [(s, invocation_of(a)) for s, a in zip(servers, checked, strict=True)]
    config = checked[0].config_path
    if config is not None and not invocations[0][1].console_mode.quiet:
        stderr.write(config_line(config) + "\n")
    rows = _audit_all(invocations, parallel, out_dir, stderr)
    stdout.write(summary_table(rows))
    stdout.flush()
    return min((row.code for row in rows), key=_rank, default=0)


def _make_dir(out_dir: Path) -> None:
    """``--output-dir`` is created (with its parents) when it does not exist yet."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise _usage(f"--output-dir: {str(out_dir)!r} exists and is not a directory") from None
    except OSError as exc:
        raise _usage(f"--output-dir: cannot create {str(out_dir)!r}: {exc.strerror}") from None


def _rank(code: int) -> int:
    # A code this table does not know (another gate's) counts as the worst: never hide it.
    return WORST_FIRST.index(code) if code in WORST_FIRST else -1


def _file_name(name: str, fmt: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "server"
    return safe + output_format(fmt).suffix


def _audit_all(
    invocations: list[tuple[HostServer, AuditInvocation]],
    parallel: int,
    out_dir: Path | None,
    stderr: TextIO,
) -> list[_Row]:
    import anyio

    from mcprobe.cli.console import Progress

    rows: list[_Row] = [_Row(server.name, 0) for server, _ in invocations]

    async def one(index: int, server: HostServer, invocation: AuditInvocation) -> None:
        from mcprobe.report.redact import Redactor

        redactor = Redactor.of(invocation.request.spec.secret_values())

        def say(text: str) -> None:
            stderr.write(redactor.prose(f"mcprobe: [{_clean(server.name)}] {text}") + "\n")

        progress = None
        if invocation.request.fuzz and not invocation.console_mode.quiet:
            progress = Progress(stderr, mode="per-tool", prefix=f"[{_clean(server.name)}] ")
        rows[index] = await _audit_one(server, invocation, progress, out_dir, say)

    async def main() -> None:
        limiter = anyio.CapacityLimiter(parallel)

        async def bounded(index: int, server: HostServer, invocation: AuditInvocation) -> None:
            async with limiter:
                await one(index, server, invocation)

        async with anyio.create_task_group() as tg:
            for index, (server, invocation) in enumerate(invocations):
                tg.start_soon(bounded, index, server, invocation)

    anyio.run(main)
    return rows


async def _audit_one(
    server: HostServer,
    invocation: AuditInvocation,
    progress: object,
    out_dir: Path | None,
    say: object,
) -> _Row:
    from mcprobe import render_report
    from mcprobe.cli.audit_run import evaluate_gates, run_invocation
    from mcprobe.cli.exit_codes import EXIT_CONNECT, EXIT_INTERNAL, EXIT_USAGE
    from mcprobe.core.errors import ConnectFailed, UsageError

    assert callable(say)
    try:
        # from mcprobe.toml, examples are checked against this server's tools
        report = await run_invocation(invocation, progress=progress)  # type: ignore[arg-type]
    except ConnectFailed as exc:
        say(f"could not connect: {exc}")
        return _Row(server.name, EXIT_CONNECT, problem="could not connect")
    except UsageError as exc:  # e.g. an example for a tool this server does not list
        say(f"usage error: {exc}")
        return _Row(server.name, EXIT_USAGE, problem="usage error")
    except Exception as exc:  # one server's bug must not take the others down
        say(f"internal error: {type(exc).__name__}: {exc}")
        return _Row(server.name, EXIT_INTERNAL, problem="internal error")
    if out_dir is not None:
        fmt = invocation.output_format
        text = render_report(report, fmt, sarif_artifact=invocation.sarif_artifact)  # type: ignore[arg-type]
        target = out_dir / _file_name(server.name, fmt)
        target.write_text(text, encoding="utf-8")  # rendered from the scrubbed report
        if not invocation.console_mode.quiet:
            say(f"{fmt} report written to {target}")
    return _Row(server.name, evaluate_gates(invocation, report, say), report=report)


def _clean(text: str, limit: int = 60) -> str:
    # Names and commands come from a file anyone may have edited: no escapes reach a terminal.
    from mcprobe.report.render.escape import ELLIPSIS, clean_text

    cleaned, truncated = clean_text(text, limit)
    return cleaned + (ELLIPSIS if truncated else "")


def _security(report: ConformanceReport) -> str:
    codes = [f for f in report.findings if f.code.startswith("security.")]
    measured = codes or any(d.key == "security" for d in report.dimensions)
    return str(len(codes)) if measured else "n/a"


def summary_table(rows: list[_Row]) -> str:
    """One line per server: score, grade, critical count, security findings, exit code."""
    header = ("server", "score", "grade", "critical", "security", "exit")
    table = [header]
    for row in rows:
        report = row.report
        if report is None:
            table.append((_clean(row.server), row.problem or "-", "-", "-", "-", str(row.code)))
            continue
        score = "not graded" if report.overall is None else str(report.overall)
        critical = str(len(report.critical)) if report.coverage is not None else "not fuzzed"
        table.append(
            (_clean(row.server), score, report.grade, critical, _security(report), str(row.code))
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    return "".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip() + "\n"
        for line in table
    )


# --------------------------------------------------------------------------- scan


def run_scan(argv: Sequence[str], stdout: TextIO) -> int:
    """``mcprobe scan [--json]``: the well-known host configs here and their servers."""
    if list(argv) not in ([], ["--json"], ["-h"], ["--help"]):
        raise _usage("expected: mcprobe scan [--json]")
    if argv and argv[0] in ("-h", "--help"):
        stdout.write(
            "usage: mcprobe scan [--json]\n\nList the MCP servers in the well-known host configs\n"
            "(Claude Desktop, Cursor, VS Code, Claude Code, Windsurf) under $HOME and the\n"
            "current directory. Audit them with mcprobe audit --config FILE [--server NAME].\n"
        )
        return 0
    home = Path(os.environ.get("HOME") or Path.home())
    found = []
    for host, path in find_configs(home, Path.cwd()):
        try:
            servers, problem = read_config(path, resolve=False), None
        except ConfigError as exc:
            servers, problem = [], str(exc)
        found.append((host, path, servers, problem))
    if argv == ["--json"]:
        import json

        doc = [
            {
                "host": host,
                "file": str(path),
                "error": problem,
                "servers": [
                    {
                        "name": s.name,
                        "transport": s.transport,
                        "command": s.command,
                        "args": list(s.args),
                        "envNames": sorted(s.env),
                        "url": s.url,
                        "headerNames": sorted(s.headers),
                        "disabled": s.disabled,
                    }
                    for s in servers
                ],
            }
            for host, path, servers, problem in found
        ]
        stdout.write(json.dumps(doc, indent=2) + "\n")
        return 0
    if not found:
        stdout.write("no MCP host config found (looked under $HOME and the current directory)\n")
        return 0
    for host, path, servers, problem in found:
        stdout.write(f"{host}: {path}\n")
        if problem:
            stdout.write(f"  cannot read: {_clean(problem)}\n")
        for s in servers:
            off = "  [disabled]" if s.disabled else ""
            stdout.write(f"  {_clean(s.name)}  {s.transport}  {_clean(s.describe(), 300)}{off}\n")
        if servers:
            quoted = _clean(shlex.quote(str(path)), 300)
            stdout.write(f"  audit: mcprobe audit --config {quoted} --server NAME\n")
    return 0
