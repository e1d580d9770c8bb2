"""The knobs a user turns, spelled in the words of the front-end that asked (issue 20 item 4,
issue 23 item 5).

The core's advice ("pass --fuzz-writes", "give realistic --examples") must use the words of the
front-end the user is in: CLI flags on the command line (``--fuzz-writes``), tool inputs in the
MCP server (``fuzzWrites: true``), keyword arguments in the library (``fuzz_writes=True``); a
sentence mixing two vocabularies sends the reader looking for a knob their front-end does not
have. Each front-end passes its ``FrontEnd`` down with the request (``AuditRequest.words``); the
core renders a knob with ``Knob.named`` / ``Knob.set``. Comparisons never read these words:
what a text says is kept as data beside it (e.g. ``SkippedTool.cause``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DEEP",
    "EXAMPLES",
    "FRONT_ENDS",
    "FUZZ",
    "FUZZ_DESTRUCTIVE",
    "FUZZ_WRITES",
    "KNOBS",
    "MAX_TOOLS",
    "OVERALL_TIMEOUT",
    "SANDBOX",
    "SEED",
    "SKIP_TOOLS",
    "TOOLS",
    "FrontEnd",
    "Knob",
]

FrontEnd = Literal["cli", "tool", "library"]
FRONT_ENDS: tuple[FrontEnd, ...] = ("cli", "tool", "library")


@dataclass(frozen=True)
class Knob:
    """One user-facing knob: its CLI flag, its tool-input name (None: the MCP server has no such
    input), its library keyword, and for a tool input on another tool than probe_report, that
    tool (``where``)."""

    cli: str
    tool: str | None
    library: str
    where: str = ""

    def offered(self, words: FrontEnd) -> bool:
        """Whether the front-end has this knob at all."""
        return words != "tool" or self.tool is not None

    def named(self, words: FrontEnd) -> str:
        """The knob's bare name: ``--max-tools``, ``maxTools``, ``max_tools``."""
        if words == "cli":
            return self.cli
        if words == "tool":
            return self._tool() + (f" on {self.where}" if self.where else "")
        return self.library

    def set(self, words: FrontEnd, value: bool | int | str = True) -> str:
        """The knob given ``value``: ``--sandbox off``, ``sandbox: "off"``, ``sandbox="off"``;
        a boolean true is the bare flag on the CLI (``--fuzz-writes``)."""
        if words == "cli":
            return self.cli if value is True else f"{self.cli} {value}"
        if words == "tool":
            shown = json.dumps(value)
            return f"{self._tool()}: {shown}" + (f" on {self.where}" if self.where else "")
        return f"{self.library}={value!r}"

    def _tool(self) -> str:
        if self.tool is None:
            raise ValueError(f"the MCP server has no input for {self.cli}")  # a caller bug
        return self.tool


FUZZ = Knob("--fuzz", "fuzz", "fuzz")
FUZZ_WRITES = Knob("--fuzz-writes", "fuzzWrites", "fuzz_writes")
FUZZ_DESTRUCTIVE = Knob("--fuzz-destructive", "fuzzDestructive", "fuzz_destructive")
TOOLS = Knob("--tools", "tools", "tools")
SKIP_TOOLS = Knob("--skip-tools", "skipTools", "skip_tools")
MAX_TOOLS = Knob("--max-tools", "maxTools", "max_tools")
EXAMPLES = Knob("--examples FILE", "examples", "examples")
SANDBOX = Knob("--sandbox", "sandbox", "sandbox", where="probe_connect")
OVERALL_TIMEOUT = Knob("--overall-timeout", None, "overall_timeout")
DEEP = Knob("--deep", "deep", "deep")  # the deep pass of valid inputs (issue 25)
SEED = Knob("--seed", "seed", "seed")  # the deep pass's seed: the same seed, the same calls

KNOBS = (
    FUZZ,
    FUZZ_WRITES,
    FUZZ_DESTRUCTIVE,
    TOOLS,
    SKIP_TOOLS,
    MAX_TOOLS,
    EXAMPLES,
    SANDBOX,
    OVERALL_TIMEOUT,
    DEEP,
    SEED,
)
