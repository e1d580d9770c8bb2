"""Lists thousands of tools in one ``tools/list`` page, so that linting the listing takes long.

    python huge_listing.py [count=N] [listed=PATH] [log=PATH] [rawserver words and keys ...]

One behaviour (issue 22, class 4): a signal must end the audit within seconds in every phase,
also while mcprobe is busy with a long CPU-bound computation (lint, scoring, building the report)
rather than waiting for the target. ``count=N`` (default 5000) tools, each with five described
string parameters, about 2.4 MB in one page (under the 4 MiB message cap). ``listed=PATH`` is
written once the page is sent, and ``log=PATH`` gets a line per message sent: once it stays
unchanged for a while after the listing, mcprobe is computing (the lint), not talking.
"""

from __future__ import annotations

import sys
from typing import Any

from tests.targets.rawserver import RawServer


class HugeListing(RawServer):
    def listed_tools(self) -> list[Any]:
        count = int(self.keys.get("count", "5000"))
        return [_tool(i) for i in range(count)]

    def send(self, message: dict[str, Any]) -> None:
        super().send(message)
        log = self.keys.get("log")
        if log:  # one line per message sent, so a test sees when mcprobe stopped asking
            with open(log, "a") as f:
                f.write(f"{message.get('id')}\n")

    def on_tools_list(self, rid: Any, params: dict[str, Any]) -> None:
        self.reply(rid, {"tools": self.listed_tools()})
        listed = self.keys.get("listed")
        if listed:
            with open(listed, "w") as f:
                f.write("listed")


def _tool(i: int) -> dict[str, Any]:
    properties = {f"p{j}": {"type": "string", "description": f"field {j}"} for j in range(5)}
    return {
        "name": f"tool_{i}",
        "description": f"Reads record {i} from the store and returns it as text.",
        "inputSchema": {"type": "object", "properties": properties, "required": ["p0"]},
    }


if __name__ == "__main__":
    HugeListing(sys.argv[1:]).run()
