"""The output format registry: one ``OutputFormat`` per report format (its ``--format`` name,
MIME type, file extension, the options it takes, and its renderer).

The CLI's ``--format`` choices and help, ``format`` in ``mcprobe.toml``, the file names of
``--config --output-dir``, the library's ``render_report(format=...)``, the MCP server's
``probe_report`` ``format`` (and its description) and anything else that renders a report read
this table. Importing
it is cheap: each renderer module is imported only when its format is rendered (the CLI checks
its arguments before the heavy imports).

To add a format: a renderer module in ``mcprobe/report/render/`` (``render_x(report) -> str``,
pure); here, its wrapper (after the others), its ``OutputFormat`` (last in ``FORMATS``) and its
name in ``ReportFormat`` just below them (a static ``Literal`` so type checkers see the names; a
test keeps it equal to ``FORMATS``); its entry in docs/cli.md "Output formats"; and a test that
names it. Every message and test that lists the formats derives the list from ``FORMAT_NAMES``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from mcprobe.report.model import ConformanceReport

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "OutputFormat",
    "RenderOptions",
    "ReportFormat",
    "expected_names",
    "output_format",
    "render",
]


@dataclass(frozen=True)
class RenderOptions:
    """Options some formats take (``OutputFormat.options`` names the ones each accepts)."""

    sarif_artifact: str | None = None


@dataclass(frozen=True)
class OutputFormat:
    name: str  # as ``--format`` and ``render_report(format=...)`` spell it
    title: str
    mime: str
    extension: str
    render: Callable[[ConformanceReport, RenderOptions], str]
    options: frozenset[str] = frozenset()  # RenderOptions fields this format uses
    output_suffix: str | None = None  # ``--output-dir`` file names end so (None: ``extension``)

    @property
    def suffix(self) -> str:
        """How ``--config --output-dir`` ends this format's file names (``server.sarif``)."""
        return self.extension if self.output_suffix is None else self.output_suffix


def _markdown(report: ConformanceReport, _: RenderOptions) -> str:
    from mcprobe.report.render.markdown import render_markdown

    text = render_markdown(report)
    return text if text.endswith("\n") else text + "\n"


def _json(report: ConformanceReport, _: RenderOptions) -> str:
    from mcprobe.report.render.json_report import render_json

    return render_json(report)


def _sarif(report: ConformanceReport, options: RenderOptions) -> str:
    from mcprobe.report.render.sarif import render_sarif

    return render_sarif(report, artifact_uri=options.sarif_artifact)


def _junit(report: ConformanceReport, _: RenderOptions) -> str:
    from mcprobe.report.render.junit import render_junit

    return render_junit(report)


def _html(report: ConformanceReport, _: RenderOptions) -> str:
    from mcprobe.report.render.html import render_html

    return render_html(report)


FORMATS: tuple[OutputFormat, ...] = (
    OutputFormat("md", "Markdown", "text/markdown", ".md", _markdown),
    OutputFormat("json", "JSON", "application/json", ".json", _json),
    OutputFormat(
        "sarif",
        "SARIF 2.1.0",
        "application/sarif+json",
        ".sarif",
        _sarif,
        options=frozenset({"sarif_artifact"}),
    ),
    OutputFormat(
        "junit", "JUnit XML", "application/xml", ".xml", _junit, output_suffix=".junit.xml"
    ),
    OutputFormat("html", "HTML", "text/html", ".html", _html),
)
ReportFormat = Literal["md", "json", "sarif", "junit", "html"]
"""The names of ``FORMATS``, for type checkers (a test keeps the two equal)."""
FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS)


def expected_names() -> str:
    """The format names as a sentence lists them: ``md, json, sarif, junit or html``."""
    *first, last = FORMAT_NAMES
    return f"{', '.join(first)} or {last}"


def output_format(name: str) -> OutputFormat:
    """The format called ``name``; a ``UsageError`` naming the known ones otherwise."""
    found = next((f for f in FORMATS if f.name == name), None)
    if found is None:
        from mcprobe.core.errors import UsageError

        raise UsageError(f"unknown report format {name!r}: expected {expected_names()}")
    return found


def render(report: ConformanceReport, name: str, *, sarif_artifact: str | None = None) -> str:
    """``report`` rendered in format ``name``."""
    return output_format(name).render(report, RenderOptions(sarif_artifact=sarif_artifact))
