"""deploy/nginx.conf run for real (Debian's nginx, installed by the set-up when missing) in front of a real
service: calls pass through both ways, and nginx holds the limits on slow and greedy clients that the
service cannot hold behind it (it sees nginx's connections, and exempts the proxy from its own caps).

The file is run as written but for what a test must change: the replicas' names become the test service's
ports, the listening ports free ones, the logs and pid file a temporary directory's; and for nginx before
1.25.1 (Debian 12 has 1.22), whose ``listen`` takes ``http2`` where later ones write ``http2 on;``.
"""

from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

import grpc
import pytest

from clients.client import TyphoonClient
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc
from service.guard.limit_settings import LimitSettings
from service.run.config import ServeConfig
from service.run.server import BackgroundServer
from service.store.embedded_redis import free_port

from debian_packages import ensure_installed
from service_helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]
CONF = (ROOT / "deploy" / "nginx.conf").read_text()
NGINX = Path("/usr/sbin/nginx")
#: The HTTP server's cap on one client's requests at once, as the tests set it (the file's is 200).
HTTP_CAP = 3


def nginx_version() -> tuple[int, ...]:
    printed = subprocess.run([str(NGINX), "-v"], capture_output=True, text=True).stderr
    return tuple(int(part) for part in re.search(r"nginx/([\d.]+)", printed).group(1).split("."))


def render(conf: str, service: BackgroundServer, grpc_port: int, http_port: int, run_dir: Path) -> str:
    """deploy/nginx.conf as the tests run it (see the module)."""
    conf = re.sub(r"(\s*server typhoon-\d:50051[^;]*;)+", f"\n        server 127.0.0.1:{service.grpc_port};", conf)
    conf = re.sub(r"(\s*server typhoon-\d:8080[^;]*;)+", f"\n        server 127.0.0.1:{service.http_port};", conf)
    http2 = ""
    if nginx_version() < (1, 25, 1):
        conf = conf.replace("http2 on;", "")
        http2 = " http2"
    conf = conf.replace("listen 50051;", f"listen 127.0.0.1:{grpc_port}{http2};")
    conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{http_port};")
    conf = conf.replace("limit_conn per_client 200;", f"limit_conn per_client {HTTP_CAP};")
    conf = conf.replace("access_log /dev/stdout", f"access_log {run_dir}/access.log")
    conf = conf.replace("error_log /dev/stderr", f"error_log {run_dir}/error.log")
    assert "typhoon-1" not in conf and "listen 50051" not in conf and "limit_conn per_client 200" not in conf
    return f"pid {run_dir}/nginx.pid;\n" + conf


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    # nginx on this machine is the trusted proxy; watch streams are not rate limited here (per client nor
    # per process), so that one client may open hundreds at once
    config = ServeConfig(grpc_port=0, http_port=0, data_dir=str(tmp_path_factory.mktemp("data")),
                         trusted_proxies=("127.0.0.1",),
                         limits=LimitSettings.defaults().with_rates({"watch": "off", "stream_opens": "off"}))
    with BackgroundServer(config) as run:
        yield run


@pytest.fixture(scope="module")
def nginx(service, tmp_path_factory):
    """nginx in front of the service: (its gRPC port, its HTTP port)."""
    ensure_installed(["nginx"], [NGINX])
    run_dir = tmp_path_factory.mktemp("nginx")
    grpc_port, http_port = free_port(), free_port()
    (run_dir / "nginx.conf").write_text(render(CONF, service, grpc_port, http_port, run_dir))
    checked = subprocess.run([str(NGINX), "-t", "-p", str(run_dir), "-c", str(run_dir / "nginx.conf")],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen([str(NGINX), "-p", str(run_dir), "-c", str(run_dir / "nginx.conf"), "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: _accepts(grpc_port) and _accepts(http_port), timeout=30)
        yield grpc_port, http_port
    finally:
        process.terminate()
        process.wait(timeout=30)


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False


def _request(port: int, path: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: typhoon\r\n\r\n".encode())
    return sock


def test_calls_pass_through_nginx_on_both_transports(service, nginx):
    grpc_port, http_port = nginx
    with TyphoonClient(f"127.0.0.1:{grpc_port}") as client:
        match, _ = client.create_match("standard", seats=["german"])
        assert client.get_match(match.match_id).match.match_id == match.match_id
    with _request(http_port, f"/v1/matches/{match.match_id}") as sock:
        answer = sock.recv(200)
    assert answer.startswith(b"HTTP/1.1 200"), answer


def test_a_request_head_that_never_ends_is_cut_after_ten_seconds(nginx):
    """Slowloris: the service's --request-read-timeout cannot see the client behind nginx; nginx's
    client_header_timeout (10 s) ends it."""
    _, http_port = nginx
    with socket.create_connection(("127.0.0.1", http_port), timeout=60) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: typhoon\r\n")  # and nothing more
        try:
            answer = sock.recv(100)  # nginx closes (or answers 408 and closes) well before 60 s
        except ConnectionResetError:
            answer = b""
    assert answer in (b"",) or answer.startswith(b"HTTP/1.1 408"), answer


def test_one_clients_requests_at_once_are_capped_with_429(service, nginx):
    """The service exempts its proxy from --max-connections-per-address; nginx counts each client's."""
    _, http_port = nginx
    with TyphoonClient(f"127.0.0.1:{service.grpc_port}") as client:
        match_id = client.create_match("standard")[0].match_id
    streams = [_request(http_port, f"/v1/matches/{match_id}/watch") for _ in range(HTTP_CAP)]
    try:
        for sock in streams:
            assert sock.recv(100).startswith(b"HTTP/1.1 200")
        with _request(http_port, f"/v1/matches/{match_id}/watch") as extra:
            refused = extra.recv(300)
        assert refused.startswith(b"HTTP/1.1 429") and b"Server: nginx" in refused, refused
    finally:
        for sock in streams:
            sock.close()
    wait_for(lambda: _answered_ok(http_port, f"/v1/matches/{match_id}"), timeout=30)  # the streams gone, room again


def _answered_ok(port: int, path: str) -> bool:
    with _request(port, path) as sock:
        return sock.recv(100).startswith(b"HTTP/1.1 200")


def test_one_connection_carries_more_than_128_watch_streams(service, nginx):
    """The service lets a client watch 500 matches; nginx's default of 128 streams a connection would
    queue the 129th forever (gRPC waits for a free stream): http2_max_concurrent_streams is raised."""
    grpc_port, _ = nginx
    with TyphoonClient(f"127.0.0.1:{service.grpc_port}") as client:
        match_id = client.create_match("standard")[0].match_id
    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        calls = [stub.WatchMatch(api.WatchMatchRequest(match_id=match_id), timeout=60) for _ in range(200)]
        try:
            for call in calls:
                next(call)  # each stream's first message: every one of them is open
        finally:
            for call in calls:
                call.cancel()
