"""The case generator's structural fast paths give exactly what the plain paths give.

Each test builds the same thing both ways (or checks the property the fast path relies on), so a
fast path that changed a case, an order, a label or a note would fail here."""

from __future__ import annotations

import gc

from mcprobe.core.cases.generate import generate_cases
from tests.support.synthetic_listing import rich_tool


def test_generating_cases_leaves_no_reference_cycles_behind() -> None:
    """A tool's compiled quick checks are freed when its cases are done, not at the next
    collection (the collector's passes over them cost a quarter of the stage)."""
    tools = [rich_tool(i) for i in range(5)]
    generate_cases(tools[0])
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for tool in tools[1:]:
            generate_cases(tool)
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
