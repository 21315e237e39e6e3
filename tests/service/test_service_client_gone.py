"""A client that hangs up mid-call is a client gone, never a failure of the store: no ``store_unavailable``
line, no count in ``typhoon_redis_errors_total``, on either transport; a real store failure still is one."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Iterator

import grpc
import pytest
import redis.exceptions
from prometheus_client import REGISTRY

from service.api.grpc_api import as_service_error
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc

from service_helpers import ServiceProcess, play_random, wait_for
from test_service_limits_metrics import _metrics


def _redis_errors_here() -> float:
    return REGISTRY.get_sample_value("typhoon_redis_errors_total", {"where": "call"}) or 0.0


def test_a_socket_error_is_a_client_gone_and_a_redis_error_a_store_failure():
    before = _redis_errors_here()
    for socket_error in (ConnectionResetError(104, "reset by peer"), BrokenPipeError(32, "broken pipe"),
                         ConnectionAbortedError()):
        error = as_service_error(socket_error)
        assert (error.code, error.reason) == (grpc.StatusCode.CANCELLED, "CLIENT_GONE")
    assert _redis_errors_here() == before
    for store_error in (redis.exceptions.ConnectionError("Error 111 connecting"), redis.exceptions.TimeoutError(),
                        redis.exceptions.RedisClusterException("Redis Cluster cannot be connected")):
        error = as_service_error(store_error)
        assert (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")
    assert _redis_errors_here() == before + 3


@pytest.fixture(scope="module")
def own_service(redis_url) -> Iterator[ServiceProcess]:
    """A service of this module's own, so that its log and counters hold this module's calls only."""
    process = ServiceProcess("--redis-url", redis_url).start()
    yield process
    process.stop()


def _hang_up(sock: socket.socket, reset: bool) -> None:
    if reset:  # an RST, as a killed process or a dropped network leaves it
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def test_clients_hanging_up_mid_stream_count_no_redis_error(own_service: ServiceProcess):
    service = own_service
    with service.client() as client, service.admin() as admin:
        match, tokens = client.create_match(seats=["german", "soviet"])
        errors_before = _metrics(admin).get(("typhoon_redis_errors_total", (("where", "call"),)), 0.0)
        logged_before = len(service.logs)
        # watchers of both transports, reading some of the stream while the match is played, then gone
        sockets = []
        for i in range(4):
            sock = socket.create_connection(("127.0.0.1", service.http_port))
            side = ("german", "soviet")[i % 2]
            query = "include_legal_actions=true&heartbeat_seconds=1" if i < 2 else "heartbeat_seconds=1"
            sock.sendall(f"GET /v1/matches/{match.match_id}/watch?{query} HTTP/1.1\r\nHost: typhoon\r\n"
                         f"Authorization: Bearer {tokens[side]}\r\n\r\n".encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            sockets.append(sock)
        channels, calls = [], []
        for side in ("german", "soviet"):
            channel = grpc.insecure_channel(service.target)
            call = match_service_pb2_grpc.MatchServiceStub(channel).WatchMatch(
                api.WatchMatchRequest(match_id=match.match_id, heartbeat_seconds=1, include_legal_actions=True),
                metadata=[("authorization", f"Bearer {tokens[side]}")])
            next(call)
            channels.append(channel)
            calls.append(call)
        player = threading.Thread(target=play_random, args=(client, match.match_id, tokens),
                                  kwargs={"max_actions": 120})
        player.start()
        time.sleep(1.0)  # the streams are busy sending
        for i, sock in enumerate(sockets):
            _hang_up(sock, reset=i % 2 == 1)
        calls[0].cancel()
        channels[1].close()  # its connection goes, the call with it
        # and a REST call whose client goes before it has sent all its body
        sock = socket.create_connection(("127.0.0.1", service.http_port))
        sock.sendall(f"POST /v1/matches/{match.match_id}/resign HTTP/1.1\r\nHost: typhoon\r\n"
                     f"Authorization: Bearer {tokens['german']}\r\nContent-Type: application/json\r\n"
                     "Content-Length: 200\r\n\r\n{\"request_id\": ".encode())
        time.sleep(0.2)
        _hang_up(sock, reset=True)
        player.join()
        channels[0].close()

        def all_ended() -> bool:
            recent = service.logs[logged_before:]
            return sum(entry.get("event") == "watch_ended" for entry in recent) >= 6 and any(
                entry.get("rpc") == "Resign" for entry in recent)

        wait_for(all_ended, timeout=60)
        recent = service.logs[logged_before:]
        assert [e for e in recent if e.get("event") in ("store_unavailable", "internal_error")] == []
        resign = next(e for e in recent if e.get("rpc") == "Resign")
        assert (resign["code"], resign.get("reason")) == ("CANCELLED", "CLIENT_GONE")
        assert _metrics(admin).get(("typhoon_redis_errors_total", (("where", "call"),)), 0.0) == errors_before
        # the match goes on, unresigned (the resignation's body never came), and so does the service
        assert client.get_match(match.match_id).match.status == match_pb2.MATCH_STATUS_ACTIVE
