"""Answers every ``tools/call`` twice: first a stray success whose id is the request's id as a
*string* (``"7"`` for request ``7``), then the genuine reply with the exact id.

    python string_ids.py [rawserver words and keys ...]

One behaviour (issue 22, class 1). A JSON-RPC id is matched by value *and* type, so the stray
reply answers no request of the client's: it is an unknown id, the genuine reply is the answer,
and nothing is a duplicate. The one tool, ``strict``, accepts a string ``x`` and rejects anything
else with ``isError`` (the stray says "accepted" to every input).
"""

from __future__ import annotations

import sys
from typing import Any

from tests.targets.rawserver import RawServer, _text

STRAY = "stray reply to a string id"


class StringIds(RawServer):
    def listed_tools(self) -> list[Any]:
        schema = {
            "type": "object",
            "properties": {"x": {"type": "string"}},
            "required": ["x"],
            "additionalProperties": False,
        }
        return [{"name": "strict", "description": "Accept a string x.", "inputSchema": schema}]

    def on_tools_call(self, rid: Any, params: dict[str, Any]) -> None:
        self.reply(str(rid), _text(STRAY))
        self.genuine(rid, params)

    def genuine(self, rid: Any, params: dict[str, Any]) -> None:
        """The real answer, with the request's exact id."""
        args = params.get("arguments")
        x = args.get("x") if isinstance(args, dict) and set(args) == {"x"} else None
        if isinstance(x, str):
            self.reply(rid, _text(f"accepted {x}"))
        else:
            self.reply(rid, _text("x must be a string", is_error=True))


if __name__ == "__main__":
    StringIds(sys.argv[1:]).run()
