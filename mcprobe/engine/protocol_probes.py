"""Send the resource, prompt and protocol checks to an open target (the I/O half).

Every request here is read-only by the spec (listing, reading, fetching a prompt, ping, an
unknown method, a bad cursor, setting the log level, asking for completions), so the checks run
by default, without the consent that calling tools needs. Each is bounded: at most
``MAX_READS`` resource reads, ``MAX_TEMPLATES`` template reads and ``MAX_PROMPTS`` prompts, each
request within the per-call timeout and the audit deadline, and every answer is size-capped by
the transport. What each answer means is decided by the pure judges in ``core.resources``,
``core.prompts`` and ``core.protocol``; this module only chooses what to send and in what order.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from mcprobe.client.connection import open_target
from mcprobe.client.transports.stdio import AFTER_REPORT_GRACE
from mcprobe.core.calls.answers import describe, request_text
from mcprobe.core.checks.catalogue import EXCHANGES, judged
from mcprobe.core.checks.completion import PROTOCOL_COMPLETION, judge_completion
from mcprobe.core.checks.prompts import (
    ARGUMENT_VALUE,
    PROMPTS_LIST,
    PromptRef,
    absent_prompt_name,
    judge_get,
    judge_missing_argument,
    judge_unknown_name,
    lint_prompts,
    prompt_refs,
)
from mcprobe.core.checks.protocol import UNKNOWN_VERSION, judge_version_negotiation
from mcprobe.core.checks.records import CheckResult, CheckSpec, SurfaceRun, Verdict
from mcprobe.core.checks.resources import (
    RESOURCES_LIST,
    RESOURCES_NOT_FOUND,
    RESOURCES_TEMPLATES_LIST,
    absent_uri,
    expand_template,
    judge_not_found,
    judge_read,
    judge_subscribe,
    judge_template_read,
    lint_resources,
    readable_resources,
    template_variables,
)
from mcprobe.core.errors import ConnectFailed
from mcprobe.core.lint.security_text import ModelText
from mcprobe.core.lint.surface_security import LISTING_KINDS, content_texts, listing_texts
from mcprobe.core.model import JSON, METHOD_NOT_FOUND, Finding, RawCall, RawKind
from mcprobe.core.target_protocol import Era, RequestTarget
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.http_probes import run_http_probes
from mcprobe.engine.timeline import phase

__all__ = [
    "MAX_PROMPTS",
    "MAX_READS",
    "MAX_TEMPLATES",
    "modern_checks",
    "probe_modern_era",
    "probe_version_negotiation",
    "run_surface_probes",
    "second_connection_checks",
]

MAX_READS = 10
MAX_TEMPLATES = 5
MAX_PROMPTS = 10
TEMPLATE_VALUE = "1"
"""The value a template variable gets when completion offers none: short, unreserved, and the
most common shape of an id."""


class _Probe:
    def __init__(self, target: RequestTarget, timeout: float | None) -> None:
        self.target = target
        self.timeout = timeout
        self.checks: list[CheckResult] = []
        self.findings: list[Finding] = []
        self.texts: list[ModelText] = []  # for the security text rules (surface_security.py)

    async def send(self, method: str, params: JSON) -> tuple[RawCall, str]:
        raw = await self.target.request(method, params, timeout=self.timeout)
        if raw.kind is RawKind.RESULT and isinstance(params, dict):
            subject = params.get("uri", params.get("name"))
            if isinstance(subject, str):
                self.texts.extend(content_texts(method, subject, raw.result))
        return raw, request_text(method, params)

    async def listing(self, method: str, key: str, check: CheckSpec) -> list[JSON] | None:
        items, findings = await self.target.list_all(method, key)
        self.findings.extend(findings)
        if items is not None and method in LISTING_KINDS:
            self.texts.extend(listing_texts(LISTING_KINDS[method], items))
        if items is not None:
            self.checks.append(check.result(Verdict.PASS, f"{len(items)} listed", request=method))
            return items
        raw, sent = await self.send(method, {})
        listing_failed = raw.kind is RawKind.JSONRPC_ERROR and raw.error_code == METHOD_NOT_FOUND
        verdict = Verdict.INCONCLUSIVE if raw.kind is RawKind.NOT_RUN else Verdict.FAIL
        if listing_failed and method in OPTIONAL_LISTINGS:
            # No normative sentence asks for it: -32601 is the right answer to an optional
            # method the server does not implement.
            verdict = Verdict.NOT_APPLICABLE
        message = (
            f"{method} is not implemented (-32601)"
            if listing_failed
            else f"{method} did not return a list"
        )
        self.checks.append(check.result(verdict, message, request=sent, observed=describe(raw)))
        return None


# Listings the spec describes without requiring them of a server that declares the capability.
OPTIONAL_LISTINGS = frozenset({"resources/templates/list"})


async def run_surface_probes(
    target: RequestTarget, *, timeout: float | None = None, era: str = "handshake"
) -> SurfaceRun:
    """List, lint and probe the target's resources and prompts, then the protocol checks of
    the era the connection speaks (``modern``: 2026-07-28, where ``ping`` and
    ``logging/setLevel`` no longer exist and the modern checks run instead)."""
    probe = _Probe(target, timeout)
    caps = target.snapshot.capabilities if isinstance(target.snapshot.capabilities, dict) else {}
    resources = templates = prompts = None
    if "resources" in caps:
        resources, templates = await _resources(probe, caps)
    if "prompts" in caps:
        prompts = await _prompts(probe)
    await _protocol(probe, caps, templates or [], prompts or [], era)
    return SurfaceRun(
        checks=tuple(probe.checks),
        findings=tuple(probe.findings),
        resources=len(resources) if resources is not None else None,
        templates=len(templates) if templates is not None else None,
        prompts=len(prompts) if prompts is not None else None,
        texts=tuple(probe.texts),
    )


# --------------------------------------------------------------------------- resources


async def _resources(
    probe: _Probe, caps: dict[str, Any]
) -> tuple[list[JSON] | None, list[JSON] | None]:
    resources = await probe.listing("resources/list", "resources", RESOURCES_LIST)
    templates = await probe.listing(
        "resources/templates/list", "resourceTemplates", RESOURCES_TEMPLATES_LIST
    )
    probe.findings.extend(lint_resources(resources or [], templates or []))
    refs = readable_resources(resources or [], MAX_READS)
    for ref in refs:
        raw, sent = await probe.send("resources/read", {"uri": ref.uri})
        probe.checks.extend(judge_read(ref, raw, sent))
    template_strings = [
        t["uriTemplate"]
        for t in templates or []
        if isinstance(t, dict) and isinstance(t.get("uriTemplate"), str)
    ]
    for template in template_strings[:MAX_TEMPLATES]:
        await _template_read(probe, caps, template)
    uri = absent_uri([r.uri for r in readable_resources(resources or [], 10_000)], template_strings)
    if uri is None:
        probe.checks.append(
            RESOURCES_NOT_FOUND.result(
                Verdict.INCONCLUSIVE,
                "a catch-all resource template matches every URI, so no URI provably names nothing",
            )
        )
    else:
        raw, sent = await probe.send("resources/read", {"uri": uri})
        probe.checks.extend(judge_not_found(uri, raw, sent))
    resource_caps = caps.get("resources")
    if isinstance(resource_caps, dict) and resource_caps.get("subscribe") is True and refs:
        raw, sent = await probe.send("resources/subscribe", {"uri": refs[0].uri})
        probe.checks.append(judge_subscribe(refs[0].uri, raw, sent))
        if raw.kind is RawKind.RESULT:
            await probe.send("resources/unsubscribe", {"uri": refs[0].uri})
    return resources, templates


async def _template_read(probe: _Probe, caps: dict[str, Any], template: str) -> None:
    values: dict[str, str] = {}
    provenance = f"placeholder value {TEMPLATE_VALUE!r}"
    completed: list[str] = []
    for name in template_variables(template):
        value = None
        if "completions" in caps:
            value = await _complete_value(
                probe, {"type": "ref/resource", "uri": template}, name, values
            )
        if value is not None:
            completed.append(name)
        values[name] = value if value is not None else TEMPLATE_VALUE
    if completed:
        provenance = "values offered by completion/complete"
    uri = expand_template(template, values)
    if uri is None:
        return  # an invalid template is a lint finding already
    raw, sent = await probe.send("resources/read", {"uri": uri})
    probe.checks.append(judge_template_read(template, uri, provenance, raw, sent))


async def _complete_value(
    probe: _Probe, ref: dict[str, str], argument: str, context: dict[str, str]
) -> str | None:
    params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": ""}}
    if context:
        params["context"] = {"arguments": dict(context)}
    raw, sent = await probe.send("completion/complete", params)
    subject = f"{ref.get('uri') or ref.get('name')} › {argument}"
    probe.checks.append(judge_completion(raw, sent, subject))
    if raw.kind is RawKind.RESULT and isinstance(raw.result, dict):
        completion = raw.result.get("completion")
        values = completion.get("values") if isinstance(completion, dict) else None
        if isinstance(values, list) and values and isinstance(values[0], str):
            return values[0]
    return None


# --------------------------------------------------------------------------- prompts


async def _prompts(probe: _Probe) -> list[JSON] | None:
    prompts = await probe.listing("prompts/list", "prompts", PROMPTS_LIST)
    probe.findings.extend(lint_prompts(prompts or []))
    refs = prompt_refs(prompts or [], MAX_PROMPTS)
    for ref in refs:
        await _prompt(probe, ref)
    name = absent_prompt_name([r.name for r in prompt_refs(prompts or [], 10_000)])
    raw, sent = await probe.send("prompts/get", {"name": name, "arguments": {}})
    probe.checks.append(judge_unknown_name(name, raw, sent))
    return prompts


async def _prompt(probe: _Probe, ref: PromptRef) -> None:
    arguments = {name: ARGUMENT_VALUE for name in ref.required}
    raw, sent = await probe.send("prompts/get", {"name": ref.name, "arguments": arguments})
    probe.checks.append(judge_get(ref, raw, sent))
    if ref.required:
        missing = ref.required[0]
        partial = {k: v for k, v in arguments.items() if k != missing}
        raw, sent = await probe.send("prompts/get", {"name": ref.name, "arguments": partial})
        probe.checks.append(judge_missing_argument(ref, missing, raw, sent))


# --------------------------------------------------------------------------- protocol


async def _protocol(
    probe: _Probe, caps: dict[str, Any], templates: list[JSON], prompts: list[JSON], era: str
) -> None:
    await _exchanges(probe, caps, era)
    if "completions" in caps and not any(c.spec is PROTOCOL_COMPLETION for c in probe.checks):
        await _completion_of_a_prompt(probe, prompts)


async def _exchanges(
    probe: _Probe, caps: dict[str, Any], era: str, *, this_era_only: bool = False
) -> None:
    """Send every registered once-per-server request of ``era`` whose capability the server
    declares, and hand each answer to all of its judges (``catalogue.JUDGES_OF``)."""
    for exchange in EXCHANGES:
        if era not in exchange.eras or (this_era_only and len(exchange.eras) > 1):
            continue
        if exchange.capability is not None and exchange.capability not in caps:
            continue
        raw, sent = await probe.send(exchange.method, exchange.params)
        probe.checks.extend(judged(exchange, raw, sent))


async def modern_checks(probe: _Probe) -> None:
    """The 2026-07-28 checks on a connection that speaks it (its ``_meta`` envelope is stamped
    on every request by the session): the exchanges of that era alone."""
    await _exchanges(probe, {}, "modern", this_era_only=True)


async def probe_modern_era(
    spec: TargetSpec, deadline: float | None, timeout: float | None
) -> tuple[bool, list[CheckResult]]:
    """On a second connection in 2026-07-28: does the server speak it too (a refused
    server/discover says no: not a failure, the handshake era is enough), and if so, the
    modern checks."""
    try:
        async with open_target(spec, deadline=deadline, protocol="modern") as second:
            probe = _Probe(second, timeout)
            await modern_checks(probe)
            second.close_soon(AFTER_REPORT_GRACE)  # nothing more is wanted from this process
            return True, probe.checks
    except ConnectFailed:
        return False, []


async def _completion_of_a_prompt(probe: _Probe, prompts: list[JSON]) -> None:
    for ref in prompt_refs(prompts, MAX_PROMPTS):
        if ref.arguments:
            await _complete_value(
                probe, {"type": "ref/prompt", "name": ref.name}, ref.arguments[0], {}
            )
            return
    probe.checks.append(
        PROTOCOL_COMPLETION.result(
            Verdict.NOT_APPLICABLE,
            "declares completions, but no prompt argument or resource template to complete",
        )
    )


async def probe_version_negotiation(spec: TargetSpec, deadline: float | None) -> CheckResult:
    """Open a second connection to the same target offering ``UNKNOWN_VERSION``; the answer is
    judged by ``judge_version_negotiation``. The second connection lists tools like the first
    and is closed at once."""
    request = request_text("initialize", {"protocolVersion": UNKNOWN_VERSION})
    answered: JSON = None
    refused = lost = None
    try:
        async with open_target(
            spec, deadline=deadline, offer_version=UNKNOWN_VERSION, protocol="handshake"
        ) as second:
            answered = second.snapshot.protocol_version
            # Nothing more is wanted from this process: a server whose timers outlive stdin EOF
            # (server-everything) would otherwise hold the audit for the whole EOF grace.
            second.close_soon(AFTER_REPORT_GRACE)
    except ConnectFailed as exc:
        text = str(exc)
        if text.startswith("initialize was rejected with JSON-RPC error"):
            refused = text
        else:
            lost = text
    return judge_version_negotiation(
        answered, HANDSHAKE_PROTOCOL_VERSIONS, request, refused=refused, lost=lost
    )


async def second_connection_checks(
    spec: TargetSpec,
    deadline: float | None,
    timeout: float | None,
    era: Era,
    protocol: str,
    wire: str = "http",
) -> tuple[list[CheckResult], list[Era]]:
    """The checks that need a fresh connection to the same target, and the eras it speaks:
    on a handshake-era target, version negotiation and (``protocol="auto"``) whether it also
    speaks 2026-07-28. A modern-era audit reached under ``auto`` only after initialize was
    refused, so the target speaks that era alone. ``wire``: the protocol the audit spoke (``sse``
    after the fallback from Streamable HTTP)."""
    eras: list[Era] = [era]
    checks: list[CheckResult] = []
    found: list[CheckResult] = []
    modern: list[tuple[bool, list[CheckResult]]] = []

    async def negotiation() -> None:
        async with phase(
            f"target start: version negotiation (initialize offering {UNKNOWN_VERSION})"
        ):
            found.append(await probe_version_negotiation(spec, deadline))

    async def other_era() -> None:
        async with phase("target start: does it also speak 2026-07-28 (server/discover)"):
            modern.append(await probe_modern_era(spec, deadline, timeout))

    if era == "handshake":
        # Two fresh processes, started side by side: neither check needs the other's answer.
        async with anyio.create_task_group() as tg:
            tg.start_soon(negotiation)
            if protocol == "auto":
                tg.start_soon(other_era)
        checks.extend(found)
        if modern and modern[0][0]:
            eras.append("modern")
            checks.extend(modern[0][1])
    checks.extend(await run_http_probes(spec, timeout, era, wire))
    return checks, eras
