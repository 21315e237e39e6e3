"""Fixtures of the service tests: a second service process and an HTTP client (Redis, the service and
its gRPC client are in tests/conftest.py)."""

from __future__ import annotations

from typing import Iterator

import httpx
import pytest

from loadtests.redis_topologies import LocalCluster
from service_helpers import Backend, ServiceProcess


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


@pytest.fixture(scope="module", params=["single", "cluster"])
def backend(request, redis_url, tmp_path_factory) -> Iterator[Backend]:
    """Each test of a module that asks for it runs on the session's Redis, then on a Redis Cluster of
    three primaries (started once for the module): the clock and ladder tests use it."""
    if request.param == "single":
        yield Backend("single", redis_url)
        return
    with LocalCluster(tmp_path_factory.mktemp("cluster")) as cluster:
        yield Backend("cluster", cluster.url)


@pytest.fixture(scope="module")
def backend_service(backend) -> Iterator[ServiceProcess]:
    """A service process on the module's ``backend``."""
    process = ServiceProcess(*backend.serve_args).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def backend_service_b(backend) -> Iterator[ServiceProcess]:
    """A second service process on the module's ``backend``."""
    process = ServiceProcess(*backend.serve_args).start()
    yield process
    process.stop()
