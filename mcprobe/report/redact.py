"""Redaction as data: secrets leave the report field by field, before any renderer runs.

The report is made of two kinds of strings. mcprobe's own vocabulary (finding codes,
severities, outcomes, verdict keys, check ids and clauses, dimension keys and names, versions,
JSON keys) never holds a secret and is never touched: a secret ``error`` must not turn the
severity ``error`` into ``[redacted]`` (the report would fail its own schema) nor a key into
garbage. Everything the target sent (tool names, descriptions, error texts, excerpts,
arguments built from its schemas, stderr tails, resource and prompt evidence, drift quotes,
the lock) is scrubbed whole: every occurrence of every secret becomes ``[redacted]``.

Between the two lies mcprobe's prose that quotes the target (finding messages, notes, reason
lines, hints). There a secret is replaced everywhere too, unless it *collides* with mcprobe's
vocabulary (it occurs in the report schema or in the verdict, lint or check registries: a
password ``error`` or ``warn``). A colliding secret is replaced only inside the prose's quoted
spans (backticks, double quotes, ``'…'`` reprs), where mcprobe puts the target's words, and
not in a span that quotes one of mcprobe's own identifiers (a finding code); outside them it
is mcprobe's own word. What this cannot catch: a colliding secret the target echoes in text
that mcprobe's prose embeds unquoted (the data fields still scrub it; such a secret is a word
mcprobe itself prints anyway). The critical lines and the fix plan are then recomputed from the
scrubbed data (``derive_verdicts``), so they quote scrubbed tool names whatever the secret.

Because every renderer (Markdown, JSON, SARIF, JUnit, HTML, terminal, ``probe_report``) reads
only this scrubbed report, nothing is searched and replaced in serialised output, where a
secret such as ``true`` or ``name`` would corrupt JSON or XML. Pure: no I/O.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, partial
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from mcprobe.report.model import (
    CheckOut,
    ConformanceReport,
    CoverageOut,
    DeductionOut,
    DeepFindingOut,
    DeepToolOut,
    DimensionOut,
    DriftOut,
    FindingOut,
    FuzzResultOut,
    LocationOut,
    ServerOut,
    SkippedToolOut,
    TargetDeathOut,
    TargetOut,
    ToolDriftOut,
)

__all__ = ["REDACTED", "REPORT_RULES", "Redactor", "Rule", "Rules", "core_vocabulary"]

REDACTED = "[redacted]"

_M = TypeVar("_M", bound=BaseModel)

# Quoted spans of mcprobe's prose, where it puts the target's words: `code`, "json", 'repr'.
_QUOTED = re.compile(
    r"`[^`\n]*`"
    r"|\"(?:[^\"\\\n]|\\.)*\""
    r"|(?<!\w)'(?:[^'\\\n]|\\.)*'(?!\w)"
    r"|\u201c[^\u201d\n]*\u201d"
)


@cache
def core_vocabulary() -> str:
    """mcprobe's own words, as one text: the report schema (keys, enum values, descriptions)
    and the registries every verdict, lint finding, check and dimension takes its texts from."""
    from mcprobe.core.checks.catalogue import CHECKS
    from mcprobe.core.lint.registry import LINT_RULES
    from mcprobe.core.score.dimensions import DIMENSION_NAMES
    from mcprobe.core.verdicts import VERDICTS

    parts = [
        json.dumps(ConformanceReport.model_json_schema(by_alias=True)),
        repr(VERDICTS),
        repr(tuple(LINT_RULES.values())),
        repr(tuple(CHECKS.values())),
        repr(DIMENSION_NAMES),
    ]
    return "\n".join(parts)


@dataclass(frozen=True)
class Redactor:
    """Scrubs a fixed set of secrets (longest first, so a secret inside another goes with it).

    ``vocabulary``: mcprobe's own words for the output at hand (``core_vocabulary()`` plus, for
    the MCP server, its tools' output schemas); a secret found in it collides (see the module
    docstring)."""

    secrets: tuple[str, ...] = ()
    vocabulary: str = ""

    @classmethod
    def of(cls, secrets: Iterable[str], vocabulary: str | None = None) -> Redactor:
        unique = sorted({s for s in secrets if s}, key=lambda s: (-len(s), s))
        words = core_vocabulary() if vocabulary is None and unique else (vocabulary or "")
        return cls(tuple(unique), words)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def collides(self, secret: str) -> bool:
        return secret in self.vocabulary

    # ------------------------------------------------------------------ strings and values

    def data(self, text: str) -> str:
        """Target text: every occurrence of every secret replaced."""
        for secret in self.secrets:
            if secret in text:
                text = _replace(text, secret)
        return text

    def prose(self, text: str) -> str:
        """mcprobe's text quoting the target: every occurrence, except that a secret colliding
        with mcprobe's vocabulary is replaced only inside quoted spans."""
        for secret in self.secrets:
            if secret not in text:
                continue
            if not self.collides(secret):
                text = _replace(text, secret)
                continue
            text = _QUOTED.sub(partial(self._quoted_replace, secret), text)
        return text

    def _quoted_replace(self, secret: str, match: re.Match[str]) -> str:
        span = match.group()
        inner = span[1:-1]
        if inner != secret and any(f"{q}{inner}{q}" in self.vocabulary for q in "'\""):
            return span  # mcprobe quoting its own identifier (a code, a key): `schema.x`
        return _replace(span, secret)

    def value(self, value: Any) -> Any:
        """Target JSON (arguments, capabilities, tool definitions): every string and every key,
        except a key that is itself one of mcprobe's or JSON Schema's words (``type``,
        ``properties``, ``name``) when the secret collides with it."""
        if isinstance(value, str):
            return self.data(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {self._key(str(k)): self.value(v) for k, v in value.items()}
        return value

    def _key(self, key: str) -> str:
        if f'"{key}"' in self.vocabulary and all(
            self.collides(s) for s in self.secrets if s in key
        ):
            return key
        return self.data(key)

    def case_ref(self, text: str) -> str:
        """A case label (``wrong_type:path``: the kind is mcprobe's, the path the target's) or a
        ``"tool label"`` reference."""
        tool, space, label = text.partition(" ")
        if not space:
            return self._label(text)
        return f"{self.data(tool)} {self._label(label)}"

    def request(self, text: str) -> str:
        """``method {json params}`` (``core.answers.request_text``): the method is mcprobe's,
        the params are scrubbed as JSON (their keys are the protocol's), written back alike."""
        method, space, body = text.partition(" ")
        try:
            params = json.loads(body)
        except ValueError:
            return self.prose(text)
        if not space or _dumps(params) != body:
            return self.prose(text)
        return f"{method} {_dumps(self.value(params))}"

    def progress(self, message: str) -> str:
        """A fuzz progress message, ``"12/41 tool kind:path"``."""
        count, _, rest = message.partition(" ")
        tool, space, label = rest.rpartition(" ")
        return f"{count} {self.data(tool)}{space}{self._label(label)}" if space else message

    def _label(self, label: str) -> str:
        kind, colon, path = label.partition(":")
        return f"{kind}{colon}{self.data(path)}" if colon else label

    # ------------------------------------------------------------------ models

    def model(self, model: _M, rules: Rules | None = None) -> _M:
        """Any boundary model, field by field: the report's own rules (``_RULES``), and for
        other models (the MCP server's outputs) Literal fields untouched, other strings as
        prose, raw JSON (dicts, ``Any``) as target values. ``rules``: the caller's own models'
        rules (the MCP server's outputs), on top of ``REPORT_RULES``."""
        if not self:
            return model
        own = (rules or {}).get(type(model)) or REPORT_RULES.get(type(model), {})
        update: dict[str, Any] = {}
        for name, info in type(model).model_fields.items():
            current = getattr(model, name)
            rule = own.get(name)
            if rule == "keep" or (rule is None and _is_vocabulary(info.annotation)):
                continue
            fn = self._rule(rule) if rule is not None else None
            new = self._default(current, rules) if fn is None else _map(fn, current)
            if new is not current:
                update[name] = new
        return model.model_copy(update=update) if update else model

    def _rule(self, rule: Rule) -> Callable[[Any], Any]:
        functions: dict[str, Callable[[Any], Any]] = {
            "data": self.data,
            "prose": self.prose,
            "value": self.value,
            "case": self.case_ref,
            "request": self.request,
            "lock": self.lock,
            "params": self._params,
        }
        return functions[rule]

    def _params(self, params: dict[str, str]) -> dict[str, str]:
        # The keys name mcprobe's template slots, the values fill them.
        return {key: self.prose(value) for key, value in params.items()}

    def _default(self, value: Any, rules: Rules | None) -> Any:
        if isinstance(value, BaseModel):
            return self.model(value, rules)
        if isinstance(value, str):
            return self.prose(value)
        if isinstance(value, list | tuple):
            return [self._default(item, rules) for item in value]
        if isinstance(value, dict):
            return self.value(value)
        return value

    def report(self, report: ConformanceReport) -> ConformanceReport:
        """``report`` scrubbed field by field; its critical lines and fix plan recomputed from
        the scrubbed data; ``markdown`` dropped (render it again from the result)."""
        if not self:
            return report
        from mcprobe.report.build import derive_verdicts

        scrubbed = self.model(report).model_copy(update={"markdown": None})
        return derive_verdicts(scrubbed)

    def lock(self, lock: dict[str, Any]) -> dict[str, Any]:
        """A ``mcprobe pin`` lock (``core.pinning.lock_of``): its keys are mcprobe's, the
        server identity, tool names and definitions the target's."""
        if not self:
            return lock
        server = lock.get("server")
        tools = lock.get("tools")
        out = dict(lock)
        if isinstance(server, dict):
            out["server"] = {k: self.value(v) for k, v in server.items()}
        if isinstance(tools, list):
            out["tools"] = [
                {k: (v if k == "sha256" else self.value(v)) for k, v in tool.items()}
                if isinstance(tool, dict)
                else self.value(tool)
                for tool in tools
            ]
        return out


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _replace(text: str, secret: str) -> str:
    """Every ``secret`` in ``text`` replaced, leaving earlier ``[redacted]`` marks whole, so that
    scrubbing twice changes nothing (a secret such as ``dact`` would otherwise eat them)."""
    if REDACTED not in text or REDACTED in secret:
        return text.replace(secret, REDACTED)
    return REDACTED.join(part.replace(secret, REDACTED) for part in text.split(REDACTED))


def _is_vocabulary(annotation: Any) -> bool:
    """A Literal (or an optional / list of Literals), a number or a bool: mcprobe's values."""
    if annotation in (bool, int, float):
        return True
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return True
    if origin in (typing.Union, types.UnionType, list, tuple):
        args = [a for a in typing.get_args(annotation) if a is not type(None) and a is not ...]
        return bool(args) and all(_is_vocabulary(a) for a in args)
    return False


def _map(fn: Callable[[Any], Any], value: Any) -> Any:
    """``fn`` over a field's value: each item of a list, nothing for None."""
    if value is None:
        return None
    if isinstance(value, list):
        return [fn(item) for item in value]
    return fn(value)


Rule = Literal["keep", "data", "prose", "value", "case", "params", "lock", "request"]
"""How one field is scrubbed: ``keep`` (mcprobe's vocabulary, or recomputed afterwards),
``data`` (target text), ``prose`` (mcprobe's text quoting the target), ``value`` (target
JSON, keys included), ``case`` (a case label or "tool label"), ``params`` (a deduction's
template values), ``lock`` (a pin lock), ``request`` (``method {json params}``)."""
Rules = Mapping[type[BaseModel], Mapping[str, Rule]]

# The report's string fields that are not prose (the default): mcprobe's vocabulary (kept) and
# the target's text (data, value, case references). Literal, number and bool fields are kept
# without a rule; nested models are walked. tests/core/test_redact.py checks every name exists.
REPORT_RULES: Rules = {
    ConformanceReport: {
        "schema_version": "keep",
        "mcprobe_version": "keep",
        "connection_id": "keep",
        "grade": "keep",
        "crashed_by": "case",
        # Recomputed from the scrubbed data (``derive_verdicts``), or rendered from it again.
        "critical": "keep",
        "critical_problems": "keep",
        "fixes": "keep",
        "markdown": "keep",
        "lock": "lock",
    },
    FindingOut: {"code": "keep"},
    LocationOut: {
        "tool": "data",
        "param": "data",
        "pointer": "data",
        "resource": "data",
        "prompt": "data",
    },
    ServerOut: {
        "name": "data",
        "version": "data",
        "title": "data",
        "protocol_version": "data",
        "instructions": "data",
        "capabilities": "value",
    },
    DeductionOut: {"cause": "keep", "tools": "data", "cases": "case", "params": "params"},
    DimensionOut: {"key": "keep", "name": "keep"},
    SkippedToolOut: {"tool": "data"},
    CoverageOut: {"fuzzed": "data"},
    FuzzResultOut: {
        "name": "data",
        "case": "case",
        "kind": "keep",
        "arguments": "value",
        "message": "data",
        "environment": "data",
    },
    TargetDeathOut: {"cases": "case", "stderr_tail": "data"},
    # The deep pass: the edge class and verdict are mcprobe's, the rest the target's (or built
    # from its schema); ``why`` is mcprobe's reading quoting the answer.
    DeepFindingOut: {
        "kind": "keep",
        "field": "data",
        "edge": "keep",
        "label": "case",
        "arguments": "value",
        "base": "value",
        "answer": "data",
    },
    DeepToolOut: {"tool": "data", "base": "value"},
    TargetOut: {
        "command": "data",
        "args": "data",
        "cwd": "data",
        "env_names": "keep",
        "url": "data",
        "header_names": "keep",
        "client_capabilities": "keep",
    },
    # ``observed`` is mcprobe's line around the target's quoted answer (``core.answers``).
    CheckOut: {"check": "keep", "clause": "keep", "subject": "data", "request": "request"},
    ToolDriftOut: {"tool": "data"},
    DriftOut: {"added": "data", "removed": "data"},
}
