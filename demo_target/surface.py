"""The demo target's resources and prompts, each with one deliberate flaw, and one protocol
defect (SPEC §9: one demo run shows every kind of finding).

=========================  ======================================================================
``demo://docs/readme``     a well-formed text resource (resources.read passes)
``demo://docs/logo``       read back with a ``blob`` that is not base64 (resources.read fails)
``demo://docs/{page}``     a template whose pages read fine (resources.template_read passes)
``summarise`` prompt       its ``topic`` argument has no description (lint), and a prompts/get
                           without the required ``topic`` is answered instead of rejected
                           (prompts.missing_argument fails)
``completions``            declared, but completion/complete answers -32601 (protocol.completion)
=========================  ======================================================================

An unknown resource URI gets -32002 and an unknown prompt -32602, as the spec asks.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp import MCPError
from mcp.server.context import ServerRequestContext

README = "demo://docs/readme"
LOGO = "demo://docs/logo"
PAGE_PREFIX = "demo://docs/page-"

RESOURCES = [
    types.Resource(
        uri=README,
        name="readme",
        description="How to use the demo target.",
        mime_type="text/plain",
    ),
    types.Resource(uri=LOGO, name="logo", description="The demo's logo.", mime_type="image/png"),
]
TEMPLATES = [
    types.ResourceTemplate(
        uri_template="demo://docs/page-{page}",
        name="page",
        description="A page of the demo documentation by number.",
        mime_type="text/plain",
    )
]
PROMPTS = [
    types.Prompt(
        name="summarise",
        description="Summarise a topic of the demo documentation.",
        arguments=[types.PromptArgument(name="topic", required=True)],
    )
]


async def list_resources(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=RESOURCES)


async def list_templates(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=TEMPLATES)


async def read_resource(
    ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    uri = str(params.uri)
    content: types.TextResourceContents | types.BlobResourceContents
    if uri == README:
        content = types.TextResourceContents(
            uri=uri, mime_type="text/plain", text="Call well_behaved to see a clean tool."
        )
    elif uri == LOGO:
        # The flaw: "blob" must be base64; this is plain text.
        content = types.BlobResourceContents(uri=uri, mime_type="image/png", blob="<not base64>")
    elif uri.startswith(PAGE_PREFIX):
        content = types.TextResourceContents(
            uri=uri, mime_type="text/plain", text=f"Page {uri[len(PAGE_PREFIX) :][:20]}."
        )
    else:
        raise MCPError(-32002, "Resource not found")
    return types.ReadResourceResult(contents=[content])


async def list_prompts(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=PROMPTS)


async def get_prompt(
    ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    if params.name != "summarise":
        raise MCPError(types.INVALID_PARAMS, "Unknown prompt")
    # The flaw: the required "topic" is never checked.
    topic = (params.arguments or {}).get("topic", "everything")
    text = f"Summarise the demo documentation about {topic[:50]}."
    return types.GetPromptResult(
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        ]
    )


async def complete(
    ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
) -> types.CompleteResult:
    # The protocol defect: the capability is declared (this handler exists) but not implemented.
    raise MCPError(types.METHOD_NOT_FOUND, "Method not found")
