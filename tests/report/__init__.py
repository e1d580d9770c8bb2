"""Tests of mcprobe/report."""
