"""Renderers: a finished ``ConformanceReport`` to Markdown, JSON, SARIF or JUnit text (pure).

Renderers only format what the core decided; they import ``mcprobe.core`` and each other only.
"""
