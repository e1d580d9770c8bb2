"""The report as one self-contained HTML page (``--format html``).

One file: inline CSS and a few lines of inline script (the sortable fuzz table), no external
resource of any kind, and a Content-Security-Policy that forbids the page to load or send
anything (``default-src 'none'``), so even a mistake in escaping could not reach the network.
Every string that came from the target goes through ``html.escape`` (quotes included) after
``clean_text`` (control, bidi and zero-width characters made visible); nothing the target sent
is ever placed in a script, a style or an attribute other than a quoted, escaped ``title``.

Sections: header (server, score, grade), the critical callout, one bar per dimension with its
reasons, the findings, the fuzz table (click a column heading to sort; ``aria-sort`` says
how), and for each failing case its reproducer: the exact ``tools/call`` request that was sent.
Pure: reads only the report.
"""

from __future__ import annotations

import html
import json

from mcprobe.core.verdicts import flags
from mcprobe.report.model import ConformanceReport, DimensionOut, FuzzResultOut
from mcprobe.report.render.escape import ELLIPSIS, clean_text

_CSS = """
:root{--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--muted:#57606a;--line:#d0d7de}
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;
padding:0 1rem;color:#1f2328}
h1{font-size:1.6rem;margin:.2rem 0}
h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid var(--line)}
.score{display:flex;gap:1.5rem;align-items:baseline}.big{font-size:3rem;font-weight:700}
.grade{font-size:2rem;font-weight:700;padding:0 .6rem;border-radius:.4rem;color:#fff}
.g-A,.g-B{background:var(--ok)}.g-C,.g-D{background:var(--warn)}.g-F{background:var(--bad)}
.g--{background:var(--muted)}
.dim{display:grid;grid-template-columns:16rem 1fr 6rem;gap:.8rem;align-items:center;margin:.3rem 0}
.bar{height:.9rem;background:#eaeef2;border-radius:.45rem;overflow:hidden}
.fill{height:100%;border-radius:.45rem}.hi{background:var(--ok)}.mid{background:var(--warn)}
.lo{background:var(--bad)}.reasons{grid-column:1/4;color:var(--muted);margin:0 0 .4rem 1rem}
.callout{padding:.6rem 1rem;border-radius:.4rem;margin:1rem 0}
.callout.bad{background:#ffebe9;border:1px solid var(--bad)}
.callout.ok{background:#dafbe1;border:1px solid var(--ok)}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}
th{white-space:nowrap}td:last-child{overflow-wrap:anywhere}
th{background:#f6f8fa;cursor:pointer;user-select:none}th[aria-sort=ascending]::after{content:" ▲"}
th[aria-sort=descending]::after{content:" ▼"}tr.fail td{background:#fff5f5}
code,pre{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.muted{color:var(--muted)}.sev-error{color:var(--bad)}.sev-warning{color:var(--warn)}
"""

# Sorts the table whose heading was clicked; numbers numerically (data-sort wins when set).
_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th, col) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0];
    var asc = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var key = function (row) {
      var cell = row.cells[col], v = cell.getAttribute("data-sort");
      if (v === null) { v = cell.textContent; }
      var n = parseFloat(v);
      return isNaN(n) ? v.toLowerCase() : n;
    };
    Array.prototype.slice.call(body.rows).sort(function (a, b) {
      var x = key(a), y = key(b);
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    }).forEach(function (row) { body.appendChild(row); });
  });
});
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def esc(text: str | None, limit: int = 500) -> str:
    """Target (or any) text as inert HTML: visible control characters, escaped, bounded."""
    if not text:
        return ""  # most flags cells: clean_text would fold the empty string
    cleaned, truncated = clean_text(text, limit)
    return html.escape(cleaned, quote=True) + (ELLIPSIS if truncated else "")


def _pre(value: object) -> str:
    # JSON is shown verbatim (newlines kept), only HTML-escaped: a reproducer must be exact.
    text = json.dumps(value, indent=2, ensure_ascii=True)
    return f"<pre>{html.escape(text, quote=True)}</pre>"


def failing(result: FuzzResultOut) -> bool:
    """A call that shows a verdict (its stored ``verdicts``): an inconclusive call shows none
    but what is evidence on its own (a leak), so it gets no "reproduce" link."""
    return bool(result.verdicts)


def _level(score: float | None, scale: float) -> str:
    if score is None:
        return ""
    return "hi" if score >= 0.75 * scale else "mid" if score >= 0.4 * scale else "lo"


def _dimension(dim: DimensionOut) -> str:
    if dim.score is None:
        value, width = "not measured", 0.0
    else:
        value, width = f"{dim.score:.1f}/10", max(0.0, min(100.0, dim.score * 10))
    reasons = "".join(f"<li>{esc(r)}</li>" for r in dim.reasons)
    return (
        f'<div class="dim" data-key="{esc(dim.key)}"><strong>{esc(dim.name)}</strong>'
        f'<div class="bar" role="meter" aria-valuemin="0" aria-valuemax="10" '
        f'aria-valuenow="{0 if dim.score is None else dim.score:g}">'
        f'<div class="fill {_level(dim.score, 10)}" style="width:{width:.0f}%"></div></div>'
        f'<span>{value}</span><ul class="reasons">{reasons}</ul></div>'
    )


def _flags(result: FuzzResultOut) -> str:
    return ", ".join(kind.flag for kind in flags(result.verdicts))


def _fuzz_row(index: int, result: FuzzResultOut) -> str:
    row_class = ' class="fail"' if failing(result) else ""
    link = f' <a href="#repro-{index}">reproduce</a>' if failing(result) else ""
    return (
        f"<tr{row_class}><td>{esc(result.name, 120)}</td><td>{esc(result.case, 120)}</td>"
        f"<td>{'malformed' if result.malformed else 'valid'}</td><td>{esc(result.outcome)}</td>"
        f"<td>{esc(_flags(result))}</td>"
        f'<td data-sort="{result.latency_ms:.3f}">{result.latency_ms:.0f} ms</td>'
        f"<td>{esc(result.message, 200)}{link}</td></tr>"
    )


def _reproducer(index: int, result: FuzzResultOut) -> str:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": result.name, "arguments": result.arguments},
    }
    why = _flags(result) or result.outcome
    note = f'<p class="muted">{esc(result.note)}</p>' if result.note else ""
    return (
        f'<section id="repro-{index}"><h3><code>{esc(result.name, 120)}</code> '
        f"<code>{esc(result.case, 120)}</code> — {esc(why)}</h3>{note}{_pre(request)}</section>"
    )


def render_html(report: ConformanceReport) -> str:
    """The whole page, UTF-8, ending with a newline."""
    name = esc(report.server.name, 200) if report.server.name else "(unnamed server)"
    version = f" {esc(report.server.version, 60)}" if report.server.version else ""
    overall = "—" if report.overall is None else str(report.overall)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>mcprobe report: {name}</title><style>{_CSS}</style></head><body>",
        f'<header><p class="muted">mcprobe {esc(report.mcprobe_version)}</p>'
        f"<h1>{name}{version}</h1>",
        f'<div class="score"><span class="big" id="overall">{overall}</span>'
        f'<span class="muted">/ 100</span>'
        f'<span class="grade g-{esc(report.grade)}" id="grade">{esc(report.grade)}</span></div>'
        "</header>",
    ]
    if report.not_graded is not None:
        parts.append(
            f'<p id="not-graded"><strong>Not graded:</strong> {esc(report.not_graded, 800)}</p>'
        )
    if report.coverage is None:
        parts.append('<p class="muted">Not fuzzed: the tools were not called (no --fuzz).</p>')
    else:
        cov = report.coverage
        skipped = "".join(
            f"<li><code>{esc(s.tool, 120)}</code>: {esc(s.reason)}</li>" for s in cov.skipped
        )
        parts.append(
            f"<p>Fuzzed {cov.fuzzed_tools} of {cov.total_tools} tool(s).</p>"
            + (f"<ul>{skipped}</ul>" if skipped else "")
        )
        if report.critical:
            items = "".join(f"<li>{esc(line)}</li>" for line in report.critical)
            parts.append(
                f'<div class="callout bad"><strong>⚠ Critical ({len(report.critical)})</strong>'
                f"<ul>{items}</ul></div>"
            )
        else:
            parts.append('<div class="callout ok">✓ No critical behavioural issues</div>')
    parts.append("<h2>Dimensions</h2>")
    parts += [_dimension(dim) for dim in report.dimensions]
    parts.append(f"<h2>Findings ({len(report.findings)})</h2>")
    if report.findings:
        rows = "".join(
            f'<tr><td class="sev-{esc(f.severity)}">{esc(f.severity)}</td>'
            f"<td><code>{esc(f.code)}</code></td>"
            f"<td>{esc(f.location.tool or 'server', 120)}"
            f"{'.' + esc(f.location.param, 120) if f.location.param else ''}</td>"
            f'<td>{esc(f.message)}<br><span class="muted">{esc(f.hint)}</span></td></tr>'
            for f in report.findings
        )
        parts.append(
            '<table class="sortable" id="findings"><thead><tr><th>Severity</th><th>Code</th>'
            f"<th>Where</th><th>Message</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    else:
        parts.append("<p>No findings.</p>")
    calls = list(report.fuzz)
    if report.non_object_probe is not None:
        calls.append(report.non_object_probe)
    if report.unknown_tool_probe is not None:
        calls.append(report.unknown_tool_probe)
    if report.coverage is not None:
        rows = "".join(_fuzz_row(i, r) for i, r in enumerate(calls))
        parts.append(f"<h2>Fuzz calls ({len(calls)})</h2>")
        parts.append(
            '<table class="sortable" id="fuzz"><thead><tr><th>Tool</th><th>Case</th>'
            "<th>Input</th><th>Outcome</th><th>Flags</th><th>Latency</th><th>Answer</th>"
            f"</tr></thead><tbody>{rows}</tbody></table>"
        )
        repros = [_reproducer(i, r) for i, r in enumerate(calls) if failing(r)]
        parts.append(f"<h2>Reproducers ({len(repros)})</h2>")
        parts += repros or ["<p>No failing case.</p>"]
    if report.notes:
        parts.append(
            "<h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in report.notes) + "</ul>"
        )
    if report.protocol_notes:  # the per-server protocol probes' notes (no points)
        parts.append(
            "<h2>Protocol probes</h2><ul>"
            + "".join(f"<li>{esc(n)}</li>" for n in report.protocol_notes)
            + "</ul>"
        )
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"
