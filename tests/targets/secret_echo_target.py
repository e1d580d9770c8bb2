"""A raw stdio MCP server that echoes the values of environment variables everywhere it can,
for the redaction tests (``tests/front/test_redaction.py``). No SDK import: it starts fast.

Run as ``python tests/targets/secret_echo_target.py [--die] [--named] NAME [NAME ...]``: the
values of those variables (joined by spaces; empty when unset) are "what it heard". ``--die``:
write them to stderr and exit 3 before reading anything (a connect failure quoting stderr).
``--named``: the tool is called ``whoami_<first value>`` (a secret in a tool name).

It puts them in its instructions, the description of its ``whoami`` tool, that tool's result
text and ``structuredContent``, the ``isError`` text it answers malformed calls with, the
JSON-RPC error for an unknown tool, a resource (its description and contents) and a prompt
(its description and messages), and it writes them to stderr at start. A secret equal to one
of mcprobe's own words ("error", "info", "name") shows whether redaction keeps mcprobe's
vocabulary intact.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_FLAGS = ("--die", "--named")
DIE = "--die" in sys.argv[1:]
_NAMES = [name for name in sys.argv[1:] if name not in _FLAGS]
HEARD = " ".join(os.environ.get(name, "") for name in _NAMES)
TOOL_NAME = "whoami"
if "--named" in sys.argv[1:] and _NAMES:
    TOOL_NAME += "_" + os.environ.get(_NAMES[0], "")
RESOURCE_URI = "memo://heard"

TOOL = {
    "name": TOOL_NAME,
    "description": f"Say what was heard. Heard: {HEARD}",
    "inputSchema": {
        "type": "object",
        "properties": {"x": {"type": "string", "description": "Any text."}},
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True, "destructiveHint": False},
}


def _text(text: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def _call(params: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    if params.get("name") != TOOL_NAME:
        return None, {"code": -32602, "message": f"unknown tool; heard {HEARD}"}
    arguments = params.get("arguments")
    if not isinstance(arguments, dict) or set(arguments) - {"x"}:
        return _text(f"invalid arguments; heard {HEARD}", error=True), None
    if "x" in arguments and not isinstance(arguments["x"], str):
        return _text(f"x must be a string; heard {HEARD}", error=True), None
    return {**_text(f"heard {HEARD}"), "structuredContent": {"heard": HEARD}}, None


def _answer(method: str, params: dict[str, Any]) -> tuple[Any, dict[str, Any] | None]:
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
            "serverInfo": {"name": "secret-echo", "version": "1.0.0"},
            "instructions": f"A test server that repeats what it heard: {HEARD}",
        }, None
    if method == "tools/list":
        return {"tools": [TOOL]}, None
    if method == "tools/call":
        return _call(params)
    if method == "resources/list":
        resource = {"uri": RESOURCE_URI, "name": "heard", "description": f"Heard: {HEARD}"}
        return {"resources": [{**resource, "mimeType": "text/plain"}]}, None
    if method == "resources/templates/list":
        return {"resourceTemplates": []}, None
    if method == "resources/read":
        if params.get("uri") != RESOURCE_URI:
            return None, {"code": -32002, "message": f"no such resource; heard {HEARD}"}
        contents = [{"uri": RESOURCE_URI, "mimeType": "text/plain", "text": f"heard {HEARD}"}]
        return {"contents": contents}, None
    if method == "prompts/list":
        return {"prompts": [{"name": "recall", "description": f"Recall: {HEARD}"}]}, None
    if method == "prompts/get":
        if params.get("name") != "recall":
            return None, {"code": -32602, "message": f"no such prompt; heard {HEARD}"}
        message = {"role": "user", "content": {"type": "text", "text": f"recall {HEARD}"}}
        return {"description": f"Recall: {HEARD}", "messages": [message]}, None
    if method == "ping":
        return {}, None
    return None, {"code": -32601, "message": f"method not found: {method}"}


def main() -> None:
    sys.stderr.write(f"starting; heard {HEARD}\n")
    sys.stderr.flush()
    if DIE:
        sys.exit(3)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue  # notifications and replies
        params = message.get("params")
        result, error = _answer(str(message["method"]), params if isinstance(params, dict) else {})
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if error is not None:
            reply["error"] = error
        else:
            reply["result"] = result
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
