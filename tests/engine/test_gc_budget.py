"""An audit runs with higher collector thresholds, and leaves the process's as it found them
(engine/gc_budget.py): the setting is global, so overlapping audits restore it after the last."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import anyio
import pytest

from mcprobe.core.model import JSON, RawCall
from mcprobe.engine.gc_budget import AUDIT_THRESHOLDS, fewer_collections
from tests.support.fake_target import FakeTarget, audit_open, int_tool, ok_text, snapshot_of


@pytest.fixture(autouse=True)
def own_thresholds() -> Iterator[tuple[int, int, int]]:
    found = gc.get_threshold()
    mine = (701, 11, 12)
    gc.set_threshold(*mine)
    try:
        yield mine
    finally:
        gc.set_threshold(*found)


def test_the_thresholds_are_the_audits_inside_and_the_callers_after(
    own_thresholds: tuple[int, int, int],
) -> None:
    with fewer_collections():
        assert gc.get_threshold() == AUDIT_THRESHOLDS
    assert gc.get_threshold() == own_thresholds


def test_overlapping_audits_restore_the_thresholds_after_the_last_one_only(
    own_thresholds: tuple[int, int, int],
) -> None:
    first, second = fewer_collections(), fewer_collections()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_threshold() == AUDIT_THRESHOLDS
    second.__exit__(None, None, None)
    assert gc.get_threshold() == own_thresholds


def test_a_failing_body_restores_the_thresholds(own_thresholds: tuple[int, int, int]) -> None:
    with pytest.raises(ZeroDivisionError), fewer_collections():
        _ = 1 / 0
    assert gc.get_threshold() == own_thresholds


@pytest.mark.anyio
async def test_an_audit_runs_under_the_audit_thresholds(
    own_thresholds: tuple[int, int, int],
) -> None:
    seen: list[tuple[int, int, int]] = []

    async def respond(name: str, arguments: JSON) -> RawCall:
        seen.append(gc.get_threshold())
        return ok_text()

    target = FakeTarget(snapshot=snapshot_of((int_tool("alpha"),)), respond=respond)
    with anyio.fail_after(5):
        await audit_open(target, fuzz=True)
    assert seen and set(seen) == {AUDIT_THRESHOLDS}
    assert gc.get_threshold() == own_thresholds
