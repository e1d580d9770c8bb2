"""Does a ``tools/call`` result match the MCP ``CallToolResult`` schema of the negotiated version?

Pure: no I/O. ``result_shape_problems`` is called first in classification: a result that breaks
the schema (``isError`` not a boolean, ``content`` not a list, a malformed content item,
``structuredContent`` not an object where the version defines it) is a protocol violation
(``protocolError`` without an error code, see ``classify``), never a clean success: a conforming
client (the SDK's typed layer) rejects such a reply, so the tool is unusable as sent.

Per version (the schema.ts of each revision):

- every revision: ``content`` is a required array of content blocks; ``isError`` is an optional
  boolean; ``_meta`` an optional object;
- content block types: ``text``, ``image``, ``resource`` (2024-11-05); ``audio`` from 2025-03-26;
  ``resource_link`` from 2025-06-18;
- ``structuredContent`` (an object) from 2025-06-18; before that it is an unknown extra field,
  which the schema allows.

An unknown or unsupported negotiated version is checked against ``FALLBACK_VERSION`` (the
version itself is a finding of its own, ``server.unsupported_protocol_version``).
"""

from __future__ import annotations

import json

from mcprobe.core.model import JSON

__all__ = [
    "FALLBACK_VERSION",
    "HANDSHAKE_VERSIONS",
    "KNOWN_VERSIONS",
    "describe",
    "result_shape_problems",
    "version_problem",
]

KNOWN_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
"""Every MCP protocol revision mcprobe knows the result schema of, oldest first."""

HANDSHAKE_VERSIONS = KNOWN_VERSIONS[:4]
"""The revisions an ``initialize`` handshake can negotiate (2026-07-28 is stateless: no
``initialize`` at all)."""
FALLBACK_VERSION = "2025-11-25"
"""The schema applied when the negotiated version is unknown: the newest one reachable through
``initialize``, which is what mcprobe offers."""
_MAX_LISTED = 3  # problems named in the note; the count says how many more


def _version(protocol_version: str | None) -> str:
    if protocol_version is not None and protocol_version in KNOWN_VERSIONS:
        return protocol_version
    return FALLBACK_VERSION


def _at_least(version: str, oldest: str) -> bool:
    return KNOWN_VERSIONS.index(version) >= KNOWN_VERSIONS.index(oldest)


def _content_types(version: str) -> tuple[str, ...]:
    types = ["text", "image", "resource"]
    if _at_least(version, "2025-03-26"):
        types.append("audio")
    if _at_least(version, "2025-06-18"):
        types.append("resource_link")
    return tuple(types)


def _json_type(value: JSON) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _string_field(item: dict[str, JSON], name: str, where: str) -> list[str]:
    if not isinstance(item.get(name), str):
        found = "missing" if name not in item else f"a {_json_type(item[name])}"
        return [f"{where}.{name} is {found}, not a string"]
    return []


def _item_problems(item: JSON, where: str, types: tuple[str, ...]) -> list[str]:
    if not isinstance(item, dict):
        return [f"{where} is a {_json_type(item)}, not a content object"]
    kind = item.get("type")
    if not isinstance(kind, str):
        return [f"{where}.type is missing or not a string"]
    if kind not in types:
        return [f"{where}.type {kind[:40]!r} is not a content type of this version"]
    problems: list[str] = []
    if kind == "text":
        problems += _string_field(item, "text", where)
    elif kind in ("image", "audio"):
        problems += _string_field(item, "data", where)
        problems += _string_field(item, "mimeType", where)
    elif kind == "resource":
        resource = item.get("resource")
        if not isinstance(resource, dict):
            problems.append(f"{where}.resource is not an object")
        else:
            problems += _string_field(resource, "uri", f"{where}.resource")
            if not isinstance(resource.get("text"), str) and not isinstance(
                resource.get("blob"), str
            ):
                problems.append(f"{where}.resource has neither a string text nor a string blob")
    elif kind == "resource_link":
        problems += _string_field(item, "uri", where)
        problems += _string_field(item, "name", where)
    if "annotations" in item and not isinstance(item["annotations"], dict):
        problems.append(f"{where}.annotations is not an object")
    return problems


_TYPES_OF = {version: _content_types(version) for version in KNOWN_VERSIONS}
_STRUCTURED_IN = {version: _at_least(version, "2025-06-18") for version in KNOWN_VERSIONS}


def _plain_text(item: JSON) -> bool:
    """A ``text`` block with a string ``text`` and no ``annotations``: a content type of every
    version, with nothing ``_item_problems`` could object to (the common item, checked at once)."""
    return (
        isinstance(item, dict)
        and item.get("type") == "text"
        and isinstance(item.get("text"), str)
        and "annotations" not in item
    )


def result_shape_problems(result: JSON, protocol_version: str | None) -> tuple[str, ...]:
    """Every way ``result`` breaks the ``CallToolResult`` schema of ``protocol_version``
    (``FALLBACK_VERSION`` when None or unknown), as short phrases naming the field; empty when
    it conforms. Never raises for anything a target sends."""
    version = _version(protocol_version)
    if not isinstance(result, dict):
        return (f"the result is a JSON {_json_type(result)}, not an object",)
    problems: list[str] = []
    if "content" not in result:
        problems.append("`content` is missing (required)")
    elif not isinstance(result["content"], list):
        problems.append(f"`content` is a {_json_type(result['content'])}, not an array")
    else:
        types = _TYPES_OF[version]
        for index, item in enumerate(result["content"]):
            if _plain_text(item):
                continue
            problems += _item_problems(item, f"content[{index}]", types)
            if len(problems) > 50:  # enough to say it is broken; never walk a huge list
                break
    if "isError" in result and not isinstance(result["isError"], bool):
        problems.append(f"`isError` is a {_json_type(result['isError'])}, not a boolean")
    if (
        _STRUCTURED_IN[version]
        and "structuredContent" in result
        and not isinstance(result["structuredContent"], dict)
    ):
        found = _json_type(result["structuredContent"])
        problems.append(f"`structuredContent` is a {found}, not an object")
    if "_meta" in result and not isinstance(result["_meta"], dict):
        problems.append(f"`_meta` is a {_json_type(result['_meta'])}, not an object")
    return tuple(problems)


def version_problem(version: str | None) -> str | None:
    """Why the protocol version a server answered ``initialize`` with is unsupported, or None
    when it is one mcprobe (and the SDKs) speak. None for a missing version too: that is a schema
    problem of the reply (``server.invalid_initialize``)."""
    if version is None or version in HANDSHAKE_VERSIONS:
        return None
    shown = json.dumps(version[:40], ensure_ascii=True)
    supported = ", ".join(HANDSHAKE_VERSIONS)
    if version in KNOWN_VERSIONS:
        why = "a stateless-era revision that an initialize handshake cannot negotiate"
    else:
        why = "not a supported MCP protocol version"
    return (
        f"the server answered initialize with protocolVersion {shown}: {why} "
        f"(supported: {supported}); mcprobe went on with the {FALLBACK_VERSION} rules, which the "
        "server may not follow"
    )


def describe(problems: tuple[str, ...], protocol_version: str | None) -> str:
    """One note for the report: which schema, and the first few problems."""
    version = _version(protocol_version)
    shown = "; ".join(problems[:_MAX_LISTED])
    more = f" (+{len(problems) - _MAX_LISTED} more)" if len(problems) > _MAX_LISTED else ""
    return f"invalid result: breaks the MCP {version} CallToolResult schema: {shown}{more}"
