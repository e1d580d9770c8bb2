"""The records of the behavioural checks (pure): what a check is, what it found, what is sent.

A tool is judged by its fuzz cases; everything else a server serves is judged by *checks*: one
request (or a short exchange) whose answer a small pure function, its *judge*, turns into a
``CheckResult``. Each check is one ``CheckSpec`` holding its stable id, the spec clause it
enforces, how binding that clause is (``must`` / ``should``), the report dimension a failure counts
in, and the fix. A spec sits beside its judge (``resources.py``, ``prompts.py``, ``protocol.py``,
``progress.py``, ``completion.py``, ``modern.py``, ``http.py``) and makes that judge's results
itself (``SPEC.result(verdict, message, ...)``, as a lint rule makes its findings), so the id is
written once; ``catalogue.py`` gathers them into ``CHECKS``.

An ``Exchange`` is a request sent once per server, the same for every server (``ping``, an
unknown method, ...): what to send and when. Its judges are registered with it in their module's
``JUDGES``, so ``engine.protocol_probes`` sends every exchange and hands each answer to all of its
judges without naming one: a new check of an answer already fetched is its judge module, its
docs section and its test.

Truth first (SPEC §5.1): ``fail`` only when the server is provably at fault against a clause of
the spec; ``inconclusive`` (with the reason) whenever mcprobe's own guess may be the cause, e.g.
a prompt argument value mcprobe made up; ``notApplicable`` when the server does not offer what
the check needs (nothing is sent then). Only ``must`` failures cost points; a ``should`` failure
is reported and listed as a fix, but a server that skips a recommendation keeps its score.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from mcprobe.core.lint.security_text import ModelText
from mcprobe.core.model import JSON, Finding, RawCall

__all__ = [
    "BOTH_ERAS",
    "HANDSHAKE_ERA",
    "MODERN_ERA",
    "SPEC",
    "SPEC_MODERN",
    "AnswerJudge",
    "Area",
    "CheckResult",
    "CheckSpec",
    "Exchange",
    "Level",
    "SurfaceRun",
    "Verdict",
]

SPEC = "https://modelcontextprotocol.io/specification/2025-11-25"
SPEC_MODERN = "MCP 2026-07-28"


class Area(StrEnum):
    RESOURCES = "resources"
    PROMPTS = "prompts"
    PROTOCOL = "protocol"
    HTTP = "http"


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"
    NOT_APPLICABLE = "notApplicable"


class Level(StrEnum):
    MUST = "must"  # a failure costs points
    SHOULD = "should"  # a failure is reported and fixed, never scored


@dataclass(frozen=True)
class CheckSpec:
    """One check as users see it (the report, docs/checks.md and the tests read these)."""

    check: str
    area: Area
    title: str
    clause: str  # where the spec says so (URL with anchor, or a named section)
    level: Level
    dimension: str  # the score dimension a failure counts in
    hint: str  # the fix, as a maintainer would write it

    def result(
        self,
        verdict: Verdict,
        message: str,
        *,
        subject: str | None = None,
        request: str | None = None,
        observed: str | None = None,
    ) -> CheckResult:
        """This check's verdict about one subject: the id is the record's own, written once."""
        return CheckResult(self, verdict, message, subject, request, observed)


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict about one subject (a resource URI, a prompt name, or the server).

    ``request`` is what was sent (``method`` + JSON params), so the result is reproducible;
    ``observed`` is a short description of the answer (untrusted text from the target inside).
    """

    spec: CheckSpec
    verdict: Verdict
    message: str
    subject: str | None = None
    request: str | None = None
    observed: str | None = None

    @property
    def check(self) -> str:
        return self.spec.check

    @property
    def scored_failure(self) -> bool:
        return self.verdict is Verdict.FAIL and self.spec.level is Level.MUST


@dataclass(frozen=True)
class SurfaceRun:
    """Everything the resource, prompt and protocol checks produced for one server. The counts
    are None when the list was not taken (capability not declared, or the listing failed)."""

    checks: tuple[CheckResult, ...] = ()
    findings: tuple[Finding, ...] = ()
    resources: int | None = None
    templates: int | None = None
    prompts: int | None = None
    texts: tuple[ModelText, ...] = ()  # what the model reads about and from them (security)


HANDSHAKE_ERA = frozenset({"handshake"})
MODERN_ERA = frozenset({"modern"})
BOTH_ERAS = HANDSHAKE_ERA | MODERN_ERA


@dataclass(frozen=True, eq=False)
class Exchange:
    """One request sent once per server, the same for every server: its ``method`` and
    ``params``, the capability the server must declare for it to be sent (None: always), and the
    protocol eras it belongs to. ``name`` is how tests and docs speak of it. Compared by
    identity: each record is the one request it names."""

    name: str
    method: str
    params: JSON
    capability: str | None = None
    eras: frozenset[str] = BOTH_ERAS


AnswerJudge = Callable[[RawCall, str], "CheckResult | None"]
"""A judge of one exchange's answer: the raw answer and the request as sent, to a result (None:
this judge has nothing to say about that answer, e.g. a code check of an answer that was no
error)."""
