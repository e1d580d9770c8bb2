"""``mcprobe pin [target options] URL | -- COMMAND …``: write the server's lock (identity and
every tool definition with its hash, ``report/pinning.py``) to stdout. Lists only: no tool is
called. ``mcprobe audit --lock FILE`` compares a later listing with it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from mcprobe.cli import audit_args as cli
from mcprobe.cli.exit_codes import EXIT_CONNECT, EXIT_OK
from mcprobe.core.errors import UsageError

__all__ = ["run_pin"]

_AUDIT_ONLY = (
    "fuzz", "fuzz_writes", "fuzz_destructive", "deep", "lock", "fail_on_drift", "baseline",
    "report",
)  # fmt: skip
# What pin takes from mcprobe.toml: the timeouts. The rest of [audit] / [gates] is about an
# audit (fuzz = true is the documented example), so it must neither apply nor be blamed on a
# flag the user never typed.
_CONFIG_KEYS = ("timeout", "connect_timeout")


def run_pin(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    """The target options of ``mcprobe audit`` (URL, -- COMMAND, --stdio, --env, --header, ...);
    the audit-only ones are a usage error. Exit 0, 1 (usage) or 2 (could not connect)."""
    args = cli.check_audit_args(argv, stdout, config_keys=_CONFIG_KEYS, name="pin")
    used = [name for name in _AUDIT_ONLY if getattr(args.ns, name, None)]
    if used:
        flag = "--" + used[0].replace("_", "-")
        raise UsageError(f"mcprobe pin lists the tools only: {flag} belongs to mcprobe audit")
    import anyio

    from mcprobe.client.connection import open_target
    from mcprobe.core.errors import ConnectFailed
    from mcprobe.report.pinning import lock_text
    from mcprobe.report.redact import Redactor

    if args.config_path is not None and not args.ns.quiet:
        stderr.write(cli.config_line(args.config_path) + "\n")
    spec = args.spec
    redactor = Redactor.of(spec.secret_values())

    async def go() -> str:
        async with open_target(spec) as target:
            target.close_soon(0.1)
            return lock_text(target.snapshot, redactor)

    try:
        text = anyio.run(go)
    except ConnectFailed as failure:
        message = cli.connect_message(spec, failure)
        stderr.write(cli.encodable(redactor.prose(message)) + "\n")
        return EXIT_CONNECT
    stdout.write(cli.encodable(text))  # scrubbed as data (lock_text), not as serialised text
    return EXIT_OK
