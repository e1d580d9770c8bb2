"""Tests of mcprobe/target."""
