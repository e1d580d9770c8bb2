"""mcprobe's own stdin for the stdio MCP server: a read that Ctrl-C can abandon.

The SDK's ``stdio_server()`` reads stdin through ``anyio.wrap_file``, one ``readline`` per line
in a worker thread that cancellation must wait for. On Ctrl-C (or SIGTERM) the asyncio runner
cancels the main task, and the task group then waits for that thread, which returns only when
the client sends another line or closes stdin: the server hangs with the interrupt shown. Here
the read is abandoned on cancellation instead (``abandon_on_cancel``), so the lifespan closes
every target connection and the process exits at once.

Like the SDK's own claim, fd 0 is pointed at the null device while serving, so a handler or a
child process reading stdin sees EOF and never steals the client's bytes; the wire is read from
a private duplicate, and fd 0 is restored on the way out.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from io import TextIOWrapper
from typing import BinaryIO

import anyio
import anyio.to_thread

__all__ = ["AbandonableLines", "claimed_stdin"]


class AbandonableLines(anyio.AsyncFile[str]):
    """A text file read line by line in a worker thread that cancellation leaves behind."""

    async def readline(self) -> str:
        return await anyio.to_thread.run_sync(self.wrapped.readline, abandon_on_cancel=True)


def _private_duplicate() -> BinaryIO | None:
    """Duplicate fd 0 above the standard range and point fd 0 at the null device."""
    try:
        if sys.platform == "win32":  # pragma: no cover - Linux and macOS are the platforms
            return None
        import fcntl

        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        return None
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
    except OSError:
        os.close(private)
        return None
    return os.fdopen(private, "rb", buffering=0, closefd=False)


@contextlib.contextmanager
def claimed_stdin() -> Iterator[AbandonableLines]:
    """The client's stdin as abandonable lines, fd 0 diverted to the null device meanwhile."""
    private = _private_duplicate()
    buffer: BinaryIO = private if private is not None else sys.stdin.buffer
    text = TextIOWrapper(buffer, encoding="utf-8", errors="replace")
    try:
        yield AbandonableLines(text)
    finally:
        if private is not None:
            # fd 0 is restored; the duplicate stays open: an abandoned read may still be
            # blocked on it, and closing an fd under a reader lets the number be reused.
            with contextlib.suppress(OSError):
                os.dup2(private.fileno(), 0)
        with contextlib.suppress(ValueError):
            text.detach()
