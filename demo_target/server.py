"""The deliberately flawed demo target (SPEC §9): one server that shows every lint finding and
every fuzz outcome and flag that a live target can produce without dying.

Built on the SDK's low-level ``Server``: ``MCPServer`` would validate arguments away (the flaws we
need), and the SDK's result sieve would refuse the malformed ``tools/list`` we want to publish
(a root schema that is not an object, an empty schema). A small middleware therefore answers
``tools/list`` with the raw definitions below, exactly as written.

What each tool demonstrates (lint code / fuzz behaviour):

=================  ==========================================================================
``greet``          tool.missing_description, param.untyped, param.missing_description,
                   schema.no_required; answers anything (ok)
``divide``         param.untyped; returns ``NaN`` / ``None`` for garbage (silentlyAccepted)
``set_mode``       tool.thin_description, param.missing_description (enum); bad input gets a
                   JSON-RPC ``-32602`` error; ``destructiveHint: false`` only (an additive
                   write), so called only with ``--fuzz-writes``
``well_behaved``   clean schema, validates input and rejects it with ``isError`` (toolError);
                   valid structured output
``lookup_user``    rejects bad input, but the error text carries a Python traceback (leak)
``get_status``     tool.no_input_schema (``{}``); ``structuredContent`` breaks its
                   ``outputSchema`` (outputSchemaViolation)
``ping_backend``   a successful call with no content at all (emptySuccess); arguments get a
                   JSON-RPC ``-32602`` error (protocolError)
``open_repo``      refuses mcprobe's placeholder path (the refused sample is inconclusive, not a
                   failure); answers the branch of a real git checkout (a realistic
                   ``--examples`` value); rejects malformed input as invalid arguments
``fetch_page``     needs the network, which a sandbox lacks (environment: counted in no score)
``backup_status``  answers a valid call with ``Error: …`` text but no ``isError``
                   (failureAsSuccess)
``search docs``    tool.unusual_name, schema.invalid (``minimum`` is a string); the optional
                   ``limit`` says "REQUIRED" (security.param_contradiction: the Security
                   dimension's one defect)
``reset_database`` listed twice: tool.duplicate_name, tool.no_annotations, and the second copy
                   schema.root_not_object; un-annotated, so skipped by default
=================  ==========================================================================

Resources, a template, a prompt and a declared-but-unimplemented ``completions`` capability come
from ``demo_target.surface`` (one flawed resource, one flawed prompt, one protocol defect).

An unknown tool name gets a JSON-RPC ``-32602`` error. With ``hazards=True`` two more
read-only tools come first in the listing, for tests of hanging and dying targets: ``hang``
(never answers) and ``explode`` (the process exits at once). All answers are deterministic:
no clock, no randomness.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

import anyio
import mcp_types as types
from jsonschema import Draft202012Validator
from mcp import MCPError
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.lowlevel import Server

from demo_target import surface

NAME = "demo-target"
VERSION = "0.3.0"

_READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}

_WELL_BEHAVED_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {
            "type": "string",
            "minLength": 1,
            "maxLength": 100,
            "description": "The text to echo back.",
        },
        "count": {
            "type": "integer",
            "minimum": 1,
            "maximum": 5,
            "description": "How many times to repeat the text (1-5).",
        },
    },
    "required": ["text"],
    "additionalProperties": False,
}

_LOOKUP_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "user_id": {
            "type": "integer",
            "minimum": 1,
            "examples": [42],
            "description": "The numeric id of the user.",
        }
    },
    "required": ["user_id"],
    "additionalProperties": False,
}

_PING_INPUT: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def _one_string(name: str, description: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": description, **extra}},
        "required": [name],
        "additionalProperties": False,
    }


_REPO_INPUT = _one_string("repo_path", "Path of a git repository on the server.")
_FETCH_INPUT = _one_string("url", "The page to fetch.", format="uri")
_BACKUP_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}

TOOLS: tuple[dict[str, Any], ...] = (
    {
        "name": "greet",
        "inputSchema": {"type": "object", "properties": {"name": {}}},
        "annotations": _READ_ONLY,
    },
    {
        "name": "divide",
        "description": "Divide a by b and return the quotient.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "a": {"description": "The dividend."},
                "b": {"description": "The divisor."},
            },
            "required": ["a", "b"],
        },
        "annotations": _READ_ONLY,
    },
    {
        "name": "set_mode",
        "description": "Set mode.",
        "inputSchema": {
            "type": "object",
            "properties": {"mode": {"type": "string", "enum": ["fast", "safe"]}},
            "required": ["mode"],
            "additionalProperties": False,
        },
        "annotations": {"destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    },
    {
        "name": "well_behaved",
        "description": "Echo a short text back, optionally repeated; rejects invalid input.",
        "inputSchema": _WELL_BEHAVED_INPUT,
        "outputSchema": {
            "type": "object",
            "properties": {"echo": {"type": "string"}, "count": {"type": "integer"}},
            "required": ["echo", "count"],
        },
        "annotations": _READ_ONLY,
    },
    {
        "name": "lookup_user",
        "description": "Look up a user record by its numeric id.",
        "inputSchema": _LOOKUP_INPUT,
        "annotations": _READ_ONLY,
    },
    {
        "name": "get_status",
        "description": "Report the service status as structured data.",
        "inputSchema": {},
        "outputSchema": {
            "type": "object",
            "properties": {"status": {"type": "string"}, "uptimeSeconds": {"type": "integer"}},
            "required": ["status", "uptimeSeconds"],
        },
        "annotations": _READ_ONLY,
    },
    {
        "name": "ping_backend",
        "description": "Check that the backend answers; takes no arguments.",
        "inputSchema": _PING_INPUT,
        "annotations": _READ_ONLY,
    },
    {
        "name": "open_repo",
        "description": "Show the current branch of the git repository at repo_path.",
        "inputSchema": _REPO_INPUT,
        "annotations": _READ_ONLY,
    },
    {
        "name": "fetch_page",
        "description": "Fetch a web page and return its text.",
        "inputSchema": _FETCH_INPUT,
        "annotations": {**_READ_ONLY, "openWorldHint": True},
    },
    {
        "name": "backup_status",
        "description": "Report when the demo's data was last backed up.",
        "inputSchema": _BACKUP_INPUT,
        "annotations": _READ_ONLY,
    },
    {
        "name": "search docs",
        "description": "Full-text search over the product documentation.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to look for."},
                "limit": {
                    "type": "integer",
                    "minimum": "one",
                    "description": "Maximum hits. REQUIRED.",
                },
            },
            "required": ["query"],
        },
        "annotations": _READ_ONLY,
    },
    {
        "name": "reset_database",
        "description": "Delete every row in every table. Cannot be undone.",
        "inputSchema": {
            "type": "object",
            "properties": {"confirm": {"type": "boolean", "description": "Must be true."}},
            "required": ["confirm"],
        },
    },
    {
        "name": "reset_database",
        "description": "Older alias of reset_database, kept for compatibility.",
        "inputSchema": {"type": "array", "items": {"type": "string"}},
    },
)

HAZARD_TOOLS: tuple[dict[str, Any], ...] = (
    {
        "name": "hang",
        "description": "Never answers (test hazard).",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": _READ_ONLY,
    },
    {
        "name": "explode",
        "description": "Exits the server process immediately (test hazard).",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": _READ_ONLY,
    },
)

# A fixed, fake traceback: the demo leaks internals the way a careless server does.
_LEAKED_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/srv/demo/users.py", line 42, in lookup\n'
    "    uid = int(arguments['user_id'])\n"
    "ValueError: invalid literal for int() with base 10"
)


def _text(text: str, *, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], is_error=is_error
    )


def _greet(args: Mapping[str, Any]) -> types.CallToolResult:
    return _text(f"Hello, {args.get('name', 'world')}!")


def _divide(args: Mapping[str, Any]) -> types.CallToolResult:
    a, b = args.get("a"), args.get("b")
    if a is None or b is None:
        return _text("None")
    try:
        quotient = float(a) / float(b)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        quotient = math.nan
    return _text(repr(quotient) if not math.isnan(quotient) else "NaN")


def _set_mode(args: Mapping[str, Any]) -> types.CallToolResult:
    mode = args.get("mode")
    if set(args) != {"mode"} or mode not in ("fast", "safe"):
        raise MCPError(types.INVALID_PARAMS, "Invalid params: 'mode' must be one of: fast, safe")
    return _text(f"Mode set to {mode}.")


def _well_behaved(args: Mapping[str, Any]) -> types.CallToolResult:
    errors = sorted(e.message for e in Draft202012Validator(_WELL_BEHAVED_INPUT).iter_errors(args))
    if errors:
        return _text("Invalid arguments: " + "; ".join(errors), is_error=True)
    count = int(args.get("count", 1))
    echo = " ".join([str(args["text"])] * count)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=echo)],
        structured_content={"echo": echo, "count": count},
    )


def _lookup_user(args: Mapping[str, Any]) -> types.CallToolResult:
    uid = args.get("user_id")
    if set(args) != {"user_id"} or type(uid) is not int or uid < 1:
        return _text(_LEAKED_TRACEBACK, is_error=True)
    return _text(f"User {uid}: demo-user-{uid}")


def _get_status(args: Mapping[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text="status: ok")],
        structured_content={"status": "ok"},
    )


def _ping_backend(args: Mapping[str, Any]) -> types.CallToolResult:
    if args:
        # A JSON-RPC rejection from a read-only tool: set_mode (the other one) is an additive
        # write that a default run does not call.
        raise MCPError(types.INVALID_PARAMS, "Invalid params: ping_backend takes no arguments")
    return types.CallToolResult(content=[])


def _invalid(schema: dict[str, Any], args: Mapping[str, Any]) -> types.CallToolResult | None:
    errors = sorted(e.message for e in Draft202012Validator(schema).iter_errors(args))
    return _text("Invalid arguments: " + "; ".join(errors), is_error=True) if errors else None


def _open_repo(args: Mapping[str, Any]) -> types.CallToolResult:
    refused = _invalid(_REPO_INPUT, args)
    if refused is not None:
        return refused
    head = os.path.join(str(args["repo_path"]), ".git", "HEAD")
    try:
        with open(head, encoding="utf-8") as fh:
            ref = fh.read(200).strip()
    except (OSError, ValueError):
        return _text(f"not a git repository: {str(args['repo_path'])[:80]!r}", is_error=True)
    return _text(f"On branch {ref.removeprefix('ref: refs/heads/')}")


def _fetch_page(args: Mapping[str, Any]) -> types.CallToolResult:
    refused = _invalid(_FETCH_INPUT, args)
    if refused is not None:
        return refused
    # What a real fetch says in a sandbox without DNS (the demo never touches the network).
    return _text("request failed, reason: getaddrinfo ENOTFOUND example.com", is_error=True)


def _backup_status(args: Mapping[str, Any]) -> types.CallToolResult:
    refused = _invalid(_BACKUP_INPUT, args)
    if refused is not None:
        return refused
    return _text("Error: no backup service is configured")  # a failure dressed as a success


def _search_docs(args: Mapping[str, Any]) -> types.CallToolResult:
    return _text(f"No documents match {str(args.get('query', ''))[:50]!r}.")


def _reset_database(args: Mapping[str, Any]) -> types.CallToolResult:
    return _text("Refused: the demo target never deletes anything.", is_error=True)


_HANDLERS = {
    "greet": _greet,
    "divide": _divide,
    "set_mode": _set_mode,
    "well_behaved": _well_behaved,
    "lookup_user": _lookup_user,
    "get_status": _get_status,
    "ping_backend": _ping_backend,
    "open_repo": _open_repo,
    "fetch_page": _fetch_page,
    "backup_status": _backup_status,
    "search docs": _search_docs,
    "reset_database": _reset_database,
}


def build_server(*, hazards: bool = False) -> Server[Any]:
    """The demo target as a low-level ``Server``; ``hazards`` adds ``explode`` and ``hang``."""
    tools = HAZARD_TOOLS + TOOLS if hazards else TOOLS

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        # The middleware below replaces this empty list with the raw definitions.
        return types.ListToolsResult(tools=[])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        args = params.arguments or {}
        if hazards and params.name == "explode":
            os._exit(3)
        if hazards and params.name == "hang":
            await anyio.sleep_forever()
        handler = _HANDLERS.get(params.name)
        if handler is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name[:64]}")
        return handler(args)

    server: Server[Any] = Server(
        NAME,
        version=VERSION,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=surface.list_resources,
        on_list_resource_templates=surface.list_templates,
        on_read_resource=surface.read_resource,
        on_list_prompts=surface.list_prompts,
        on_get_prompt=surface.get_prompt,
        on_completion=surface.complete,
    )

    async def raw_tools_list(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        # The SDK's result sieve would refuse our malformed schemas, so the (empty, sieved)
        # answer of the handler gets the raw definitions swapped in after the chain ran.
        result = await call_next(ctx)
        if ctx.method == "tools/list" and isinstance(result, dict):
            return {**result, "tools": [dict(t) for t in tools]}
        return result

    server.middleware.append(raw_tools_list)
    return server
