"""A hand-written JSON-RPC stdio server with resources, templates, prompts, completion and
logging, conforming by default; each argv word breaks one thing (one check's "fail" direction).

    python surface_server.py [DEFECT ...]

Standard library only, deterministic. Defects:
  read_no_uri          resources/read contents lack `uri`
  read_mime            resources/read answers text/html for a resource listed as text/plain
  not_found_success    reading an unknown URI returns empty contents (no error)
  not_found_code       reading an unknown URI is rejected with -32000 (not -32002/-32602)
  template_internal    reading a template URI fails with -32603
  subscribe_missing    advertises resources.subscribe but resources/subscribe is -32601
  missing_arg_ok       prompts/get without the required argument succeeds
  unknown_prompt_ok    prompts/get of an unknown name succeeds
  prompt_bad_role      prompts/get answers a message with role "system"
  ping_error           ping is answered with -32603
  unknown_method_code  an unknown method gets -32600 instead of -32601
  cursor_ok            tools/list ignores an invalid cursor (a page comes back)
  no_templates         resources/templates/list is -32601 (optional: honest, not a defect)
  logging_missing      advertises logging but logging/setLevel is -32601
  completion_bad       completion/complete answers values that are not strings
  version_echo         initialize answers with whatever protocolVersion was offered
  version_refuse       initialize offering an unknown version gets a JSON-RPC error
  echo_caps            the instructions are the client capabilities initialize declared (JSON)
  no_tools             a resources/prompts-only server: no `tools` capability, an empty tools/list
  roots_tool           a second tool, list_roots, is listed only to a client whose initialize
                       declared roots (server-everything does this with get-roots-list)
  lint                 resources/prompts with lint problems (no name, bad URI, duplicate URI,
                       invalid template, undescribed prompt and argument, required: "yes")
"""

from __future__ import annotations

import json
import sys
from typing import Any

Json = Any

RESOURCES: list[dict[str, Json]] = [
    {
        "uri": "docs://guide/intro",
        "name": "intro",
        "description": "The introduction of the guide.",
        "mimeType": "text/plain",
    },
    {
        "uri": "docs://guide/logo",
        "name": "logo",
        "description": "The guide's logo.",
        "mimeType": "image/png",
    },
]
LINT_RESOURCES: list[dict[str, Json]] = [
    {"uri": "no-scheme-here", "description": "A resource with a relative URI."},
    {"uri": "docs://guide/intro", "name": "intro-again", "description": "Same URI again."},
]
TEMPLATES: list[dict[str, Json]] = [
    {
        "uriTemplate": "docs://guide/page/{id}",
        "name": "page",
        "description": "A page of the guide by number.",
        "mimeType": "text/plain",
    }
]
LINT_TEMPLATES: list[dict[str, Json]] = [
    {"uriTemplate": "docs://guide/{unclosed", "name": "broken"}
]
PROMPTS: list[dict[str, Json]] = [
    {
        "name": "summarise",
        "description": "Summarise a topic of the guide.",
        "arguments": [{"name": "topic", "description": "The topic.", "required": True}],
    },
    {"name": "hello", "description": "A greeting prompt with no arguments."},
]
LINT_PROMPTS: list[dict[str, Json]] = [
    {"name": "undescribed", "arguments": [{"name": "x", "required": "yes"}]},
]
TOOLS: list[dict[str, Json]] = [
    {
        "name": "noop",
        "description": "Does nothing at all, quickly.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    }
]


ROOTS_TOOL: dict[str, Json] = {
    "name": "list_roots",
    "description": "Lists the client's roots (shown only to clients that declare roots).",
    "inputSchema": {"type": "object", "properties": {}},
    "annotations": {"readOnlyHint": True},
}


class SurfaceServer:
    def __init__(self, argv: list[str]) -> None:
        self.defects = set(argv)
        self.client_caps: dict[str, Json] = {}

    def send(self, message: dict[str, Json]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def reply(self, rid: Json, result: dict[str, Json]) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def error(self, rid: Json, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def run(self) -> None:
        for line in sys.stdin:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict) or "id" not in message or "method" not in message:
                continue
            params = message.get("params")
            self.handle(
                message["id"], str(message["method"]), params if isinstance(params, dict) else {}
            )

    # ------------------------------------------------------------------ dispatch

    def handle(self, rid: Json, method: str, params: dict[str, Json]) -> None:
        handler = {
            "initialize": self.initialize,
            "ping": self.ping,
            "tools/list": self.tools_list,
            "resources/list": self.resources_list,
            "resources/templates/list": self.templates_list,
            "resources/read": self.read,
            "resources/subscribe": self.subscribe,
            "resources/unsubscribe": self.subscribe,
            "prompts/list": self.prompts_list,
            "prompts/get": self.prompts_get,
            "logging/setLevel": self.set_level,
            "completion/complete": self.complete,
        }.get(method)
        if handler is None:
            code = -32600 if "unknown_method_code" in self.defects else -32601
            self.error(rid, code, f"Method not found: {method[:40]}")
            return
        handler(rid, params)

    def initialize(self, rid: Json, params: dict[str, Json]) -> None:
        instructions = "A test server with resources, templates, prompts and logging."
        offered = params.get("protocolVersion")
        version = "2025-11-25"
        if offered in ("2024-11-05", "2025-03-26", "2025-06-18"):
            version = str(offered)
        elif offered != "2025-11-25":
            if "version_refuse" in self.defects:
                self.error(rid, -32602, "Unsupported protocol version")
                return
            if "version_echo" in self.defects:
                version = str(offered)
        caps = params.get("capabilities")
        self.client_caps = caps if isinstance(caps, dict) else {}
        if "echo_caps" in self.defects:
            instructions = json.dumps(params.get("capabilities"), sort_keys=True)
        self.reply(
            rid,
            {
                "protocolVersion": version,
                "capabilities": {
                    **({} if "no_tools" in self.defects else {"tools": {}}),
                    "resources": {"subscribe": True},
                    "prompts": {},
                    "logging": {},
                    "completions": {},
                },
                "serverInfo": {"name": "surface-server", "version": "1.0.0", "title": "Surface"},
                "instructions": instructions,
            },
        )

    def ping(self, rid: Json, params: dict[str, Json]) -> None:
        if "ping_error" in self.defects:
            self.error(rid, -32603, "ping failed")
        else:
            self.reply(rid, {})

    def tools_list(self, rid: Json, params: dict[str, Json]) -> None:
        cursor = params.get("cursor")
        if cursor is not None and "cursor_ok" not in self.defects:
            self.error(rid, -32602, "Invalid cursor")
            return
        if "no_tools" in self.defects:
            self.reply(rid, {"tools": []})
            return
        capable = "roots_tool" in self.defects and "roots" in self.client_caps
        self.reply(rid, {"tools": [*TOOLS, ROOTS_TOOL] if capable else TOOLS})

    def resources_list(self, rid: Json, params: dict[str, Json]) -> None:
        extra = LINT_RESOURCES if "lint" in self.defects else []
        self.reply(rid, {"resources": RESOURCES + extra})

    def templates_list(self, rid: Json, params: dict[str, Json]) -> None:
        if "no_templates" in self.defects:
            self.error(rid, -32601, "Method not found")
            return
        extra = LINT_TEMPLATES if "lint" in self.defects else []
        self.reply(rid, {"resourceTemplates": TEMPLATES + extra})

    def read(self, rid: Json, params: dict[str, Json]) -> None:
        uri = params.get("uri")
        if uri == "docs://guide/intro":
            content: dict[str, Json] = {"uri": uri, "mimeType": "text/plain", "text": "Hello."}
            if "read_mime" in self.defects:
                content["mimeType"] = "text/html"
        elif uri == "docs://guide/logo":
            content = {"uri": uri, "mimeType": "image/png", "blob": "iVBORw0KGgo="}
        elif isinstance(uri, str) and uri.startswith("docs://guide/page/"):
            if "template_internal" in self.defects:
                self.error(rid, -32603, "internal error")
                return
            content = {"uri": uri, "mimeType": "text/plain", "text": "A page."}
        else:
            if "not_found_success" in self.defects:
                self.reply(rid, {"contents": []})
            elif "not_found_code" in self.defects:
                self.error(rid, -32000, "no such resource")
            else:
                self.error(rid, -32002, "Resource not found")
            return
        if "read_no_uri" in self.defects:
            del content["uri"]
        self.reply(rid, {"contents": [content]})

    def subscribe(self, rid: Json, params: dict[str, Json]) -> None:
        if "subscribe_missing" in self.defects:
            self.error(rid, -32601, "Method not found")
        else:
            self.reply(rid, {})

    def prompts_list(self, rid: Json, params: dict[str, Json]) -> None:
        extra = LINT_PROMPTS if "lint" in self.defects else []
        self.reply(rid, {"prompts": PROMPTS + extra})

    def prompts_get(self, rid: Json, params: dict[str, Json]) -> None:
        name = params.get("name")
        args = params.get("arguments") or {}
        known = {p["name"] for p in PROMPTS + LINT_PROMPTS}
        if name not in known and "unknown_prompt_ok" not in self.defects:
            self.error(rid, -32602, "Unknown prompt")
            return
        if name == "summarise" and "topic" not in args and "missing_arg_ok" not in self.defects:
            self.error(rid, -32602, "Missing required argument: topic")
            return
        role = "system" if "prompt_bad_role" in self.defects else "user"
        text = f"Summarise {args.get('topic', 'everything')}."
        self.reply(rid, {"messages": [{"role": role, "content": {"type": "text", "text": text}}]})

    def set_level(self, rid: Json, params: dict[str, Json]) -> None:
        if "logging_missing" in self.defects:
            self.error(rid, -32601, "Method not found")
        else:
            self.reply(rid, {})

    def complete(self, rid: Json, params: dict[str, Json]) -> None:
        values: list[Json] = [3] if "completion_bad" in self.defects else ["2"]
        self.reply(rid, {"completion": {"values": values, "hasMore": False}})


if __name__ == "__main__":
    SurfaceServer(sys.argv[1:]).run()
