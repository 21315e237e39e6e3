"""Fixtures of the service tests: a second service process and an HTTP client (Redis, the service and
its gRPC client are in tests/conftest.py)."""

from __future__ import annotations

from typing import Iterator

import httpx
import pytest

from service_helpers import ServiceProcess


@pytest.fixture(scope="session")
def service_b(redis_url) -> Iterator[ServiceProcess]:
    """A second service process on the same Redis."""
    process = ServiceProcess("--redis-url", redis_url).start()
    yield process
    process.stop()


@pytest.fixture()
def http(service) -> Iterator[httpx.Client]:
    with service.http() as c:
        yield c




@pytest.fixture()
def admin(service) -> Iterator[httpx.Client]:
    """The service's HTTP admin listener (/metrics)."""
    with service.admin() as c:
        yield c
