"""JUnit test cases for the server beyond its tools: the resource, prompt, protocol and HTTP
transport checks (``core/checks/catalogue.py``) and the drift against a lock (``audit --lock``).

- One test case per check and subject, class ``<base>.<area>`` (``resources``, ``prompts``,
  ``protocol``, ``http``), named ``<check id> <subject>`` (just the id for a server-wide check):
  a ``<failure>`` when the check failed (a ``should`` check says it is advice, not scored),
  ``<skipped>`` with the reason when it was inconclusive or not applicable, else the request and
  the answer in ``<system-out>``.
- Drift: one ``drift`` test case that records the comparison (and any identity change of the
  server, which is not drift), and one failing ``drift`` test case per tool added, changed or
  removed since the lock, in that tool's class.

Pure: no I/O. The caller (``report/render/junit.py``) makes every string XML-safe.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mcprobe.core.checks.catalogue import CHECKS
from mcprobe.report.model import CheckOut, ConformanceReport
from mcprobe.report.render.sarif_surface import DRIFT_RULES

__all__ = ["JUnitCase", "drift_cases", "surface_cases"]


@dataclass(frozen=True)
class JUnitCase:
    """One test case: ``outcome`` is ``failure``, ``skipped`` or ``pass``; ``message`` and
    ``type`` go on the failure/skipped element, ``text`` in its body (``system-out`` for a
    pass)."""

    classname: str
    name: str
    outcome: str
    message: str = ""
    type: str = ""
    text: str = ""


_SKIPPED = {"inconclusive": "inconclusive", "notApplicable": "not applicable"}


def _detail(check: CheckOut, excerpt: Callable[[str], str]) -> list[str]:
    lines = [f"{check.verdict}: {excerpt(check.message)}"]
    if check.request:
        lines.append(f"sent: {excerpt(check.request)}")
    if check.observed:
        lines.append(f"observed (from the target): {excerpt(check.observed)}")
    return lines


def _check_case(base: str, check: CheckOut, excerpt: Callable[[str], str]) -> JUnitCase:
    classname = f"{base}.{check.area}"
    name = f"{check.check} {check.subject}" if check.subject else check.check
    spec = CHECKS.get(check.check)
    title = spec.title if spec is not None else check.check
    detail = _detail(check, excerpt)
    if check.verdict == "fail":
        if check.level == "should":
            title += " (advice: a SHOULD of the spec, not scored)"
        text = [*detail, f"spec: {check.clause}", f"fix: {check.hint}"]
        return JUnitCase(classname, name, "failure", title, check.check, "\n".join(text))
    if check.verdict in _SKIPPED:
        message = f"{_SKIPPED[check.verdict]}: {excerpt(check.message)}"
        return JUnitCase(classname, name, "skipped", message, check.check, "\n".join(detail))
    return JUnitCase(classname, name, "pass", text="\n".join(detail))


def surface_cases(
    base: str, report: ConformanceReport, excerpt: Callable[[str], str]
) -> list[JUnitCase]:
    """The check cases in report order (catalogue order), none when the surface was not
    probed."""
    if report.surface is None:
        return []
    return [_check_case(base, check, excerpt) for check in report.surface.checks]


_DRIFT = {rule[0]: rule for rule in DRIFT_RULES}


def _drift_case(base: str, rule_id: str, tool: str, changes: list[str]) -> JUnitCase:
    _, title, _, fix, _ = _DRIFT[rule_id]
    text = "\n".join([*changes, f"fix: {fix}"])
    return JUnitCase(f"{base}.{tool}", "drift", "failure", title, rule_id, text)


def drift_cases(base: str, report: ConformanceReport) -> list[JUnitCase]:
    """The drift cases (none without ``--lock``)."""
    drift = report.drift
    if drift is None:
        return []
    count = len(drift.added) + len(drift.changed) + len(drift.removed)
    summary = [
        f"{count} tool(s) drifted: {len(drift.added)} added, {len(drift.changed)} changed, "
        f"{len(drift.removed)} removed"
        if count
        else "no drift: every tool definition matches the lock"
    ]
    summary += [f"server identity (not drift): {line}" for line in drift.server]
    cases = [JUnitCase(base, "drift against the lock", "pass", text="\n".join(summary))]
    cases += [_drift_case(base, "drift.added", name, []) for name in drift.added]
    cases += [_drift_case(base, "drift.changed", t.tool, list(t.changes)) for t in drift.changed]
    cases += [_drift_case(base, "drift.removed", name, []) for name in drift.removed]
    return cases
