"""A shields-style SVG score badge (``mcprobe badge report.json > badge.svg``).

Pure. The text is mcprobe's own (``mcprobe`` and ``71/100 C``), derived from two validated
numbers, and is XML-escaped anyway; the colour follows the grade. Widths are estimated from a
fixed per-character advance (Verdana 11 px averages ~7 px), which is what shields.io does too.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

_COLOURS = {"A": "#4c1", "B": "#97ca00", "C": "#dfb317", "D": "#fe7d37", "F": "#e05d44"}
_GREY = "#9f9f9f"
_ADVANCE = 7.0
_PAD = 10


def _width(text: str) -> int:
    return int(len(text) * _ADVANCE + 2 * _PAD)


def render_badge(overall: int | None, grade: str, label: str = "mcprobe") -> str:
    """The badge SVG (one line, ends with a newline)."""
    value = "not graded" if overall is None else f"{overall}/100 {grade}"
    colour = _COLOURS.get(grade, _GREY) if overall is not None else _GREY
    left, right = _width(label), _width(value)
    total = left + right
    lab, val = escape(label), escape(value)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" '
        f'aria-label="{lab}: {val}"><title>{lab}: {val}</title>'
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" '
        'stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{colour}"/>'
        f'<rect width="{total}" height="20" fill="url(#s)"/></g>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" '
        'font-size="11">'
        f'<text x="{left / 2:.1f}" y="15" fill="#010101" fill-opacity=".3">{lab}</text>'
        f'<text x="{left / 2:.1f}" y="14">{lab}</text>'
        f'<text x="{left + right / 2:.1f}" y="15" fill="#010101" fill-opacity=".3">{val}</text>'
        f'<text x="{left + right / 2:.1f}" y="14">{val}</text></g></svg>\n'
    )
