"""One audit request: what to audit and how, in the one shape every front-end builds.

The CLI (``mcprobe audit``, ``--config``, ``scan``), the MCP server (``probe_audit``,
``probe_report``, ``probe_fuzz``, ``probe_lint``) and the library (``mcprobe.audit_stdio``…)
each build an ``AuditRequest`` and hand it to ``engine.audit.audit``, the one entry point of the
pipeline. Nothing else carries audit knobs, so a knob added here reaches every front-end, and a
front-end cannot drop one on the way (``--config`` once lost ``--lock`` that way).

The implications between the consent knobs are applied here, once: ``fuzz_destructive``
implies ``fuzz_writes``, and either implies ``fuzz``; ``deep`` implies ``fuzz`` too (the deep
pass starts from the fuzz run's working valid calls), and a ``seed`` of None is
``core/deep/model.DEFAULT_SEED``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import anyio

from mcprobe.client.transports.stdio import AFTER_REPORT_GRACE
from mcprobe.core.cases.selection import DEFAULT_MAX_TOOLS
from mcprobe.core.cases.user_examples import normalise_examples
from mcprobe.core.deep.model import DEFAULT_SEED
from mcprobe.core.knobs import FrontEnd
from mcprobe.core.lint.suppress import RuleOverride
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.fuzz_runner import DEFAULT_CONCURRENCY
from mcprobe.report.pinning import Lock

__all__ = ["AuditRequest"]


@dataclass(frozen=True)
class AuditRequest:
    """One audit of ``spec``.

    ``fuzz`` calls the tools: only those annotated ``readOnlyHint: true`` outside the sandbox,
    unless ``fuzz_writes`` (also ``destructiveHint: false`` tools) or ``fuzz_destructive``
    (every tool); inside the sandbox every tool but ``skip_tools``. ``include`` narrows the
    fuzzed tools to these names (``--tools``). ``call_timeout`` is the per-call limit (None:
    the spec's); ``overall_timeout`` bounds the whole audit, connecting included (None:
    unbounded apart from the per-call limits). ``deep``: after the fuzz calls, the deep pass of
    valid inputs (``engine/deep_runner.py``) on the same tools, seeded by ``seed`` (None:
    ``DEFAULT_SEED``; the seed used is in the report). ``fresh_connections``: the checks that
    start the target again (version negotiation, the other era, the HTTP transport checks); the
    MCP server's reports on an open connection leave them to ``probe_audit``.
    """

    spec: TargetSpec
    fuzz: bool = False
    fuzz_writes: bool = False
    fuzz_destructive: bool = False
    deep: bool = False
    seed: int | None = None
    max_tools: int = DEFAULT_MAX_TOOLS
    include: tuple[str, ...] | None = None
    skip_tools: tuple[str, ...] = ()  # never called, isolated or not (--skip-tools)
    concurrency: int = DEFAULT_CONCURRENCY
    call_timeout: float | None = None
    overall_timeout: float | None = None
    overrides: tuple[RuleOverride, ...] = ()  # the config file's per-rule ignore/severity
    close_grace: float = AFTER_REPORT_GRACE  # stdio: exit-on-EOF time once the report is done
    surface: bool = True  # the resource, prompt and protocol checks (read-only by the spec)
    fresh_connections: bool = True
    lock: Lock | None = None  # `mcprobe pin` output: the report's drift section compares with it
    # tool name → the user's argument objects (the valid control, provenance ``user``), as
    # given or already normalised; checked against the listed schemas before any call
    # (``core/cases/user_examples.py``); a wrong shape is a UsageError here
    examples: Mapping[str, Any] = field(default_factory=dict)
    # whose vocabulary the report's advice uses: CLI flags, tool inputs or keyword arguments
    # (``core/knobs.py``); each front-end sets its own
    words: FrontEnd = "cli"

    def __post_init__(self) -> None:
        # Frozen: the implied values are set once, here, so every reader sees the same request.
        writes = self.fuzz_writes or self.fuzz_destructive
        object.__setattr__(self, "fuzz_writes", writes)
        object.__setattr__(self, "fuzz", self.fuzz or writes or self.deep)
        if self.seed is None:
            object.__setattr__(self, "seed", DEFAULT_SEED)
        if self.include is not None:
            object.__setattr__(self, "include", tuple(self.include))
        object.__setattr__(self, "skip_tools", tuple(self.skip_tools))
        object.__setattr__(self, "overrides", tuple(self.overrides))
        examples = normalise_examples(dict(self.examples)) if self.examples else {}
        object.__setattr__(self, "examples", MappingProxyType(examples))

    @property
    def timeout(self) -> float:
        """The per-call limit: the request's, else the spec's."""
        return self.spec.call_timeout if self.call_timeout is None else self.call_timeout

    def deadline(self) -> float | None:
        """The absolute ``anyio.current_time()`` deadline for an audit starting now."""
        if self.overall_timeout is None:
            return None
        return anyio.current_time() + self.overall_timeout
