"""SIGTERM and SIGHUP end ``mcprobe audit`` the way Ctrl-C does (exit 143 / 129).

CI systems cancel a job with SIGTERM, a closed terminal sends SIGHUP. Python's default for
both is to die on the spot, which leaves a stdio target (its own process group, by design)
running. So while an audit runs, both signals are routed to the interrupt path: the handler
notes the signal and calls the current SIGINT handler (inside ``anyio.run`` that is the asyncio
runner's, which cancels the main task, so every context unwinds and the target's whole process
group is stopped, then raises ``KeyboardInterrupt``; outside it, Python's, which raises it at
once). The CLI then reports the signal instead of "interrupted" and exits ``128 + signum``.

Standard library only: it is installed before the heavy imports, while a pre-started target
boots.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["TERMINATING_SIGNALS", "like_interrupt", "received"]

TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

_received: list[int] = []


def received() -> int | None:
    """The first terminating signal received during ``like_interrupt``, if any."""
    return _received[0] if _received else None


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    interrupt = signal.getsignal(signal.SIGINT)
    if callable(interrupt):
        interrupt(signal.SIGINT, frame)
    else:  # SIGINT ignored or default at C level: still stop the same way
        raise KeyboardInterrupt


@contextmanager
def like_interrupt() -> Iterator[None]:
    """Route SIGTERM and SIGHUP to the interrupt path for the duration of the block (main
    thread only: elsewhere Python forbids installing handlers, and nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    previous = {sig: signal.signal(sig, _on_signal) for sig in TERMINATING_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
