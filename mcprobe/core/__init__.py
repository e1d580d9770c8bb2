"""The pure core: everything that decides anything, with no I/O, no clock and no randomness.

Imports only the standard library's pure modules, jsonschema/referencing, pydantic and other
``mcprobe.core`` modules (``tests/test_architecture.py`` enforces it).
"""
