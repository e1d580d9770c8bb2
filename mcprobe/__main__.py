"""``python -m mcprobe``: the ``mcprobe`` command (with no arguments, the stdio MCP server)."""

from mcprobe.cli.commands import main

main()
