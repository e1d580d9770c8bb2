"""Behavioural security proofs (SPEC §5.2), pure: what the I/O layer saw, in; findings out.

- ``canary_findings``: the canary value (planted by ``client/canary.py``) found in answers.
- ``sighting_findings``: the canary seen by the transport anywhere else the target wrote
  (``client/canary_watch.py``): replies to resource reads, prompt gets and every other request,
  notifications (log messages), the server's own requests, and its logs (stderr, stray stdout).
- ``echo_findings``: a secret mcprobe was given (bearer, header values, secret env values) found in
  answers; the finding names the kind of secret and the call, never the value.

An *observation* is one answer's full text (result JSON, error message and data) with where it
came from (the tool and the case label); the engine collects them while calling.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from mcprobe.core.lint.registry import finding
from mcprobe.core.lint.security_text import shown
from mcprobe.core.model import Finding, Location, ServerSnapshot

__all__ = ["CanarySighting", "Observation", "canary_findings", "echo_findings", "sighting_findings"]


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


@dataclass(frozen=True)
class CanarySighting:
    """Where the transport saw the canary value: ``channel`` is ``reply`` (to ``method``, about
    ``subject``: a resource URI, a prompt name), ``notification`` or ``request`` (the server's,
    ``method``), ``stdout`` (a line that is not JSON-RPC) or ``stderr``."""

    channel: str
    method: str | None = None
    subject: str | None = None


_LOGS = ("stdout", "stderr")


def _leak(where: str, sighting: CanarySighting, name: str, value: str) -> Finding:
    if sighting.method == "resources/read" and sighting.subject is not None:
        location = Location(resource=sighting.subject)
    elif sighting.method == "prompts/get" and sighting.subject is not None:
        location = Location(prompt=sighting.subject)
    else:
        location = Location()
    return finding(
        "security.canary_leak",
        f"{where} contained the canary value planted in the server's environment "
        f"(`{name}={value}`): the server hands its environment, API keys and tokens included, "
        "to the client and the model.",
        "Never put the process environment (`process.env`, `os.environ`) into resources, "
        "prompts, log messages or any other answer; send only named, non-secret settings.",
        location,
    )


def _where(sighting: CanarySighting) -> str:
    method = shown(sighting.method or "")
    if sighting.channel == "notification":
        return f"A `{method}` notification from the server"
    if sighting.channel == "request":
        return f"A `{method}` request from the server"
    if sighting.method == "resources/read" and sighting.subject is not None:
        return f"Resource `{shown(sighting.subject)}` (its `resources/read` contents)"
    if sighting.method == "prompts/get" and sighting.subject is not None:
        return f"Prompt `{shown(sighting.subject)}` (its `prompts/get` messages)"
    if sighting.method:
        return f"The server's answer to `{method}`"
    return "An answer from the server"


def sighting_findings(
    sightings: Iterable[CanarySighting], canary: tuple[str, str] | None
) -> list[Finding]:
    """One finding per place the transport saw the canary: ``security.canary_leak`` (critical)
    for what reaches the client, ``security.canary_in_logs`` (a warning) once for the logs."""
    if canary is None:
        return []
    name, value = canary
    found: list[Finding] = []
    logs = sorted({s.channel for s in sightings if s.channel in _LOGS})
    for sighting in dict.fromkeys(sightings):
        if sighting.channel not in _LOGS:
            found.append(_leak(_where(sighting), sighting, name, value))
    if logs:
        streams = " and ".join(f"its {c}" for c in logs)
        found.append(
            finding(
                "security.canary_in_logs",
                f"The server wrote the canary value planted in its environment (`{name}={value}`) "
                f"to {streams} (not JSON-RPC): it logs its environment, so its API keys and tokens "
                "end up wherever the client keeps server logs.",
                "Never log the process environment; log only named, non-secret settings.",
                Location(),
            )
        )
    return found


def server_echo_findings(
    snapshot: ServerSnapshot, secrets: Sequence[tuple[str, str]]
) -> list[Finding]:
    """One critical finding per kind of secret mcprobe sent that the server's own answer to the
    handshake carries (its name, title, version or instructions): the model reads those too.
    ``secrets`` as for ``echo_findings``; the value never enters the finding."""
    info = snapshot.server_info if isinstance(snapshot.server_info, Mapping) else {}
    texts = [info.get(key) for key in ("name", "title", "version")]
    texts.append(snapshot.instructions)
    shown_in = " ".join(t for t in texts if isinstance(t, str))
    return [
        finding(
            "security.secret_echo",
            f"The server's initialize answer (its name, version or instructions) echoed {kind} "
            "mcprobe sent; every client shows it and the model reads it. (The value is not "
            "shown here.)",
            "Never reflect credentials or request headers into serverInfo or instructions.",
            Location(),
        )
        for kind, value in secrets
        if len(value) >= 4 and value in shown_in
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
