"""Several report files from one audit: ``mcprobe audit --report json,sarif,html,junit
--report-dir DIR`` (beside what goes to stdout), and ``mcprobe render REPORT.json`` to render a
saved JSON report again in any format, without a second audit.

Each file is ``DIR/mcprobe-report.EXT`` (``.md``, ``.json``, ``.sarif``, ``.junit.xml``,
``.html``); the directory is created when missing. Every file is rendered from the one report
(the same bytes ``--format`` gives). Stdlib only at import time: the CLI checks its arguments
before the heavy imports.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from mcprobe.core.errors import UsageError
from mcprobe.report.formats import FORMAT_NAMES, expected_names, output_format

if TYPE_CHECKING:
    from mcprobe.report.model import ConformanceReport

__all__ = ["STEM", "add_arguments", "file_name", "parse_list", "run_render", "write_reports"]

STEM = "mcprobe-report"


def file_name(fmt: str) -> str:
    """``mcprobe-report.json`` and so on: the name of format ``fmt`` in a report directory
    (its registered ``suffix``, as ``--config --output-dir`` names its files)."""
    return STEM + output_format(fmt).suffix


def parse_list(text: str) -> tuple[str, ...]:
    """``json,sarif,html`` → the formats, in the order given, each once; a usage error names an
    unknown one (argparse ``type=``)."""
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected a comma list of {', '.join(FORMAT_NAMES)}")
    unknown = [name for name in names if name not in FORMAT_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown report format {unknown[0]!r}: expected a comma list of "
            f"{', '.join(FORMAT_NAMES)}"
        )
    return tuple(dict.fromkeys(names))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--report",
        type=parse_list,
        metavar="LIST",
        help=f"also write these formats (comma list of {','.join(FORMAT_NAMES)}) to --report-dir "
        "as mcprobe-report.EXT, from the same audit",
    )
    parser.add_argument(
        "--report-dir",
        metavar="DIR",
        help="where --report writes its files (default: the current directory; created if missing)",
    )


def check(ns: argparse.Namespace) -> tuple[tuple[str, ...], Path | None]:
    """The ``--report`` formats and their directory; usage errors before anything starts."""
    formats: tuple[str, ...] = ns.report or ()
    if ns.report_dir is not None and not formats:
        raise UsageError("--report-dir needs --report LIST (e.g. --report json,sarif,html)")
    if not formats:
        return (), None
    folder = Path(ns.report_dir or ".")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--report-dir: {str(folder)!r} exists and is not a directory")
    return formats, folder


def write_reports(
    report: ConformanceReport,
    formats: Sequence[str],
    folder: Path,
    say: Callable[[str], None],
    *,
    sarif_artifact: str | None = None,
    quiet: bool = False,
) -> bool:
    """Render ``report`` in each format into ``folder``; False (said) when one cannot be
    written. The report was scrubbed when it was built: the text is written as is."""
    from mcprobe import render_report

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        say(f"mcprobe: cannot create --report-dir {str(folder)!r}: {exc.strerror or exc}")
        return False
    for fmt in formats:
        path = folder / file_name(fmt)
        text = render_report(report, fmt, sarif_artifact=sarif_artifact)  # type: ignore[arg-type]
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            say(f"mcprobe: cannot write {str(path)!r}: {exc.strerror or exc}")
            return False
        if not quiet:
            say(f"mcprobe: {fmt} report written to {path}")
    return True


# --------------------------------------------------------------------------- mcprobe render

_RENDER_HELP = """\
usage: mcprobe render REPORT.json --format FORMAT [--output FILE] [--sarif-artifact PATH]
       mcprobe render REPORT.json --report LIST [--report-dir DIR] [--sarif-artifact PATH]
       mcprobe render REPORT.json --step-summary FILE [--baseline OLD.json] [--exit-code N]

Render a JSON report saved by `mcprobe audit --format json` (or --report json) again, in any
format, without auditing again: {formats}. --format prints one to stdout
(or --output FILE); --report writes several to --report-dir as mcprobe-report.EXT;
--step-summary appends the short CI job summary (score, dimensions, criticals, the comparison
with --baseline, whether the step failed with --exit-code, the full report folded) to FILE,
e.g. $GITHUB_STEP_SUMMARY.

exit codes: 0 rendered, 1 usage error (bad option, unreadable or invalid report).
"""


def _render_parser(out: TextIO) -> argparse.ArgumentParser:
    from mcprobe.cli.parser import Parser

    p = Parser(out, prog="mcprobe render", add_help=False, allow_abbrev=False)
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("report_file", nargs="?", metavar="REPORT.json")
    p.add_argument("--format", choices=FORMAT_NAMES)
    p.add_argument("--output", metavar="FILE")
    p.add_argument("--sarif-artifact", metavar="PATH")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("--step-summary", metavar="FILE")
    p.add_argument("--baseline", metavar="OLD.json")
    p.add_argument("--exit-code", type=int, metavar="N")
    add_arguments(p)
    return p


def load_report(path: Path, what: str) -> ConformanceReport:
    """A JSON report from disk, checked against the report model; a one-line usage error."""
    from pydantic import ValidationError

    from mcprobe.report.model import ConformanceReport

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{what}: cannot read {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{what}: {str(path)!r} is not UTF-8 text") from None
    try:
        return ConformanceReport.model_validate_json(text)
    except ValidationError as exc:
        error = exc.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(part) for part in error["loc"]) or "the document"
        raise UsageError(
            f"{what}: {str(path)!r} is not an mcprobe JSON report ({where}: {error['msg']})"
        ) from None


def run_render(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    ns = _render_parser(stdout).parse_args(list(argv))
    if ns.help:
        stdout.write(_RENDER_HELP.format(formats=expected_names()))
        return 0
    if ns.report_file is None:
        raise UsageError("mcprobe render needs REPORT.json (a report from --format json)")
    if ns.format is not None and ns.report is not None:
        raise UsageError("give --format FORMAT (one, to stdout) or --report LIST (files)")
    if ns.format is None and ns.report is None and ns.step_summary is None:
        raise UsageError(
            "give --format FORMAT (one, to stdout), --report LIST (files) or --step-summary FILE"
        )
    if (ns.baseline is not None or ns.exit_code is not None) and ns.step_summary is None:
        raise UsageError("--baseline and --exit-code go with --step-summary FILE")
    if ns.output is not None and ns.format is None:
        raise UsageError("--output goes with --format; --report writes to --report-dir")
    formats, folder = check(ns)
    wanted = formats or ((ns.format,) if ns.format else ())
    if ns.sarif_artifact is not None and "sarif" not in wanted:
        raise UsageError("--sarif-artifact only applies to the sarif format")
    report = load_report(Path(ns.report_file), "render")

    def say(line: str) -> None:
        stderr.write(line + "\n")

    if ns.step_summary is not None and not _step_summary(report, ns, say):
        return 1
    if folder is not None:
        done = write_reports(
            report, formats, folder, say, sarif_artifact=ns.sarif_artifact, quiet=ns.quiet
        )
        return 0 if done else 1
    if ns.format is None:
        return 0
    from mcprobe import render_report

    text = render_report(report, ns.format, sarif_artifact=ns.sarif_artifact)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if ns.output is None:
        stdout.write(text)
        return 0
    try:
        Path(ns.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        say(f"mcprobe: cannot write --output {ns.output!r}: {exc.strerror}")
        return 1
    return 0


def _step_summary(
    report: ConformanceReport, ns: argparse.Namespace, say: Callable[[str], None]
) -> bool:
    """Append the CI job summary to ``ns.step_summary``; False (said) when it cannot."""
    from mcprobe.cli.exit_codes import EXIT_CODES
    from mcprobe.report.render.markdown import render_markdown
    from mcprobe.report.render.step_summary import render_step_summary

    compared: list[str] = []
    if ns.baseline is not None:
        import json

        from mcprobe.report.baseline import BaselineError, BaselineReport, compare, load_baseline
        from mcprobe.report.render.baseline_text import render_baseline
        from mcprobe.report.render.json_report import report_to_jsonable

        try:
            before = load_baseline(json.loads(Path(ns.baseline).read_text(encoding="utf-8")))
        except (OSError, ValueError, BaselineError) as exc:
            raise UsageError(f"--baseline: {ns.baseline!r}: {exc}") from None
        now = BaselineReport.model_validate(report_to_jsonable(report))
        compared = [line.strip() for line in render_baseline(compare(before, now))]
    text = render_step_summary(report, compared)
    if ns.exit_code:
        meaning = next((e.meaning for e in EXIT_CODES if e.code == ns.exit_code), "see the log")
        text += f"\n**✗ This step failed: mcprobe exit {ns.exit_code}, {meaning}.**\n"
    text += "\n<details><summary>Full report</summary>\n\n" + render_markdown(report)
    text += "\n</details>\n"
    try:
        with open(ns.step_summary, "a", encoding="utf-8") as handle:
            handle.write(text.encode("utf-8", "backslashreplace").decode("utf-8"))
    except OSError as exc:
        say(f"mcprobe: cannot write --step-summary {ns.step_summary!r}: {exc.strerror}")
        return False
    return True
