"""mcprobe's own errors: failures of the tool, never findings about a target.

Findings about a target are data (``mcprobe.core.model.Finding``, ``RawCall``); these exceptions are
raised when mcprobe itself cannot do what it was asked. Every message is meant for a person and is
already scrubbed of secrets (bearer tokens, header and env values).

::

    McprobeError
    ├── ConnectFailed        the target could not be started / reached / handshaken in time
    ├── UnknownConnection    a connection id that is not open (lists the open ones)
    └── UsageError           mcprobe was called wrongly (bad option, bad argument combination)
"""

from __future__ import annotations

__all__ = ["ConnectFailed", "McprobeError", "UnknownConnection", "UsageError"]


class McprobeError(Exception):
    """Base of every error mcprobe raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ConnectFailed(McprobeError):
    """The target could not be started, did not complete the handshake, or ran out of time.

    ``stderr_tail`` is the end of the target's stderr (stdio targets only; "" otherwise),
    secrets scrubbed. The message already quotes it when it explains the failure.
    """

    def __init__(self, message: str, *, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.stderr_tail = stderr_tail


class UnknownConnection(McprobeError):
    """No open connection has the requested id (or none is open at all)."""

    def __init__(self, requested: str | None, open_ids: list[str]) -> None:
        if not open_ids:
            message = "no open connection; call probe_connect first"
        elif requested is None:
            message = f"no default connection; open connections: {', '.join(open_ids)}"
        else:
            listed = ", ".join(open_ids)
            message = f"unknown connection id {requested!r}; open connections: {listed}"
        super().__init__(message)
        self.requested = requested
        self.open_ids = list(open_ids)


class UsageError(McprobeError):
    """mcprobe was invoked incorrectly (CLI options, tool arguments, library arguments)."""
