"""``mcprobe badge REPORT.json [--label TEXT]``: a shields-style SVG score badge on stdout.

Reads a JSON report written by ``mcprobe audit --format json`` (checked at the boundary with
the same tolerant view the baseline comparison uses) and prints ``report.badge.render_badge``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from mcprobe.core.errors import UsageError


def run_badge(argv: list[str], stdout: TextIO) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        stdout.write(
            "usage: mcprobe badge REPORT.json [--label TEXT] > badge.svg\n\n"
            "A shields-style SVG badge with the overall score and grade of a JSON report\n"
            "(mcprobe audit --format json). Default label: mcprobe.\n"
        )
        return 0
    label = "mcprobe"
    if len(argv) == 3 and argv[1] == "--label" and argv[2].strip():
        label = argv[2].strip()[:40]
    elif len(argv) != 1:
        raise UsageError("expected: mcprobe badge REPORT.json [--label TEXT]")
    from mcprobe.report.baseline import BaselineError, load_baseline
    from mcprobe.report.render.badge import render_badge

    path = Path(argv[0])
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"badge: cannot read {str(path)!r}: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"badge: {str(path)!r} is not JSON: {exc}") from None
    try:
        report = load_baseline(data)
    except BaselineError as exc:
        raise UsageError(f"badge: {str(path)!r}: {exc}") from None
    stdout.write(render_badge(report.overall, report.grade, label))
    return 0
