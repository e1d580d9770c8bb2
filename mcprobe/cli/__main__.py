"""``python -m mcprobe.cli``: the ``mcprobe`` command."""

from mcprobe.cli.commands import main

main()
