"""The lint rule registry: every ``LintRule`` record (code, severity, title, summary and its
check functions), in SPEC §4 table order.

Each rule module keeps its records next to its checks (``rules``: ``tool.*`` and ``server.*``;
``schema_rules``: ``schema.*`` and ``param.*``); this module only puts them together, so a new
rule module is one more entry in ``_MODULE_RULES``. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from mcprobe.core.lint import rules, schema_rules, security_rules
from mcprobe.core.lint.rules import LintRule, ServerRule, ToolRule
from mcprobe.core.model import Finding, Location

__all__ = [
    "EXTRA_CODES",
    "FINDING_CODES",
    "LINT_RULES",
    "RULE_RANK",
    "SECURITY_CODES",
    "SERVER_RULES",
    "SESSION_CODES",
    "SPEC_CODES",
    "SURFACE_CODES",
    "TOOL_RULES",
    "LintRule",
    "finding",
]

_MODULE_RULES: tuple[tuple[LintRule, ...], ...] = (
    rules.TOOL_ENTRY_RULES,
    schema_rules.RULES,
    rules.SERVER_WIDE_RULES,
    security_rules.RULES,  # SPEC §5.2: scored in the Security dimension only
)
_RULES = tuple(rule for group in _MODULE_RULES for rule in group)

LINT_RULES: Mapping[str, LintRule] = MappingProxyType({rule.code: rule for rule in _RULES})
"""Every lint code mcprobe emits: the twelve stable SPEC codes plus ``EXTRA_CODES``."""

SECURITY_CODES: tuple[str, ...] = tuple(rule.code for rule in security_rules.RULES)
"""The ``security.*`` family (SPEC §5.2): scored in the Security dimension only."""

SPEC_CODES: tuple[str, ...] = (
    "tool.missing_description",
    "tool.thin_description",
    "tool.duplicate_name",
    "tool.unusual_name",
    "tool.no_input_schema",
    "tool.no_annotations",
    "schema.invalid",
    "schema.root_not_object",
    "schema.no_required",
    "param.untyped",
    "param.missing_description",
    "server.no_tools",
)
"""SPEC §4's twelve stable codes: a published contract, not a registry (a new rule is not added
here; it is an extra code by being registered)."""

EXTRA_CODES: tuple[str, ...] = tuple(code for code in LINT_RULES if code not in SPEC_CODES)
"""Codes beyond SPEC §4's twelve, in rule order: every registered rule that is not a SPEC code."""

RULE_RANK: Mapping[str, int] = MappingProxyType({rule.code: i for i, rule in enumerate(_RULES)})

TOOL_RULES: tuple[tuple[str, ToolRule], ...] = tuple(
    (rule.code, rule.tool_check) for rule in _RULES if rule.tool_check is not None
)
"""Every per-tool check with its code, in rule order."""

SERVER_RULES: tuple[tuple[str, ServerRule], ...] = tuple(
    (rule.code, rule.server_check) for rule in _RULES if rule.server_check is not None
)
"""The server-wide checks, in rule order (``server.no_tools`` fires only when nothing is listed,
so it never meets the name checks' findings)."""

SESSION_CODES: tuple[str, ...] = (
    "server.deep_nesting",
    "server.duplicate_reply",
    "server.invalid_discover",
    "server.invalid_initialize",
    "server.invalid_list_page",
    "server.invalid_message",
    "server.jsonrpc_batch",
    "server.notification_flood",
    "server.oversize_message",
    "server.pagination_cap",
    "server.pagination_loop",
    "server.stdout_noise",
    "server.unexpected_request",
    "server.unknown_reply_id",
    "server.unsupported_protocol_version",
)
"""Findings about the session itself, seen on the wire by ``client/`` (not lint of a listing)."""

SURFACE_CODES: tuple[str, ...] = (
    "prompt.argument_missing_description",
    "prompt.duplicate_argument",
    "prompt.duplicate_name",
    "prompt.invalid_required",
    "prompt.malformed",
    "prompt.missing_description",
    "resource.duplicate_uri",
    "resource.invalid_template",
    "resource.invalid_uri",
    "resource.malformed",
    "resource.missing_description",
    "resource.missing_mime_type",
    "resource.missing_name",
)
"""The lint of resource and prompt listings (``core/checks/resources.py``, ``prompts.py``)."""

FINDING_CODES: frozenset[str] = frozenset((*LINT_RULES, *SESSION_CODES, *SURFACE_CODES))
"""Every finding code a report can hold: what a config file's ``[rules."CODE"]`` may name
(docs/checks.md has one ``###`` section per code; a test keeps the two equal)."""


def finding(code: str, message: str, hint: str, location: Location) -> Finding:
    """A finding of registered code ``code`` for the producers outside the lint checks (the
    security proofs, the result scan, the attack probes: ``emitted_by``); the severity comes
    from the record. The lint checks use their own record's ``LintRule.finding``."""
    return LINT_RULES[code].finding(message, hint, location)
