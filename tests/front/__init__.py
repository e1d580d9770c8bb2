"""Tests of mcprobe/(top level: cli, library)."""
