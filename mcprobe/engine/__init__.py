"""The audit pipeline that drives a target: open → lint → fuzz → score → report.

Imports ``mcprobe.core``, ``mcprobe.report``, ``mcprobe.client`` and ``mcprobe.engine``.
"""
