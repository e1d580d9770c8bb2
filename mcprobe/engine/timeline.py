"""What an audit spent its time on, for ``-vv``: every start of the target with its purpose,
and every phase with its duration, as INFO records of the ``mcprobe.engine`` logger.

Nothing is printed unless a front-end attaches a handler (the CLI does at ``-vv``, on stderr);
the messages are mcprobe's own words, never target text, so they need no scrubbing.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

__all__ = ["LOGGER", "phase"]

LOGGER = logging.getLogger("mcprobe.engine")


@asynccontextmanager
async def phase(what: str) -> AsyncIterator[None]:
    """Log ``what`` when it starts and, with its wall time, when it ends (or fails)."""
    started = anyio.current_time()
    LOGGER.info("%s: started", what)
    try:
        yield
    finally:
        LOGGER.info("%s: %.2f s", what, anyio.current_time() - started)
