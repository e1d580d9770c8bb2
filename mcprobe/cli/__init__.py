"""The ``mcprobe`` command: argument parsing, one audit's delivery, gates and exit codes, batch
audits (``--config``, ``scan``), ``pin``, ``badge`` and the console output.

``mcprobe.cli.commands`` holds the dispatcher; its ``main()`` is the console-script entry point.
This package file imports nothing: its modules import one another through it, so an import here
would close a circle.
"""
