"""Shared fixtures: the anyio backend (asyncio only) for async tests."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
