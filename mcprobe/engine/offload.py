"""CPU-bound steps of an audit run off the event loop, so that a signal never waits for them.

SIGTERM, SIGHUP and Ctrl-C end ``mcprobe audit`` by cancelling its main task (``cli/termination``),
which only happens when the event loop runs. Lint, scoring and building the report are pure and
can take long on a large listing (seconds to minutes): run on the loop's thread they held a
signal back for all that time, with the target still running. ``computed`` runs one such step on
a daemon thread and waits for it with short sleeps, so the loop stays responsive: a cancellation
is seen within ``_MAX_POLL`` seconds, the audit unwinds (the target is shut down) and the
thread is abandoned. It is a daemon and shares nothing (its input is immutable core data), so it
never holds up the exit; its result, when it finishes, is dropped. Not ``anyio.to_thread``:
its worker threads are not daemons, and the interpreter would wait for the computation at exit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import anyio

__all__ = ["computed"]

T = TypeVar("T")

_FIRST_POLL = 0.001
_MAX_POLL = 0.02


async def computed(step: Callable[[], T]) -> T:
    """``step()`` on a daemon thread; its result or its exception. Cancelling the wait
    abandons the thread."""
    done = threading.Event()
    outcome: list[tuple[bool, object]] = []

    def work() -> None:
        try:
            outcome.append((True, step()))
        except BaseException as exc:  # handed to the waiting task as is
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=work, name="mcprobe-computation", daemon=True).start()
    pause = _FIRST_POLL
    while not done.is_set():
        await anyio.sleep(pause)
        pause = min(pause * 2, _MAX_POLL)
    ok, value = outcome[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]
