"""Fixtures of the engine tests."""

from __future__ import annotations

import pytest

from engine_builds import EngineChildren


@pytest.fixture(scope="session")
def engine_builds():
    """The engine in each of its builds, a child process each (see engine_builds.py)."""
    children = EngineChildren()
    yield children
    children.close()
