"""The ``mcprobe`` command: argument parsing, one audit's delivery, gates and exit codes, batch
audits (``--config``, ``scan``), ``pin``, ``badge`` and the console output.

``mcprobe.cli.commands`` holds the dispatcher; ``main()`` is the console-script entry point.
"""

from mcprobe.cli.commands import main, run

__all__ = ["main", "run"]
