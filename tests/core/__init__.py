"""Tests of mcprobe/core."""
