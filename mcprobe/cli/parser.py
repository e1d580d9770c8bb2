"""The argument parser of every ``mcprobe`` command: argparse that raises ``UsageError``
instead of exiting (with a "did you mean" for a mistyped option) and writes help to the given
stream, so ``run(argv, stdout, stderr)`` stays testable with string buffers. Stdlib only."""

from __future__ import annotations

import argparse
from typing import NoReturn, TextIO

from mcprobe.core.errors import UsageError

__all__ = ["Exit", "Parser"]


class Exit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting and writes help to our stdout, not sys.stdout."""

    def __init__(self, out: TextIO, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._out = out

    def error(self, message: str) -> NoReturn:
        raise UsageError(message + self._suggestion(message))

    def _suggestion(self, message: str) -> str:
        """``; did you mean --fuzz?`` for a mistyped option (argparse 3.11 has no suggestions)."""
        import difflib

        if not message.startswith("unrecognized arguments: "):
            return ""
        known = sorted(o for o in self._option_string_actions if o.startswith("--"))
        for word in message.removeprefix("unrecognized arguments: ").split():
            name = word.split("=", 1)[0]
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
            if name.startswith("--") and close:
                return f"; did you mean {close[0]}?"
        return ""

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._out.write(message)
        raise Exit(status)

    def _print_message(self, message: str, file: object = None) -> None:
        if message:
            self._out.write(message)
