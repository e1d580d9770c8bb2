"""The attack probes go as wide as the audit's concurrency, and each one is sent once
(engine/attack_probes.py): probing a slow server one call after another would multiply its
audit (measured with scripts/bench_audit.py; here the work is counted, not timed)."""

from __future__ import annotations

import anyio
import pytest

from mcprobe.core.model import JSON
from mcprobe.engine.attack_probes import run_attack_probes
from mcprobe.engine.fuzz_runner import run_fuzz
from tests.support.fake_target import FakeTarget, snapshot_of

TOOL: JSON = {
    "name": "shout",
    "description": "Repeat a text louder.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "The text."}},
        "required": ["text"],
    },
    "annotations": {"readOnlyHint": True},
}


@pytest.mark.parametrize("width", [1, 4])
def test_probes_are_sent_width_at_a_time_and_each_exactly_once(width: int) -> None:
    async def run() -> tuple[int, int, list[str]]:
        target = FakeTarget(snapshot=snapshot_of((TOOL,)))
        fuzz = await run_fuzz(target, [TOOL], fuzz_destructive=True)
        sent_before = len(target.calls)
        target.max_in_flight = 0
        probed = await run_attack_probes(target, [TOOL], fuzz, width=width)
        labels = [p.label for p in probed.probes]
        return target.max_in_flight, len(target.calls) - sent_before, labels

    in_flight, sent, labels = anyio.run(run)
    assert len(labels) >= 8 and len(set(labels)) == len(labels)
    assert sent == len(labels)  # every probe once: the workers share one queue
    assert in_flight == width
