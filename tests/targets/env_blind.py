"""A stdio MCP server whose tools fail the way a machine without network or extras makes them
fail, each next to an honest look-alike (issue 23: the faults the environment hides).

    python env_blind.py [tools=A,B,...]

Standard library only. Every tool is annotated read-only, so a default ``--fuzz`` calls all of
them. Nothing here touches the network: the "network" failures are canned texts, word for word
what a real client library prints offline.

Tools (``tools=A,B`` lists only those):
  forecast          ``{city}`` (schema example "Paris"): passes its arguments unchecked to a
                    weather API, so every call, malformed or not, gets the same
                    ``fetch failed (getaddrinfo ENOTFOUND api.weather.example)`` isError: a
                    validation bypass that only an offline audit sees
  forecast_checked  the honest look-alike: validates first (malformed input gets "Invalid
                    arguments: …"), then fails offline like ``forecast``
  rates             ``{currency}`` (schema example "EUR"): an error returned as text without
                    isError (``Error fetching rates: getaddrinfo ENOTFOUND …``): the missing
                    isError is the server's choice, offline or not
  rates_flagged     the honest look-alike: the same text with isError: true (environment)
  render_page       ``{url}`` (schema example): "Chromium not found at …" with the install
                    hint on the next line (isError)
  convert_pdf       ``{path}`` (schema example): a missing optional extra with the command that
                    installs it (isError)
  sync_remote       ``{remote}`` (schema example): "Could not reach the sync service after 3
                    retries." (isError)
  list_notes        every property optional with a default (the valid call is ``{}``);
                    refuses until ``open_workspace`` was called: "No workspace is set. Call
                    open_workspace first." (isError)
  open_workspace    ``{path}``: sets the workspace (any non-empty path)
  list_tags         the honest look-alike of ``list_notes``: all-default properties, works
  list_dir          ``{path}`` (no example): refuses every path but the directory given as an
                    absolute argument (``python env_blind.py /srv/docs``), and once the path is
                    that directory it accepts an unknown key (additionalProperties: false)
                    without a word: a silent acceptance a placeholder path hides
  list_dir_checked  the honest look-alike: the same, but it rejects the unknown key
  read_doc          ``{path}``: reads a file inside that directory, which may be given by the
                    environment instead (``NOTES_DIR=/srv/docs``); refuses a directory or a
                    path outside it, and accepts an unknown key without a word, like list_dir
  read_doc_checked  the honest look-alike of ``read_doc``: it rejects the unknown key
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

Json = Any

_OFFLINE = "fetch failed (getaddrinfo ENOTFOUND api.weather.example)"
_RATES_OFFLINE = "Error fetching rates: getaddrinfo ENOTFOUND rates.example"
_NO_BROWSER = (
    "Chromium not found at /opt/browsers/chromium-1148/chrome-linux/chrome\n"
    "Run `npx playwright install chromium` to download it."
)
_NO_EXTRA = (
    "PDF conversion requires the optional 'pdf' extra.\nInstall it with: pip install 'docconv[pdf]'"
)
_UNREACHABLE = "Could not reach the sync service after 3 retries."
_NO_WORKSPACE = "No workspace is set. Call open_workspace first."


def _one_string(name: str, example: str, **extra: Json) -> dict[str, Json]:
    return {
        "type": "object",
        "properties": {
            name: {"type": "string", "minLength": 1, "examples": [example], "description": name}
        },
        "required": [name],
        "additionalProperties": False,
        **extra,
    }


_DEFAULTS_ONLY: dict[str, Json] = {
    "type": "object",
    "properties": {
        "limit": {"type": "integer", "minimum": 1, "default": 20, "description": "How many."},
        "order": {"type": "string", "enum": ["asc", "desc"], "default": "asc", "description": "o"},
    },
    "additionalProperties": False,
}

_PATH_ONLY: dict[str, Json] = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1, "description": "A directory."}},
    "required": ["path"],
    "additionalProperties": False,
}

TOOLS: dict[str, dict[str, Json]] = {
    "forecast": {"inputSchema": _one_string("city", "Paris")},
    "forecast_checked": {"inputSchema": _one_string("city", "Paris")},
    "rates": {"inputSchema": _one_string("currency", "EUR")},
    "rates_flagged": {"inputSchema": _one_string("currency", "EUR")},
    "render_page": {"inputSchema": _one_string("url", "https://example.com/")},
    "convert_pdf": {"inputSchema": _one_string("path", "report.pdf")},
    "sync_remote": {"inputSchema": _one_string("remote", "origin")},
    "list_notes": {"inputSchema": _DEFAULTS_ONLY},
    "open_workspace": {"inputSchema": _one_string("path", "/srv/notes")},
    "list_tags": {"inputSchema": _DEFAULTS_ONLY},
    "list_dir": {"inputSchema": _PATH_ONLY},
    "list_dir_checked": {"inputSchema": _PATH_ONLY},
    "read_doc": {"inputSchema": _PATH_ONLY},
    "read_doc_checked": {"inputSchema": _PATH_ONLY},
}


def _invalid(name: str, args: Json) -> str | None:
    """A small validator for the one-string and defaults-only schemas above."""
    if not isinstance(args, dict):
        return "arguments must be an object"
    props = TOOLS[name]["inputSchema"]["properties"]
    for key in args:
        if key not in props:
            return f"unexpected property {key!r}"
    for key in TOOLS[name]["inputSchema"].get("required", []):
        if key not in args:
            return f"{key!r} is a required property"
    for key, value in args.items():
        spec = props[key]
        if spec["type"] == "string" and (not isinstance(value, str) or not value):
            return f"{key} must be a non-empty string"
        if spec["type"] == "integer" and (
            not isinstance(value, int) or isinstance(value, bool) or value < 1
        ):
            return f"{key} must be an integer >= 1"
        if "enum" in spec and value not in spec["enum"]:
            return f"{key} must be one of {spec['enum']}"
    return None


class Server:
    def __init__(self, root: str | None = None) -> None:
        self.workspace: str | None = None
        self.root = root

    def list_dir(self, name: str, args: Json) -> dict[str, Json]:
        path = args.get("path") if isinstance(args, dict) else None
        if not isinstance(path, str) or path != self.root:
            return _text(f"Access denied: {str(path)[:80]!r} is outside {self.root}", error=True)
        if name == "list_dir_checked" and set(args) != {"path"}:
            return _text("Invalid arguments: unexpected property", error=True)
        return _text("a.txt\nb.txt")  # list_dir: the unknown key passes silently

    def read_doc(self, name: str, args: Json) -> dict[str, Json]:
        path = args.get("path") if isinstance(args, dict) else None
        root = Path(self.root or "/nonexistent").resolve()
        target = Path(str(path)).resolve()
        if not isinstance(path, str) or not target.is_relative_to(root) or not target.is_file():
            return _text(f"Not a document of {root}: {str(path)[:80]!r}", error=True)
        if name == "read_doc_checked" and set(args) != {"path"}:
            return _text("Invalid arguments: unexpected property", error=True)
        return _text(target.read_text(encoding="utf-8")[:200])  # read_doc: the key passes

    def call(self, name: str, args: Json) -> dict[str, Json]:
        if name in ("list_dir", "list_dir_checked"):
            return self.list_dir(name, args)
        if name in ("read_doc", "read_doc_checked"):
            return self.read_doc(name, args)
        refusal = _invalid(name, args) if name != "forecast" else None
        if refusal is not None and name != "rates":
            return _text(f"Invalid arguments: {refusal}", error=True)
        if name in ("forecast", "forecast_checked"):
            return _text(_OFFLINE, error=True)
        if name == "rates":
            return _text(_RATES_OFFLINE)  # no isError: dressed as a success
        if name == "rates_flagged":
            return _text(_RATES_OFFLINE, error=True)
        if name == "render_page":
            return _text(_NO_BROWSER, error=True)
        if name == "convert_pdf":
            return _text(_NO_EXTRA, error=True)
        if name == "sync_remote":
            return _text(_UNREACHABLE, error=True)
        if name == "open_workspace":
            self.workspace = str(args["path"])
            return _text(f"workspace set to {self.workspace}")
        if name == "list_notes" and self.workspace is None:
            return _text(_NO_WORKSPACE, error=True)
        return _text(json.dumps({"items": [], "order": args.get("order", "asc")}))


def _text(text: str, *, error: bool = False) -> dict[str, Json]:
    result: dict[str, Json] = {"content": [{"type": "text", "text": text}]}
    if error:
        result["isError"] = True
    return result


def _tool_list(only: list[str] | None) -> list[dict[str, Json]]:
    names = [n for n in TOOLS if only is None or n in only]
    return [
        {
            "name": name,
            "description": f"The {name} tool of the env_blind test target.",
            "inputSchema": TOOLS[name]["inputSchema"],
            "annotations": {"readOnlyHint": True},
        }
        for name in names
    ]


def main(argv: list[str]) -> None:
    only: list[str] | None = None
    root: str | None = os.environ.get("NOTES_DIR")
    for arg in argv:
        if arg.startswith("tools="):
            only = arg.removeprefix("tools=").split(",")
        elif arg.startswith("/"):
            root = arg
    server = Server(root)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            result: Json = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "env-blind", "version": "1.0.0"},
            }
        elif method == "tools/list":
            result = {"tools": _tool_list(only)}
        elif method == "tools/call" and params.get("name") in TOOLS:
            result = server.call(params["name"], params.get("arguments"))
        elif method == "tools/call":
            _send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32602, "message": f"Unknown tool: {params.get('name')}"},
                }
            )
            continue
        elif method == "ping":
            result = {}
        else:
            _send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32601, "message": "Method not found"},
                }
            )
            continue
        _send({"jsonrpc": "2.0", "id": message["id"], "result": result})


def _send(message: dict[str, Json]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
