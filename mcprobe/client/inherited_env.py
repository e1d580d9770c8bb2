"""The environment a stdio target inherits from mcprobe: the SDK's minimal one.

``mcp.client.stdio.DEFAULT_INHERITED_ENV_VARS`` on POSIX, copied: importing it would run the
SDK's client package (and through it the server's), which neither the CLI's early start nor an
audit needs; a test keeps the copy equal to ``mcp.client.stdio.get_default_environment()``.
Stdlib only, so the CLI can import it before its heavy imports.
"""

from __future__ import annotations

import os

__all__ = ["INHERITED_ENV", "default_environment"]

INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


def default_environment() -> dict[str, str]:
    """The inherited names that are set, minus shell functions (a value starting ``()``)."""
    return {
        name: value
        for name in INHERITED_ENV
        if (value := os.environ.get(name)) is not None and not value.startswith("()")
    }
