"""The registry of the behavioural checks: every ``CheckSpec`` and ``Exchange`` of the judge
modules, gathered in report order, and the judges of each exchange's answer (pure).

The records themselves are in ``records.py``; each check sits beside its judge. Report order
(the check table, the SARIF rules, the JUnit cases) is the order of the modules below and, within
one, of its ``SPECS``: a new check goes into its module's tuple, and nothing here changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from mcprobe.core.checks import completion, http, modern, progress, prompts, protocol, resources
from mcprobe.core.checks.records import AnswerJudge, CheckResult, CheckSpec, Exchange
from mcprobe.core.model import RawCall

__all__ = ["CHECKS", "EXCHANGES", "JUDGES_OF", "judged"]

_MODULES = (resources, prompts, protocol, progress, completion, modern, http)

CHECKS: Mapping[str, CheckSpec] = MappingProxyType(
    {spec.check: spec for module in _MODULES for spec in module.SPECS}
)

EXCHANGES: tuple[Exchange, ...] = (*modern.EXCHANGES, *protocol.EXCHANGES)
"""The requests sent once per server, in sending order (on a modern-era connection
``server/discover`` comes first)."""

_JUDGES = (*protocol.JUDGES, *modern.JUDGES)
JUDGES_OF: Mapping[Exchange, tuple[AnswerJudge, ...]] = MappingProxyType(
    {exchange: tuple(judge for of, judge in _JUDGES if of is exchange) for exchange in EXCHANGES}
)


def judged(exchange: Exchange, raw: RawCall, request: str) -> Sequence[CheckResult]:
    """What every judge of ``exchange`` makes of one answer to it, in registration order."""
    return [r for judge in JUDGES_OF[exchange] if (r := judge(raw, request)) is not None]
