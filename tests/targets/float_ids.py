"""Answers every ``tools/call`` twice: first a stray success whose id is a JSON number with a
fractional part (``7.5`` for request ``7``), then the genuine reply with the exact id.

    python float_ids.py [fraction=0.5] [rawserver words and keys ...]

One behaviour (issue 22, class 1, numbers). No request of the client's has a fractional id, so
the stray answers nothing: it is an unknown id, the genuine reply is the answer, and nothing is
a duplicate. The one tool, ``strict``, accepts a string ``x`` and rejects anything else with
``isError`` (the stray says "accepted" to every input).
"""

from __future__ import annotations

import sys
from typing import Any

from tests.targets.rawserver import RawServer, _text

STRAY = "stray reply to a fractional id"


class FloatIds(RawServer):
    def listed_tools(self) -> list[Any]:
        schema = {
            "type": "object",
            "properties": {"x": {"type": "string"}},
            "required": ["x"],
            "additionalProperties": False,
        }
        return [{"name": "strict", "description": "Accept a string x.", "inputSchema": schema}]

    def on_tools_call(self, rid: Any, params: dict[str, Any]) -> None:
        if isinstance(rid, int):
            self.reply(rid + float(self.keys.get("fraction", "0.5")), _text(STRAY))
        args = params.get("arguments")
        x = args.get("x") if isinstance(args, dict) and set(args) == {"x"} else None
        if isinstance(x, str):
            self.reply(rid, _text(f"accepted {x}"))
        else:
            self.reply(rid, _text("x must be a string", is_error=True))


if __name__ == "__main__":
    FloatIds(sys.argv[1:]).run()
