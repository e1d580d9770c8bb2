"""The report's ``surface`` part: the resource, prompt and protocol checks as wire models (pure)."""

from __future__ import annotations

from mcprobe.core.checks.catalogue import CHECKS
from mcprobe.core.checks.records import CheckResult, SurfaceRun
from mcprobe.report.model import CheckOut, SurfaceOut

__all__ = ["check_out", "surface_out"]

_ORDER = {check: index for index, check in enumerate(CHECKS)}


def check_out(result: CheckResult) -> CheckOut:
    spec = result.spec
    return CheckOut(
        check=result.check,
        area=spec.area.value,
        verdict=result.verdict.value,
        level=spec.level.value,
        clause=spec.clause,
        message=result.message,
        subject=result.subject,
        request=result.request,
        observed=result.observed,
        hint=spec.hint,
    )


def surface_out(run: SurfaceRun) -> SurfaceOut:
    """Checks in catalogue order (stable within a check: the order they were made)."""
    ordered = sorted(run.checks, key=lambda r: _ORDER[r.check])
    return SurfaceOut(
        resources=run.resources,
        resource_templates=run.templates,
        prompts=run.prompts,
        checks=[check_out(r) for r in ordered],
    )
