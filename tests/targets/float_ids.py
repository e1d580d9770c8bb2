"""Answers every ``tools/call`` twice: first a stray success whose id is a JSON number with a
fractional part (``7.5`` for request ``7``), then the genuine reply with the exact id.

    python float_ids.py [fraction=0.5] [rawserver words and keys ...]

One behaviour (issue 22, class 1, numbers). No request of the client's has a fractional id, so
the stray answers nothing: it is an unknown id, the genuine reply is the answer, and nothing is
a duplicate. The tool is ``string_ids.py``'s ``strict`` (a string ``x`` is accepted, anything
else rejected with ``isError``; the stray says "accepted" to every input).
"""

from __future__ import annotations

import sys
from typing import Any

from tests.targets.rawserver import _text
from tests.targets.string_ids import StringIds

STRAY = "stray reply to a fractional id"


class FloatIds(StringIds):
    def on_tools_call(self, rid: Any, params: dict[str, Any]) -> None:
        if isinstance(rid, int):
            self.reply(rid + float(self.keys.get("fraction", "0.5")), _text(STRAY))
        self.genuine(rid, params)


if __name__ == "__main__":
    FloatIds(sys.argv[1:]).run()
