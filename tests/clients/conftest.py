"""Fixtures of the client tests: a real Typhoon service (``typhoon serve`` in a child process, with its
embedded Redis in a temporary directory) for the bot SDK, replay and match runner tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clients.runner import EmbeddedService

from service_helpers import START_TIMEOUT


@pytest.fixture(scope="session")
def typhoon_target() -> Iterator[str]:
    """The gRPC address of a running service shared by the client tests."""
    service = EmbeddedService(process=True, startup_timeout=START_TIMEOUT)
    yield service.start()
    service.stop()
