"""Security rules about what a tool can do: dangerous capabilities (command execution, deletion,
arbitrary URL fetch, environment / whole-file-system exposure) recognised from the tool's name,
description and parameter shapes, checked against its annotations.

MCP annotations are hints a client uses to decide what needs the user's confirmation. A tool
that runs shell commands but says ``readOnlyHint: true`` or ``destructiveHint: false`` talks the
client out of asking: ``security.misleading_annotation``. One that leaves the hint out relies on
the spec's pessimistic defaults, which many clients do not apply:
``security.unannotated_capability``. A tool that hands out the server's environment is reported
whatever it is annotated (``security.environment_exposure``): the annotations can be honest and
the secrets in that environment still reach the model.

Recognition is deliberately conservative: a name token (``run_command``, ``delete_file``), a
phrase of the description ("executes shell commands") or a parameter shape (a ``command``
string, a ``url`` next to a fetch verb). The official reference servers annotate their
destructive and open-world tools honestly and stay silent here (tests/test_security_precision.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mcprobe.core.lint.rules import MAPPING, LintRule, ToolView
from mcprobe.core.lint.security_text import excerpt, shown
from mcprobe.core.model import Finding, Location, Severity

__all__ = [
    "capabilities",
    "check_environment_exposure",
    "check_misleading_annotation",
    "check_unannotated_capability",
]

EXEC, DELETE, FETCH = "command execution", "deletion", "arbitrary URL fetch"

_EXEC_TOKENS = frozenset(
    {"exec", "execute", "shell", "bash", "zsh", "cmd", "powershell", "terminal", "eval"}
)
_EXEC_PAIRS = frozenset({"command", "commands", "script", "cmd", "code"})
_DELETE_TOKENS = frozenset(
    {
        "delete",
        "remove",
        "rm",
        "rmdir",
        "destroy",
        "drop",
        "purge",
        "erase",
        "wipe",
        "truncate",
        "unlink",
    }
)
_FETCH_TOKENS = frozenset(
    {
        "fetch",
        "download",
        "request",
        "browse",
        "scrape",
        "crawl",
        "http",
        "curl",
        "wget",
        "visit",
        "navigate",
    }
)
_URL_PARAMS = frozenset({"url", "uri", "href", "endpoint", "link", "website", "webpage"})
_EXEC_PARAMS = frozenset({"command", "cmd", "shell_command", "shellcommand", "script", "bash"})
_ENV_TOKENS = frozenset({"env", "environ", "getenv", "printenv", "envvars", "envs"})

_EXEC_TEXT = re.compile(
    r"\b(execut\w*|runs?|running)\s+(an?\s+|any\s+|arbitrary\s+|the\s+given\s+)?"
    r"((shell|system|terminal|bash|os|console|cli)\s+)?commands?\b|"
    r"\b(execut\w*|runs?|evaluat\w*)\s+(any\s+|arbitrary\s+)(python\s+|javascript\s+|js\s+|"
    r"shell\s+)?(code|scripts?)\b",
    re.IGNORECASE,
)
_FETCH_TEXT = re.compile(
    r"\b(fetch|download|retriev|request|scrap|crawl|brows|visit|load)\w*\b[^.\n]{0,40}?"
    r"\b(urls?|web\s*pages?|websites?|internet|https?)\b",
    re.IGNORECASE,
)
_ENV_TEXT = re.compile(
    r"\b(returns?|lists?|dumps?|prints?|shows?|exposes?|reads?|gets?)\s+(all\s+|every\s+)?"
    r"(of\s+)?(the\s+)?((process|server|system|host)('s)?\s+)?environment\s+variables\b|"
    r"\bprocess\.env\b|\bos\.environ\b|"
    r"\b(any|every)\s+file\s+on\s+(the|this|your)\s+(system|machine|computer|host|disk)\b|"
    r"\b(entire|whole)\s+(file\s*system|disk|home\s+directory)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Capability:
    kind: str
    evidence: str  # what gave it away, quoted for the message


def _tokens(name: str) -> list[str]:
    split = _CAMEL_BREAK.sub(r"\1_\2", name)
    return [t.lower() for t in _NON_WORD.split(split) if t]


_CAMEL_BREAK = re.compile(r"([a-z0-9])([A-Z])")
_NON_WORD = re.compile(r"[^A-Za-z0-9]+")


def _description(raw: Mapping[str, Any]) -> str:
    desc = raw.get("description")
    return desc if isinstance(desc, str) else ""


def _top_params(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    schema = raw.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, MAPPING) else None
    return props if isinstance(props, MAPPING) else {}


def _string_param(props: Mapping[str, Any], names: frozenset[str]) -> str | None:
    for key, sub in props.items():
        if str(key).lower() in names and isinstance(sub, MAPPING):
            typ = sub.get("type")
            if typ == "string" or (isinstance(typ, list) and "string" in typ) or "type" not in sub:
                return str(key)
    return None


def capabilities(view: ToolView) -> tuple[Capability, ...]:
    """The dangerous capabilities tool ``view`` shows, each with its evidence."""
    raw = view.raw
    if raw is None:
        return ()
    tokens = _tokens(view.label)
    desc = _description(raw)
    props = _top_params(raw)
    found: list[Capability] = []

    exec_token = next((t for t in tokens if t in _EXEC_TOKENS), None)
    if exec_token is None and ("run" in tokens or "execute" in tokens):
        exec_token = next((t for t in tokens if t in _EXEC_PAIRS), None)
    exec_text = _EXEC_TEXT.search(desc)
    exec_param = _string_param(props, _EXEC_PARAMS)
    if exec_token is not None:
        found.append(Capability(EXEC, f"its name `{shown(view.label)}`"))
    elif exec_text is not None:
        found.append(Capability(EXEC, f"its description `{excerpt(desc, *exec_text.span())}`"))
    elif exec_param is not None and (exec_text or "command" in desc.lower()):
        found.append(Capability(EXEC, f"its string parameter `{shown(exec_param)}`"))

    delete_token = next((t for t in tokens if t in _DELETE_TOKENS), None)
    if delete_token is not None:
        found.append(Capability(DELETE, f"its name `{shown(view.label)}`"))

    url_param = _string_param(props, _URL_PARAMS)
    fetch_token = next((t for t in tokens if t in _FETCH_TOKENS), None)
    fetch_text = _FETCH_TEXT.search(desc)
    if url_param is not None and (fetch_token is not None or fetch_text is not None):
        why = f"its name `{shown(view.label)}`" if fetch_token else "its description"
        found.append(Capability(FETCH, f"{why} and its `{shown(url_param)}` parameter"))
    return tuple(found)


def _capabilities_of(view: ToolView) -> tuple[Capability, ...]:
    """``capabilities(view)``, worked out once per view: both capability rules of one lint run
    read it. Kept in the view's ``__dict__`` (as ``security_text._texts_of`` keeps the texts),
    so it lives as long as that run's view."""
    cached: tuple[Capability, ...] | None = view.__dict__.get(_CAPABILITIES_KEY)
    if cached is None:
        cached = view.__dict__[_CAPABILITIES_KEY] = capabilities(view)
    return cached


_CAPABILITIES_KEY = "_mcprobe_capabilities"


def _annotations(view: ToolView) -> Mapping[str, Any]:
    ann = view.raw.get("annotations") if view.raw is not None else None
    return ann if isinstance(ann, MAPPING) else {}


def check_misleading_annotation(view: ToolView) -> Iterator[Finding]:
    ann = _annotations(view)
    for cap in _capabilities_of(view):
        claims: list[tuple[str, str]] = []
        if cap.kind in (EXEC, DELETE):
            if ann.get("readOnlyHint") is True:
                claims.append(("readOnlyHint", "true"))
            if ann.get("destructiveHint") is False:
                claims.append(("destructiveHint", "false"))
        if cap.kind == FETCH and ann.get("openWorldHint") is False:
            claims.append(("openWorldHint", "false"))
        if not claims:
            continue
        said = " and ".join(f"`{k}: {v}`" for k, v in claims)
        fix = {
            "readOnlyHint": "`readOnlyHint: false`",
            "destructiveHint": "`destructiveHint: true`",
            "openWorldHint": "`openWorldHint: true`",
        }
        yield SECURITY_MISLEADING_ANNOTATION.finding(
            f"Tool `{shown(view.label)}` performs {cap.kind} (from {cap.evidence}) but its "
            "annotations "
            f"say {said}, which tells clients they need not ask the user before calling it.",
            f"Annotate tool `{shown(view.label)}` honestly: "
            + ", ".join(fix[k] for k, _ in claims)
            + ".",
            Location(view.label, pointer=f"/annotations/{claims[0][0]}"),
        )


def check_unannotated_capability(view: ToolView) -> Iterator[Finding]:
    ann = _annotations(view)
    for cap in _capabilities_of(view):
        if cap.kind in (EXEC, DELETE):
            hint = "destructiveHint"
            if "destructiveHint" in ann or ann.get("readOnlyHint") is True:
                continue  # set explicitly (a contradiction is misleading_annotation's business)
        else:
            hint = "openWorldHint"
            if "openWorldHint" in ann:
                continue
        yield SECURITY_UNANNOTATED_CAPABILITY.finding(
            f"Tool `{shown(view.label)}` performs {cap.kind} (from {cap.evidence}) but does not "
            "declare "
            f"`{hint}`, so a client that trusts missing hints will call it without asking.",
            f"Declare `{hint}: true` (and `readOnlyHint: false`) in the annotations of tool "
            f"`{shown(view.label)}`.",
            Location(view.label, pointer=f"/annotations/{hint}"),
        )


def check_environment_exposure(view: ToolView) -> Iterator[Finding]:
    raw = view.raw
    if raw is None:
        return
    tokens = _tokens(view.label)
    desc = _description(raw)
    writes = {"set", "update", "write", "create", "delete", "unset", "put"}
    named = any(t in _ENV_TOKENS for t in tokens) or (
        "environment" in tokens and bool({"variables", "vars", "variable"} & set(tokens))
    )
    text = _ENV_TEXT.search(desc)
    if (not named or writes & set(tokens)) and text is None:
        return
    evidence = (
        f"its description `{excerpt(desc, *text.span())}`"
        if text is not None
        else f"its name `{shown(view.label)}`"
    )
    yield SECURITY_ENVIRONMENT_EXPOSURE.finding(
        f"Tool `{shown(view.label)}` hands the server's environment or file system to the "
        "model (from "
        f"{evidence}); API keys and tokens in that environment reach the conversation and "
        "anything the model forwards.",
        f"Remove tool `{shown(view.label)}` from production builds, or return only an "
        "allow-list of "
        "named, non-secret settings.",
        Location(view.label, pointer="/description"),
    )


# --------------------------------------------------------------------------- the records
# (put together with the proofs' codes in ``security_rules``, in SPEC §5.2 order)

SECURITY_MISLEADING_ANNOTATION = LintRule(
    "security.misleading_annotation",
    Severity.ERROR,
    "Misleading annotations",
    "a dangerous capability annotated read-only, non-destructive or closed-world",
    tool_check=check_misleading_annotation,
)

SECURITY_UNANNOTATED_CAPABILITY = LintRule(
    "security.unannotated_capability",
    Severity.WARNING,
    "Dangerous capability not annotated",
    "command execution, deletion or URL fetch without the matching hint",
    tool_check=check_unannotated_capability,
)

SECURITY_ENVIRONMENT_EXPOSURE = LintRule(
    "security.environment_exposure",
    Severity.ERROR,
    "Environment exposed",
    "a tool that returns the server's environment variables or whole file system",
    tool_check=check_environment_exposure,
)
