"""The operations endpoints (service/run/operations.py): /metrics on the admin listener by default, /docs and
reflection public by default, each movable to the admin listeners (bound to 127.0.0.1) or switched off;
the health checks stay where probes expect them."""

from __future__ import annotations

import grpc
import httpx
import psutil
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from service_helpers import ServiceProcess


def _reflected(target: str) -> grpc.StatusCode | set[str]:
    """The services reflection lists at ``target``, or the code it fails with."""
    with grpc.insecure_channel(target) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        try:
            answers = list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                                     timeout=20))
        except grpc.RpcError as error:
            return error.code()
    return {service.name for service in answers[0].list_services_response.service}


def _serving(target: str) -> int:
    with grpc.insecure_channel(target) as channel:
        return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=20).status


def test_by_default_metrics_are_on_the_admin_listener_only_and_docs_and_reflection_are_public(service, http, admin):
    assert http.get("/metrics").status_code == 404
    assert admin.get("/metrics").status_code == 200
    assert "typhoon_calls_total" in admin.get("/metrics").text
    for path in ("/healthz", "/readyz", "/openapi.json"):
        assert http.get(path).status_code == 200, path
        assert admin.get(path).status_code == 200, path
    assert admin.get("/openapi.json").json() == http.get("/openapi.json").json()
    assert http.get("/docs").status_code == 200
    assert admin.get("/docs").status_code == 404
    assert "typhoon.v1.MatchService" in _reflected(service.target)


def test_without_an_admin_listener_metrics_are_not_served_at_all(redis_url):
    service = ServiceProcess("--redis-url", redis_url, admin_listener=False).start()
    try:
        serving = next(e for e in service.logs if e.get("event") == "serving")
        assert (serving["metrics"], serving["admin_port"]) == ("off", None)
        with service.http() as http:
            assert http.get("/metrics").status_code == 404
            assert http.get("/readyz").status_code == 200
    finally:
        service.stop()


def test_every_endpoint_can_be_moved_to_the_admin_listeners(redis_url):
    service = ServiceProcess("--redis-url", redis_url, "--metrics", "public", "--docs", "admin", "--reflection", "admin",
                             "--admin-grpc-port", "0").start()
    try:
        with service.http() as http, service.admin() as admin:
            assert http.get("/metrics").status_code == 200  # placed on the public port
            assert admin.get("/metrics").status_code == 404
            assert http.get("/docs").status_code == 404
            assert admin.get("/docs").status_code == 200
            assert admin.get("/docs/static/swagger-ui-bundle.js").status_code == 200  # its scripts moved with it
            assert http.get("/docs/static/swagger-ui-bundle.js").status_code == 404
            assert http.get("/redoc").status_code == 404
            assert http.get("/v1/scenarios").status_code == 200  # the API itself is untouched
        assert _reflected(service.target) == grpc.StatusCode.UNIMPLEMENTED
        admin_grpc = f"127.0.0.1:{service.admin_grpc_port}"
        assert "typhoon.v1.MatchService" in _reflected(admin_grpc)
        assert _serving(admin_grpc) == health_pb2.HealthCheckResponse.SERVING
        assert _serving(service.target) == health_pb2.HealthCheckResponse.SERVING  # health stays public
    finally:
        service.stop()


def test_endpoints_can_be_switched_off(redis_url):
    service = ServiceProcess("--redis-url", redis_url, "--metrics", "off", "--docs", "off", "--reflection", "off").start()
    try:
        with service.http() as http, service.admin() as admin:
            for client in (http, admin):
                assert client.get("/metrics").status_code == 404
                assert client.get("/docs").status_code == 404
            assert admin.get("/healthz").status_code == 200
        assert _reflected(service.target) == grpc.StatusCode.UNIMPLEMENTED
    finally:
        service.stop()


def test_the_admin_listeners_listen_on_this_machine_only_whatever_the_public_host(redis_url):
    service = ServiceProcess("--redis-url", redis_url, "--host", "0.0.0.0", "--admin-grpc-port", "0").start()
    try:
        listening = {c.laddr.port: c.laddr.ip.removeprefix("::ffff:")  # gRPC listens on IPv4-mapped addresses
                     for c in psutil.Process(service.process.pid).net_connections("tcp")
                     if c.status == psutil.CONN_LISTEN}
        assert listening[service.http_port] == "0.0.0.0"
        assert listening[service.admin_port] == "127.0.0.1"
        assert listening[service.admin_grpc_port] == "127.0.0.1"
        with httpx.Client(base_url=service.admin_url, timeout=20) as admin:
            assert admin.get("/metrics").status_code == 200
    finally:
        service.stop()
