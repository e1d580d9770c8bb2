"""Tests of mcprobe/engine."""
