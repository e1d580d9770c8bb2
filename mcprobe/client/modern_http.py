"""The HTTP headers a 2026-07-28 request carries on Streamable HTTP (the I/O half of the era).

In 2026-07-28 every POST names its own protocol version and routing: ``MCP-Protocol-Version``
(the one in the body's ``_meta`` envelope), ``Mcp-Method`` (the body's method), ``Mcp-Name`` for
the methods that name a tool, prompt or resource, and an ``Mcp-Param-<token>`` header for each
``tools/call`` argument the tool's input schema annotates with ``x-mcp-header``. A server checks
them against the body and refuses a request whose headers are missing or disagree (the SDK
answers 400 with -32020), so mcprobe mirrors the body exactly as the SDK's own client does,
using the SDK's encoders: a malformed case then reaches the tool's argument validation instead
of being stopped at the header check (which would make mcprobe's own request the cause).
Headers are built from what is actually sent, so a case with a non-string tool name simply has
no ``Mcp-Name``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
    find_invalid_x_mcp_header,
    mcp_param_headers,
    x_mcp_header_map,
)
from mcp_types import PROTOCOL_VERSION_META_KEY

__all__ = ["HeaderMaps", "header_maps", "routing_headers"]

HeaderMaps = dict[str, dict[tuple[str, ...], str]]
"""Tool name → its ``x-mcp-header`` annotations (property path → header token)."""


def header_maps(tools: Iterable[Any]) -> HeaderMaps:
    """The ``x-mcp-header`` maps of the listed tools that declare valid ones (a tool whose
    annotations are invalid gets none: the SDK's client drops such a tool altogether)."""
    maps: HeaderMaps = {}
    for tool in tools:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or find_invalid_x_mcp_header(schema) is not None:
            continue
        found = x_mcp_header_map(schema)
        if found:
            maps[tool["name"]] = found
    return maps


def routing_headers(
    method: str, params: Mapping[str, Any] | None, version: str, maps: HeaderMaps
) -> dict[str, str]:
    """The headers of one 2026-07-28 POST: the version the body's ``_meta`` names (so a request
    naming an unsupported version says so in both places), the method, and the name/params
    mirrors."""
    params = params or {}
    meta = params.get("_meta")
    named = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, Mapping) else None
    headers = {
        MCP_PROTOCOL_VERSION_HEADER: named if isinstance(named, str) else version,
        MCP_METHOD_HEADER: method,
    }
    key = NAME_BEARING_METHODS.get(method)
    name = params.get(key) if key is not None else None
    if isinstance(name, str):
        headers[MCP_NAME_HEADER] = encode_header_value(name)
    arguments = params.get("arguments")
    if method == "tools/call" and isinstance(name, str) and isinstance(arguments, Mapping):
        headers.update(mcp_param_headers(maps.get(name, {}), arguments))
    return headers
