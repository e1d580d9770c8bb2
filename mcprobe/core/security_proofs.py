"""Behavioural security proofs (SPEC §5.2), pure: what the I/O layer saw, in; findings out.

- ``canary_findings``: the canary value (planted by ``target/canary.py``) found in answers.
- ``echo_findings``: a secret mcprobe was given (bearer, header values, secret env values) found in
  answers; the finding names the kind of secret and the call, never the value.

An *observation* is one answer's full text (result JSON, error message and data) with where it
came from (the tool and the case label); the engine collects them while calling.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mcprobe.core.lint.rules import finding
from mcprobe.core.lint.security_text import shown
from mcprobe.core.model import Finding, Location

__all__ = ["Observation", "canary_findings", "echo_findings"]


@dataclass(frozen=True)
class Observation:
    tool: str
    label: str  # the case label (valid, wrong_type:x, ...)
    text: str  # the whole answer as text: result JSON, or error message + data


def canary_findings(
    observations: Iterable[Observation], canary: tuple[str, str] | None
) -> list[Finding]:
    """One critical finding per tool whose answer contained the canary value."""
    if canary is None:
        return []
    name, value = canary
    hits: dict[str, list[str]] = {}
    for obs in observations:
        if value in obs.text:
            hits.setdefault(obs.tool, []).append(obs.label)
    return [
        finding(
            "security.canary_leak",
            f"Tool `{shown(tool)}` returned the canary value planted in the server's environment "
            f"(`{name}={value}`) in its answer to case `{shown(labels[0])}`"
            + (f" and {len(labels) - 1} more" if len(labels) > 1 else "")
            + ": the server hands its environment, API keys and tokens included, to the model.",
            f"Never return the process environment from tool `{shown(tool)}` (`process.env`, "
            "`os.environ`); return only named, non-secret settings.",
            Location(tool),
        )
        for tool, labels in hits.items()
    ]


def echo_findings(
    observations: Iterable[Observation], secrets: Sequence[tuple[str, str]]
) -> list[Finding]:
    """One critical finding per (tool, kind of secret) echoed back. ``secrets``: (kind, value)
    pairs such as ("the bearer token", "…"); the value never enters the finding."""
    seen: dict[tuple[str, str], str] = {}
    for obs in observations:
        for kind, value in secrets:
            if len(value) >= 4 and value in obs.text:
                seen.setdefault((obs.tool, kind), obs.label)
    return [
        finding(
            "security.secret_echo",
            f"Tool `{shown(tool)}` echoed {kind} mcprobe sent (case `{shown(label)}`); whatever "
            "the server reflects reaches the model and the conversation. (The value is not "
            "shown here.)",
            f"Never reflect credentials or request headers into the results or errors of tool "
            f"`{shown(tool)}`.",
            Location(tool),
        )
        for (tool, kind), label in seen.items()
    ]
