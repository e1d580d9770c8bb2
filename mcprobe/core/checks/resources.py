"""Resources: lint of the listings and the judges of the read checks (pure).

Input is raw JSON from ``resources/list`` / ``resources/templates/list`` / ``resources/read``
and may have any shape: nothing here raises. The spec clauses are those of
``server/resources`` (2025-11-25): a ``Resource`` has a string ``uri`` and ``name``; a read
answers ``{contents: [{uri, mimeType?, text | blob}]}`` with ``blob`` base64; an unknown URI is
the JSON-RPC error -32002 ("Resource not found", a SHOULD for the code, an error in any case).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from mcprobe.core.calls.answers import describe, is_failure_of_server
from mcprobe.core.checks.records import SPEC, Area, CheckResult, CheckSpec, Level, Verdict
from mcprobe.core.model import (
    INVALID_PARAMS,
    JSON,
    METHOD_NOT_FOUND,
    Finding,
    Location,
    RawCall,
    RawKind,
    Severity,
    is_internal_error,
)
from mcprobe.core.quoting import quoted, quoted_list

__all__ = [
    "NOT_FOUND_URI",
    "RESOURCES_LIST",
    "RESOURCES_NOT_FOUND",
    "RESOURCES_NOT_FOUND_CODE",
    "RESOURCES_READ",
    "RESOURCES_READ_MIME",
    "RESOURCES_SUBSCRIBE",
    "RESOURCES_TEMPLATES_LIST",
    "RESOURCES_TEMPLATE_READ",
    "RESOURCE_NOT_FOUND",
    "SPECS",
    "ResourceRef",
    "absent_uri",
    "expand_template",
    "judge_not_found",
    "judge_read",
    "judge_subscribe",
    "judge_template_read",
    "lint_resources",
    "readable_resources",
    "template_variables",
]

RESOURCES_LIST = CheckSpec(
    "resources.list",
    Area.RESOURCES,
    "resources/list answers",
    f"{SPEC}/server/resources#listing-resources",
    Level.MUST,
    "liveness",
    "answer resources/list with {resources: [...]} when the resources capability is declared",
)


RESOURCES_TEMPLATES_LIST = CheckSpec(
    "resources.templates_list",
    Area.RESOURCES,
    "resources/templates/list answers",
    f"{SPEC}/server/resources#resource-templates",
    Level.SHOULD,
    "liveness",
    "answer resources/templates/list with {resourceTemplates: [...]} (an empty list is fine)",
)


RESOURCES_READ = CheckSpec(
    "resources.read",
    Area.RESOURCES,
    "A listed resource can be read",
    f"{SPEC}/server/resources#reading-resources",
    Level.MUST,
    "liveness",
    "answer resources/read of every listed URI with {contents: [{uri, text | blob}]}",
)


RESOURCES_READ_MIME = CheckSpec(
    "resources.read_mime",
    Area.RESOURCES,
    "Read contents carry the listed mimeType",
    f"{SPEC}/server/resources#resource-contents",
    Level.SHOULD,
    "liveness",
    "send the same mimeType in resources/read contents as in resources/list",
)


RESOURCES_TEMPLATE_READ = CheckSpec(
    "resources.template_read",
    Area.RESOURCES,
    "An expanded resource template can be read",
    f"{SPEC}/server/resources#resource-templates",
    Level.MUST,
    "liveness",
    "resolve URIs that match an advertised template (or describe the values the template "
    "accepts, and offer completion/complete for its variables)",
)


RESOURCES_NOT_FOUND = CheckSpec(
    "resources.not_found",
    Area.RESOURCES,
    "Reading an unknown URI is an error",
    f"{SPEC}/server/resources#error-handling",
    Level.MUST,
    "errorHandling",
    "answer resources/read of an unknown URI with JSON-RPC error -32002 (Resource not found)",
)


RESOURCES_NOT_FOUND_CODE = CheckSpec(
    "resources.not_found_code",
    Area.RESOURCES,
    "Resource not found uses -32002 (or -32602, its 2026-07-28 successor)",
    f"{SPEC}/server/resources#error-handling",
    Level.SHOULD,
    "errorHandling",
    "use code -32002 (Resource not found; -32602 from 2026-07-28 on) for an unknown URI",
)


RESOURCES_SUBSCRIBE = CheckSpec(
    "resources.subscribe",
    Area.RESOURCES,
    "resources/subscribe works when advertised",
    f"{SPEC}/server/resources#subscriptions",
    Level.MUST,
    "metadata",
    "accept resources/subscribe and resources/unsubscribe when capabilities.resources."
    "subscribe is true, or stop advertising it",
)


SPECS: tuple[CheckSpec, ...] = (
    RESOURCES_LIST,
    RESOURCES_TEMPLATES_LIST,
    RESOURCES_READ,
    RESOURCES_READ_MIME,
    RESOURCES_TEMPLATE_READ,
    RESOURCES_NOT_FOUND,
    RESOURCES_NOT_FOUND_CODE,
    RESOURCES_SUBSCRIBE,
)
"""This module's checks, in report order (``catalogue.CHECKS`` gathers them)."""


RESOURCE_NOT_FOUND = -32002
NOT_FOUND_URI = "mcprobe-absent://nonexistent/resource-0"

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_OPERATORS = "+#./;?&"
_VARSPEC = re.compile(
    r"^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9][0-9]{0,3}|\*)?$"
)


@dataclass(frozen=True)
class ResourceRef:
    """A listed resource worth reading: its URI and the mimeType the listing declared."""

    uri: str
    mime_type: str | None


def _finding(
    code: str, severity: Severity, message: str, resource: str | None, hint: str
) -> Finding:
    return Finding(code, severity, message, Location(resource=resource), hint)


def _text(value: JSON) -> str | None:
    return value if isinstance(value, str) else None


# --------------------------------------------------------------------------- lint


def lint_resources(resources: Sequence[JSON], templates: Sequence[JSON]) -> list[Finding]:
    """Findings about the listed resources and templates, in listing order."""
    found: list[Finding] = []
    seen: set[str] = set()
    for index, entry in enumerate(resources):
        found.extend(_lint_resource(index, entry, seen))
    for index, entry in enumerate(templates):
        found.extend(_lint_template(index, entry))
    return found


def _lint_resource(index: int, entry: JSON, seen: set[str]) -> Iterator[Finding]:
    uri = _text(entry.get("uri")) if isinstance(entry, dict) else None
    if uri is None:
        yield _finding(
            "resource.malformed",
            Severity.ERROR,
            f"resources/list entry {index} is not an object with a string `uri`",
            f"#{index}",
            "list each resource as {uri, name, description?, mimeType?}",
        )
        return
    assert isinstance(entry, dict)
    if uri in seen:
        yield _finding(
            "resource.duplicate_uri",
            Severity.ERROR,
            "two listed resources share this URI",
            uri,
            "list each resource once; a URI identifies one resource",
        )
    seen.add(uri)
    if not _SCHEME.match(uri):
        yield _finding(
            "resource.invalid_uri",
            Severity.ERROR,
            "the URI has no scheme (RFC 3986 requires `scheme:`)",
            uri,
            "use an absolute URI such as file:///path or a custom scheme like docs://page",
        )
    yield from _lint_metadata(entry, uri, "resource")
    if not _text(entry.get("mimeType")):
        yield _finding(
            "resource.missing_mime_type",
            Severity.INFO,
            "no `mimeType`: clients must guess how to show the contents",
            uri,
            "declare the mimeType (text/plain, application/json, image/png, ...)",
        )


def _lint_metadata(entry: dict[str, JSON], where: str, what: str) -> Iterator[Finding]:
    name = _text(entry.get("name"))
    if name is None or not name.strip():
        yield _finding(
            "resource.missing_name",
            Severity.ERROR,
            f"the {what} has no `name` (required by the MCP schema)",
            where,
            "give every resource and template a short programmatic `name`",
        )
    description = _text(entry.get("description"))
    if description is None or not description.strip():
        yield _finding(
            "resource.missing_description",
            Severity.INFO,
            f"the {what} has no `description`: a model cannot tell what it holds",
            where,
            "describe what the resource contains and when it is useful",
        )


def template_problem(template: str) -> str | None:
    """Why ``template`` is not an RFC 6570 URI template, or None when it is one."""
    depth = 0
    for char in template:
        if char == "{":
            depth += 1
            if depth > 1:
                return "nested `{`"
        elif char == "}":
            depth -= 1
            if depth < 0:
                return "a `}` without its `{`"
    if depth:
        return "an unclosed `{`"
    for body in _EXPRESSION.findall(template):
        names = body[1:] if body[:1] in _OPERATORS else body
        if not names:
            return "an empty expression `{}`"
        for varspec in names.split(","):
            if not _VARSPEC.match(varspec):
                return f"an invalid variable {varspec[:40]!r}"
    return None


def _lint_template(index: int, entry: JSON) -> Iterator[Finding]:
    template = _text(entry.get("uriTemplate")) if isinstance(entry, dict) else None
    if template is None:
        yield _finding(
            "resource.malformed",
            Severity.ERROR,
            f"resources/templates/list entry {index} is not an object with a string `uriTemplate`",
            f"template #{index}",
            "list each template as {uriTemplate, name, description?, mimeType?}",
        )
        return
    assert isinstance(entry, dict)
    problem = template_problem(template)
    if problem is not None:
        yield _finding(
            "resource.invalid_template",
            Severity.ERROR,
            f"`uriTemplate` is not an RFC 6570 URI template: {problem}",
            template,
            "write the template per RFC 6570, e.g. file:///{path} or docs://{section}/{page}",
        )
    yield from _lint_metadata(entry, template, "template")


# --------------------------------------------------------------------------- what to send


def readable_resources(resources: Sequence[JSON], limit: int) -> list[ResourceRef]:
    """The first ``limit`` listed resources with a string URI, each once."""
    refs: list[ResourceRef] = []
    seen: set[str] = set()
    for entry in resources:
        if len(refs) >= limit:
            break
        uri = _text(entry.get("uri")) if isinstance(entry, dict) else None
        if uri is None or uri in seen:
            continue
        seen.add(uri)
        assert isinstance(entry, dict)
        refs.append(ResourceRef(uri, _text(entry.get("mimeType"))))
    return refs


def template_variables(template: str) -> list[str]:
    """The variable names of an RFC 6570 template, in order, each once."""
    names: list[str] = []
    for body in _EXPRESSION.findall(template):
        body = body[1:] if body[:1] in _OPERATORS else body
        for varspec in body.split(","):
            name = re.sub(r"(:\d+|\*)$", "", varspec)
            if name and name not in names:
                names.append(name)
    return names


def expand_template(template: str, values: dict[str, str]) -> str | None:
    """RFC 6570 expansion of ``template`` with one string per variable (levels 1-3, which is
    all a value of plain unreserved characters needs); None for an invalid template."""
    if template_problem(template) is not None:
        return None

    def expand(match: re.Match[str]) -> str:
        body = match.group(1)
        op = body[0] if body[0] in _OPERATORS else ""
        names = [re.sub(r"(:\d+|\*)$", "", v) for v in (body[1:] if op else body).split(",")]
        first, sep, named = {
            "": ("", ",", False),
            "+": ("", ",", False),
            "#": ("#", ",", False),
            ".": (".", ".", False),
            "/": ("/", "/", False),
            ";": (";", ";", True),
            "?": ("?", "&", True),
            "&": ("&", "&", True),
        }[op]
        parts = [f"{n}={values[n]}" if named else values[n] for n in names if n in values]
        return first + sep.join(parts) if parts else ""

    return _EXPRESSION.sub(expand, template)


def _template_regex(template: str) -> re.Pattern[str]:
    pieces = _EXPRESSION.split(template)
    # split() alternates literal text and expression bodies; an expression may match anything.
    pattern = "".join(re.escape(p) if i % 2 == 0 else ".*" for i, p in enumerate(pieces))
    return re.compile(f"^{pattern}$", re.DOTALL)


def absent_uri(listed: Sequence[str], templates: Sequence[str]) -> str | None:
    """A URI that provably names no resource of this server: not listed, and matched by no
    template (a catch-all template makes every URI possible: None then)."""
    for candidate in (NOT_FOUND_URI, "mcprobe-absent:nonexistent"):
        if candidate in listed:
            continue
        if any(_template_regex(t).match(candidate) for t in templates):
            continue
        return candidate
    return None


# --------------------------------------------------------------------------- judges


def contents_problems(result: JSON, uri: str | None) -> list[str]:
    """What is wrong with a ``resources/read`` result's shape (empty list: nothing)."""
    if not isinstance(result, dict):
        return ["the result is not an object"]
    contents = result.get("contents")
    if not isinstance(contents, list):
        return ["the result has no `contents` array"]
    problems: list[str] = []
    for index, item in enumerate(contents[:50]):
        where = f"contents[{index}]"
        if not isinstance(item, dict):
            problems.append(f"{where} is not an object")
            continue
        if not isinstance(item.get("uri"), str):
            problems.append(f"{where} has no string `uri`")
        has_text, has_blob = "text" in item, "blob" in item
        if has_text == has_blob:
            problems.append(f"{where} must carry exactly one of `text` or `blob`")
        elif has_text and not isinstance(item["text"], str):
            problems.append(f"{where}.text is not a string")
        elif has_blob and not _is_base64(item["blob"]):
            problems.append(f"{where}.blob is not base64")
        mime = item.get("mimeType")
        if mime is not None and not isinstance(mime, str):
            problems.append(f"{where}.mimeType is not a string")
    return problems


def _is_base64(value: JSON) -> bool:
    if not isinstance(value, str):
        return False
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _media_type(value: str) -> str:
    return value.split(";", 1)[0].strip().lower()


def judge_read(ref: ResourceRef, raw: RawCall, request: str) -> list[CheckResult]:
    """``resources.read`` (and ``resources.read_mime``) for a resource the server listed itself:
    the URI is the server's own, so a timeout, crash, internal error or malformed result is its
    fault; another JSON-RPC error may be the environment (a file that went away): inconclusive."""
    out: list[CheckResult] = []
    seen = describe(raw)
    common = {"subject": ref.uri, "request": request, "observed": seen}
    if is_failure_of_server(raw):
        out.append(
            RESOURCES_READ.result(
                Verdict.FAIL,
                f"reading a listed resource failed: {seen}",
                **common,
            )
        )
        return out
    if raw.kind is RawKind.JSONRPC_ERROR:
        out.append(
            RESOURCES_READ.result(
                Verdict.INCONCLUSIVE,
                "the server listed this resource but refused to read it; it may depend on the "
                "environment (a file, a service) — check that it is readable where the server runs",
                **common,
            )
        )
        return out
    if raw.kind is not RawKind.RESULT or raw.result is None:
        out.append(
            RESOURCES_READ.result(Verdict.INCONCLUSIVE, f"no result to judge: {seen}", **common)
        )
        return out
    problems = contents_problems(raw.result, ref.uri)
    if problems:
        out.append(
            RESOURCES_READ.result(
                Verdict.FAIL,
                "the read result breaks the MCP schema: " + "; ".join(problems[:3]),
                **common,
            )
        )
        return out
    out.append(RESOURCES_READ.result(Verdict.PASS, "read, well-formed contents", **common))
    if ref.mime_type:
        declared = _media_type(ref.mime_type)
        sent = {
            _media_type(item["mimeType"])
            for item in raw.result["contents"]
            if isinstance(item, dict)
            and isinstance(item.get("mimeType"), str)
            and item.get("uri") == ref.uri
        }
        if sent and declared not in sent:
            out.append(
                RESOURCES_READ_MIME.result(
                    Verdict.FAIL,
                    f"listed as {quoted(declared)} but read back as "
                    f"{', '.join(quoted_list(sorted(sent)))}",
                    **common,
                )
            )
    return out


def judge_template_read(
    template: str, uri: str, provenance: str, raw: RawCall, request: str
) -> CheckResult:
    """``resources.template_read``: mcprobe chose the values (``provenance`` says how), so only a
    malformed result, a timeout, a crash or an internal error is the server's fault."""
    seen = describe(raw)
    common = {"subject": template, "request": request, "observed": seen}
    if raw.kind in (RawKind.TIMEOUT, RawKind.TRANSPORT_LOST):
        return RESOURCES_TEMPLATE_READ.result(
            Verdict.FAIL,
            f"reading {quoted(uri)} failed: {seen}",
            **common,
        )
    if raw.kind is RawKind.JSONRPC_ERROR:
        if is_internal_error(raw.error_code):
            return RESOURCES_TEMPLATE_READ.result(
                Verdict.FAIL,
                f"an internal error for {quoted(uri)}, a URI the template allows ({provenance})",
                **common,
            )
        return RESOURCES_TEMPLATE_READ.result(
            Verdict.INCONCLUSIVE,
            f"{quoted(uri)} ({provenance}) was refused; the template does not say which values "
            "exist",
            **common,
        )
    if raw.result is None:
        return RESOURCES_TEMPLATE_READ.result(
            Verdict.INCONCLUSIVE, f"no result to judge: {seen}", **common
        )
    problems = contents_problems(raw.result, uri)
    if problems:
        return RESOURCES_TEMPLATE_READ.result(
            Verdict.FAIL,
            f"the read result for {quoted(uri)} breaks the MCP schema: " + "; ".join(problems[:3]),
            **common,
        )
    return RESOURCES_TEMPLATE_READ.result(
        Verdict.PASS,
        f"{quoted(uri)} ({provenance}) read, well-formed",
        **common,
    )


def judge_not_found(uri: str, raw: RawCall, request: str) -> list[CheckResult]:
    """``resources.not_found`` (any error, not internal) and ``resources.not_found_code``
    (-32002, a SHOULD) for a URI that provably names nothing."""
    seen = describe(raw)
    common = {"subject": uri, "request": request, "observed": seen}
    if raw.kind is RawKind.JSONRPC_ERROR and not is_internal_error(raw.error_code):
        out = [RESOURCES_NOT_FOUND.result(Verdict.PASS, "rejected with a JSON-RPC error", **common)]
        # INVALID_PARAMS (-32602): what 2026-07-28 uses instead (it retired -32002)
        if raw.error_code in (RESOURCE_NOT_FOUND, INVALID_PARAMS):
            out.append(
                RESOURCES_NOT_FOUND_CODE.result(Verdict.PASS, f"code {raw.error_code}", **common)
            )
        else:
            out.append(
                RESOURCES_NOT_FOUND_CODE.result(
                    Verdict.FAIL,
                    f"rejected with code {raw.error_code}; the spec asks for -32002 "
                    "(2026-07-28: -32602)",
                    **common,
                )
            )
        return out
    if raw.kind is RawKind.RESULT:
        if raw.result is None:
            return [
                RESOURCES_NOT_FOUND.result(
                    Verdict.INCONCLUSIVE,
                    f"no result to judge: {seen}",
                    **common,
                )
            ]
        contents = raw.result.get("contents") if isinstance(raw.result, dict) else None
        what = "empty contents" if contents == [] else "contents"
        return [
            RESOURCES_NOT_FOUND.result(
                Verdict.FAIL,
                f"a URI with a scheme nobody serves came back as a success ({what}), not an error",
                **common,
            )
        ]
    if raw.kind is RawKind.NOT_RUN:
        return [RESOURCES_NOT_FOUND.result(Verdict.INCONCLUSIVE, seen, **common)]
    return [
        RESOURCES_NOT_FOUND.result(
            Verdict.FAIL,
            f"an unknown URI was not rejected cleanly: {seen}",
            **common,
        )
    ]


def judge_subscribe(uri: str, raw: RawCall, request: str) -> CheckResult:
    """``resources.subscribe`` when the server advertises ``resources.subscribe: true``: a listed
    URI must be accepted; -32601 (not implemented) is a false advertisement."""
    seen = describe(raw)
    common = {"subject": uri, "request": request, "observed": seen}
    if raw.kind is RawKind.RESULT and isinstance(raw.result, dict):
        return RESOURCES_SUBSCRIBE.result(Verdict.PASS, "subscribed", **common)
    if raw.kind is RawKind.JSONRPC_ERROR and raw.error_code == METHOD_NOT_FOUND:
        return RESOURCES_SUBSCRIBE.result(
            Verdict.FAIL,
            "advertises resources.subscribe but does not implement resources/subscribe",
            **common,
        )
    if is_failure_of_server(raw):
        return RESOURCES_SUBSCRIBE.result(Verdict.FAIL, f"subscribing failed: {seen}", **common)
    return RESOURCES_SUBSCRIBE.result(
        Verdict.INCONCLUSIVE, f"subscribing was refused: {seen}", **common
    )
