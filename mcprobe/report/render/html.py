"""The report as one self-contained HTML page (``--format html``): the Markdown report, rendered.

One view, two formats: the page is ``render_markdown(report)`` parsed by markdown-it-py
(CommonMark + tables) and put in a shell, so it has exactly the Markdown's sections (summary,
coverage, critical, dimensions, findings, drift, fuzz results, protocol probes, resources /
prompts / protocol checks, recommended fixes) and cannot drift from it. Why not a template
(jinja2 with autoescape): a second template would be a second renderer of the same sections,
which is the drift this replaces; the Markdown already decides what to say and escapes every
target string for Markdown (``escape.py``), and markdown-it turns that into HTML that escapes
``<``, ``&`` and quotes itself.

Safety, each layer on its own enough for a hostile target string:

- the Markdown quotes target text in code spans or backslash-escapes it, so it never becomes
  markup, a heading, a list or a table row;
- markdown-it runs with ``html: False`` (raw HTML in any string is shown as text), its link
  validation (no ``javascript:``, ``vbscript:``, ``file:`` or ``data:`` link) and without the
  image rule (mcprobe's Markdown has no image, so the page never asks to load one);
- a Content-Security-Policy of ``default-src 'none'`` whose only script is mcprobe's sorter, by
  its hash: the page can load, send or run nothing else.

What the shell adds: the score header, the sorting of the fuzz table (click a column heading;
``aria-sort`` says how), a red mark and a "reproduce" link on each fuzz row whose call shows a
verdict, and under Fuzz results and Protocol probes the exact ``tools/call`` request of each such
call (the Markdown quotes arguments cut to a length; a reproducer must be exact). A call that
proves nothing (inconclusive) shows no verdict, so it gets neither. Pure: reads only the report.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from mcprobe.report.model import ConformanceReport, FuzzResultOut
from mcprobe.report.render.escape import ELLIPSIS, clean_text
from mcprobe.report.render.markdown import FUZZ_RESULTS, PROTOCOL_PROBES, render_markdown

if TYPE_CHECKING:
    from markdown_it.token import Token

_CSS = """
:root{--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--muted:#57606a;--line:#d0d7de}
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;
padding:0 1rem;color:#1f2328}
h1{font-size:1.6rem;margin:.2rem 0}
h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin-top:1.2rem}h4{font-size:.95rem;margin:1rem 0 .3rem}
.score{display:flex;gap:1.5rem;align-items:baseline}.big{font-size:3rem;font-weight:700}
.grade{font-size:2rem;font-weight:700;padding:0 .6rem;border-radius:.4rem;color:#fff}
.g-A,.g-B{background:var(--ok)}.g-C,.g-D{background:var(--warn)}.g-F{background:var(--bad)}
.g--{background:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere;word-break:break-word}
th{white-space:nowrap;background:#f6f8fa}
table.sortable th{cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
tr.fail td{background:#fff5f5}tr.fail td:first-child{border-left:3px solid var(--bad)}
code,pre{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
main{overflow-wrap:anywhere}
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
blockquote{margin:0;padding:0 1rem;border-left:3px solid var(--line);color:var(--muted)}
.muted{color:var(--muted)}
"""

# Sorts the table whose heading was clicked: numbers ("12 ms") numerically, before text.
_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th, col) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0];
    var asc = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var key = function (row) {
      var v = row.cells[col].textContent.trim();
      return /^-?[0-9]+(\\.[0-9]+)?( ms)?$/.test(v) ? [0, parseFloat(v)] : [1, v.toLowerCase()];
    };
    Array.prototype.slice.call(body.rows).sort(function (a, b) {
      var x = key(a), y = key(b);
      var order = x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
      return order * (asc ? 1 : -1);
    }).forEach(function (row) { body.appendChild(row); });
  });
});
"""

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode("ascii")
# Only mcprobe's own sorter may run (by its hash); nothing may be loaded or sent.
CSP = f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{_SCRIPT_HASH}'"


def esc(text: str | None, limit: int = 500) -> str:
    """Target (or any) text as inert HTML: visible control characters, escaped, bounded."""
    if not text:
        return ""
    cleaned, truncated = clean_text(text, limit)
    return html.escape(cleaned, quote=True) + (ELLIPSIS if truncated else "")


def failing(result: FuzzResultOut) -> bool:
    """A call that shows a verdict (its stored ``verdicts``): an inconclusive call shows none
    but what is evidence on its own (a leak), so it gets no mark and no reproducer."""
    return bool(result.verdicts)


def _html_token(content: str) -> Token:
    """mcprobe's own markup spliced between markdown-it's tokens (rendered as it is)."""
    from markdown_it.token import Token

    token = Token("html_block", "", 0)
    token.content = content
    return token


def _reproducer(anchor: str, result: FuzzResultOut) -> str:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": result.name, "arguments": result.arguments},
    }
    why = ", ".join(result.verdicts)
    note = f'<p class="muted">{esc(result.note)}</p>' if result.note else ""
    # JSON is shown verbatim (newlines kept, every non-ASCII character \\u-escaped), only
    # HTML-escaped: a reproducer must be exact.
    text = json.dumps(request, indent=2, ensure_ascii=True)
    return (
        f'<section class="repro" id="{anchor}"><h4><code>{esc(result.name, 120)}</code> '
        f"<code>{esc(result.case, 120)}</code> — {esc(why)}</h4>{note}"
        f"<pre>{html.escape(text, quote=True)}</pre></section>"
    )


def _reproducers(calls: list[tuple[str, FuzzResultOut]]) -> str:
    shown = [_reproducer(anchor, r) for anchor, r in calls if failing(r)]
    head = f'<h3 class="reproducers">Reproducers ({len(shown)})</h3>'
    return "\n".join([head, *(shown or ['<p class="muted">No failing call.</p>'])]) + "\n"


def _fuzz_rows(tokens: list[Token], report: ConformanceReport) -> Iterator[Token]:
    """The Fuzz results section's tokens with the table made sortable and each failing row
    marked and linked to its reproducer (the table's rows are ``report.fuzz`` in order)."""
    results = iter(enumerate(report.fuzz))
    current: tuple[int, FuzzResultOut] | None = None
    in_body = False
    for n, token in enumerate(tokens):
        if token.type == "table_open":
            token.attrSet("class", "sortable")
            token.attrSet("id", "fuzz")
        elif token.type == "tbody_open":
            in_body = True
        elif token.type == "tr_open" and in_body:
            current = next(results, None)
            if current is not None and failing(current[1]):
                token.attrSet("class", "fail")
                token.attrSet("id", f"call-{current[0]}")
        elif (
            token.type == "td_close"
            and current is not None
            and failing(current[1])
            and n + 1 < len(tokens)
            and tokens[n + 1].type == "tr_close"
        ):
            yield _html_token(f' <a href="#repro-{current[0]}">reproduce</a>')
        yield token


def _sections(tokens: list[Token]) -> Iterator[tuple[str | None, list[Token]]]:
    """The tokens split at each ``##`` heading, with its title (None before the first)."""
    title: str | None = None
    part: list[Token] = []
    for n, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            yield title, part
            title, part = tokens[n + 1].content, []
        part.append(token)
    yield title, part


def _body(report: ConformanceReport) -> str:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    parser.disable("image")
    tokens: list[Token] = []
    for title, part in _sections(parser.parse(render_markdown(report))):
        if title == FUZZ_RESULTS:
            tokens += _fuzz_rows(part, report)
            calls = [(f"repro-{n}", r) for n, r in enumerate(report.fuzz)]
            tokens.append(_html_token(_reproducers(calls)))
        elif title == PROTOCOL_PROBES:
            probes = [report.non_object_probe, report.unknown_tool_probe]
            names = ("repro-non-object", "repro-unknown-tool")
            tokens += part
            calls = [(a, p) for a, p in zip(names, probes, strict=True) if p is not None]
            if any(failing(p) for _, p in calls):
                tokens.append(_html_token(_reproducers(calls)))
        else:
            tokens += part
    text: str = parser.renderer.render(tokens, parser.options, {})
    return text


def render_html(report: ConformanceReport) -> str:
    """The whole page, UTF-8, ending with a newline."""
    name = esc(report.server.name, 200) if report.server.name else "(unnamed server)"
    version = f" {esc(report.server.version, 60)}" if report.server.version else ""
    overall = "—" if report.overall is None else str(report.overall)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>mcprobe report: {name}</title><style>{_CSS}</style></head><body>",
        f'<header class="score"><span class="big" id="overall">{overall}</span>'
        f'<span class="muted">/ 100</span>'
        f'<span class="grade g-{esc(report.grade)}" id="grade">{esc(report.grade)}</span>'
        f'<span class="muted">{name}{version}</span></header>',
        f"<main>\n{_body(report)}</main>",
        f"<script>{_SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts) + "\n"
