"""Closes its stdout on its first ``tools/call`` and stays alive (every restarted copy too).

    python closes_stdout.py [rawserver words and keys ...]

One behaviour (issue 22, class 3). The process keeps running (it sleeps, reading nothing more)
until it is signalled, so only the closed pipe says it is gone: a closed stdout is a death even
while the process lives. ``initialize`` and ``tools/list`` are answered normally; the three
tools ``strict_a``, ``strict_b``, ``strict_c`` take a string ``x`` (and never answer).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from tests.targets.rawserver import RawServer


class ClosesStdout(RawServer):
    def listed_tools(self) -> list[Any]:
        schema = {
            "type": "object",
            "properties": {"x": {"type": "string"}},
            "required": ["x"],
            "additionalProperties": False,
        }
        return [
            {"name": name, "description": "Accept a string x.", "inputSchema": schema}
            for name in ("strict_a", "strict_b", "strict_c")
        ]

    def on_tools_call(self, rid: Any, params: dict[str, Any]) -> None:
        self.out.flush()
        os.close(1)
        while True:
            time.sleep(1)


if __name__ == "__main__":
    ClosesStdout(sys.argv[1:]).run()
