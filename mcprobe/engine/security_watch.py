"""A thin ``Target`` wrapper that keeps the full text of every answer the fuzz runner gets, so the
behavioural security proofs (``core/security/proofs.py``) can look for the canary and echoed
secrets in whole answers, not in the report's short excerpts. Everything else is delegated;
``restart`` only when the wrapped target has it (``RestartableTarget`` is checked at runtime).

``relisting_findings`` is the rug-pull hook: the second ``tools/list``, diffed by
``core/security/rug_pull.py``."""

from __future__ import annotations

import json
from typing import Any

from mcprobe.client.connection import TOOLS_LIST_CHANGED
from mcprobe.core.model import JSON, CaseResult, Finding, RawCall, ServerSnapshot
from mcprobe.core.security.proofs import Observation
from mcprobe.core.security.results import Answer, answer_texts
from mcprobe.core.security.rug_pull import definition_findings, list_changed_findings
from mcprobe.core.target_protocol import RelistableTarget, Target

__all__ = ["WatchedTarget", "answers", "observations", "probe_key", "relisting_findings"]

_MAX_KEPT = 2_000_000  # characters of answers kept per audit (a hostile target cannot flood us)


class WatchedTarget:
    def __init__(self, inner: Target) -> None:
        self._inner = inner
        self.seen: list[tuple[str, str, str]] = []  # (tool, arguments JSON, answer text)
        # per seen answer: the arguments sent and the strings a model reads, with pointers
        self.read: list[tuple[Any, tuple[tuple[str, str], ...]]] = []
        self._kept = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)  # restart, and whatever a concrete target adds

    @property
    def snapshot(self) -> ServerSnapshot:
        return self._inner.snapshot

    @property
    def alive(self) -> bool:
        return self._inner.alive

    def session_findings(self) -> tuple[Finding, ...]:
        return self._inner.session_findings()

    def stderr_tail(self) -> str:
        return self._inner.stderr_tail()

    async def call_tool(
        self, name: str, arguments: JSON, *, timeout: float | None = None
    ) -> RawCall:
        raw = await self._inner.call_tool(name, arguments, timeout=timeout)
        text = _answer_text(raw)
        if text and self._kept < _MAX_KEPT:
            self._kept += len(text)
            self.seen.append((name, _key(arguments), text))
            self.read.append(
                (arguments, answer_texts(raw.result, raw.error_message, raw.error_data))
            )
        return raw


def _key(arguments: JSON) -> str:
    return json.dumps(arguments, sort_keys=True, default=str)


def _answer_text(raw: RawCall) -> str:
    parts = []
    if raw.result is not None:
        parts.append(json.dumps(raw.result, ensure_ascii=False, default=str))
    if raw.error_message:
        parts.append(raw.error_message)
    if raw.error_data is not None:
        parts.append(json.dumps(raw.error_data, ensure_ascii=False, default=str))
    return "\n".join(parts)


def observations(watch: WatchedTarget, results: tuple[CaseResult, ...]) -> list[Observation]:
    """The watched answers, each labelled with the case that sent its arguments."""
    labels = {(r.tool, _key(r.arguments)): r.label for r in results}
    return [
        Observation(tool, labels.get((tool, args), "a call"), text)
        for tool, args, text in watch.seen
    ]


def answers(
    watch: WatchedTarget, results: tuple[CaseResult, ...], probes: dict[tuple[str, str], str]
) -> list[Answer]:
    """The watched answers as the result scan reads them, each labelled with the case (or the
    attack probe: ``probes`` maps (tool, arguments JSON) to its label) that sent it."""
    labels = {**{(r.tool, _key(r.arguments)): r.label for r in results}, **probes}
    return [
        Answer(tool, labels.get((tool, args), "a call"), sent, texts)
        for (tool, args, _), (sent, texts) in zip(watch.seen, watch.read, strict=True)
    ]


def probe_key(tool: str, arguments: JSON) -> tuple[str, str]:
    return tool, _key(arguments)


async def relisting_findings(target: Target, *, fuzzed: bool) -> list[Finding]:
    """The rug-pull check: list the tools again after fuzzing (or, without fuzzing, when the
    server announced ``list_changed``) and diff them against the first listing; plus an
    undeclared ``list_changed``. A target that cannot be relisted adds nothing."""
    if not isinstance(target, RelistableTarget):
        return []
    snapshot = target.snapshot
    announced = target.notifications_seen(TOOLS_LIST_CHANGED)
    found = list_changed_findings(snapshot.capabilities, announced)
    if fuzzed or announced:
        relisted = await target.relist_tools()
        if relisted is not None:
            when = "during fuzzing" if fuzzed else "after notifications/tools/list_changed"
            found += definition_findings(snapshot, relisted, when=when)
    return found
