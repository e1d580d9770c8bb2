"""Tests of mcprobe/server."""
