"""Hands the client strings with lone surrogates that it must send back: a ``tools/list`` cursor
and the only value a tool's parameter accepts.

    python surrogate_echo.py [rawserver words and keys ...]

One behaviour (issue 22, class 5). ``"\\ud83d"`` (half an emoji, as a JavaScript server cuts it)
is valid JSON text but no UTF-8; a client that echoes it must write it as a JSON ``\\u`` escape.
Page 1 of ``tools/list`` lists ``strict`` and a ``nextCursor`` ending in a lone surrogate; page 2
lists ``pick``, whose ``x`` accepts only ``"half \\ud83d"`` (``enum``). ``pick`` echoes the value
back when it is exactly that, and rejects anything else with ``isError``; ``strict`` accepts a
string ``x``.
"""

from __future__ import annotations

import sys
from typing import Any

from tests.targets.rawserver import RawServer, _text

CURSOR = "page-2-\ud83d"
VALUE = "half \ud83d"


def _schema(x: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"x": x},
        "required": ["x"],
        "additionalProperties": False,
    }


class SurrogateEcho(RawServer):
    def on_tools_list(self, rid: Any, params: dict[str, Any]) -> None:
        if params.get("cursor") == CURSOR:
            pick = {
                "name": "pick",
                "description": "Pick the value.",
                "inputSchema": _schema({"enum": [VALUE]}),
            }
            self.reply(rid, {"tools": [pick]})
            return
        strict = {
            "name": "strict",
            "description": "Accept a string x.",
            "inputSchema": _schema({"type": "string"}),
        }
        self.reply(rid, {"tools": [strict], "nextCursor": CURSOR})

    def on_tools_call(self, rid: Any, params: dict[str, Any]) -> None:
        args = params.get("arguments")
        x = args.get("x") if isinstance(args, dict) and set(args) == {"x"} else None
        if params.get("name") == "pick" and x == VALUE:
            self.reply(rid, _text(f"picked {x}"))
        elif params.get("name") == "strict" and isinstance(x, str):
            self.reply(rid, _text("accepted"))
        else:
            self.reply(rid, _text("no such value", is_error=True))


if __name__ == "__main__":
    SurrogateEcho(sys.argv[1:]).run()
