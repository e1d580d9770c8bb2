"""Fewer garbage collections while an audit runs (issue 21).

An audit of a large listing holds hundreds of thousands of container objects at once (cases,
results, the report's records), almost none of them in a reference cycle, and keeps making more.
With the interpreter's default thresholds (700, 10, 10) the collector keeps walking all of them:
on a 1,000-tool listing about a quarter of the pure core's CPU time went to collections that
freed nothing. Like other CPU-heavy Python tools (mypy raises them the same way), an audit runs
with higher thresholds: collections still happen, fewer of them, and the memory they free late
is what reference counting did not already free (cycles only).

The setting is the process's, so it is applied while at least one audit runs (audits may overlap
in the MCP server and with ``--config``) and the thresholds found are restored after the last
one; not in ``core/``, which decides without touching the interpreter's state.
``scripts/bench_core.py`` measures under the same setting.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = ["AUDIT_THRESHOLDS", "fewer_collections", "with_fewer_collections"]

P = ParamSpec("P")
T = TypeVar("T")

AUDIT_THRESHOLDS = (50_000, 20, 20)
"""``gc.set_threshold`` while an audit runs: a young collection after 50,000 net allocations
(not 700), an older one after 20 of those."""

_lock = threading.Lock()
_running = 0
_saved: tuple[int, int, int] = gc.get_threshold()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the body with ``AUDIT_THRESHOLDS``; the thresholds found are back when the last
    overlapping body ends."""
    global _running, _saved
    with _lock:
        if _running == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(*AUDIT_THRESHOLDS)
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                gc.set_threshold(*_saved)


def with_fewer_collections(audit: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """The coroutine function ``audit``, run under ``fewer_collections``."""

    @functools.wraps(audit)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with fewer_collections():
            return await audit(*args, **kwargs)

    return run
