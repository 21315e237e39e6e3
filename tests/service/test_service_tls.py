"""TLS on both ports (``typhoon serve --tls-cert --tls-key [--tls-client-ca]``), with a CA and certificates
made on the fly by trustme: the Python client, a bot, REST and server-sent events over TLS; plain
clients refused; mutual TLS asks every client for a certificate its CA signed."""

from __future__ import annotations

import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path

import grpc
import httpx
import pytest
import trustme

from clients.client import TyphoonClient
from clients.sdk import Bot
from clients.tls import ClientTls

from service_helpers import ServiceProcess

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA, the server's certificate (127.0.0.1, localhost) and a client's, as PEM files."""
    directory = tmp_path_factory.mktemp("tls")
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    client = ca.issue_cert("bot@typhoon.example")
    files = {"ca": directory / "ca.pem", "cert": directory / "server.pem", "key": directory / "server.key",
             "client_cert": directory / "client.pem", "client_key": directory / "client.key"}
    ca.cert_pem.write_to_path(files["ca"])
    server.cert_chain_pems[0].write_to_path(files["cert"])
    server.private_key_pem.write_to_path(files["key"])
    client.cert_chain_pems[0].write_to_path(files["client_cert"])
    client.private_key_pem.write_to_path(files["client_key"])
    return {name: str(path) for name, path in files.items()}


@pytest.fixture(scope="module")
def tls_service(redis_url, pki):
    process = ServiceProcess("--redis-url", redis_url, "--tls-cert", pki["cert"], "--tls-key", pki["key"]).start()
    yield process
    process.stop()


def test_the_client_plays_over_tls_and_a_plain_client_is_refused(tls_service, pki):
    assert any(e.get("event") == "serving" and e.get("tls") is True for e in tls_service.logs)
    with TyphoonClient(tls_service.target, tls=ClientTls(ca=pki["ca"])) as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        client.submit(match.match_id, tokens["german"], {"type": "standard_setup"}, expected_version=0)
        assert client.get_match(match.match_id).match.version == 1
    with TyphoonClient(tls_service.target, retries=0, timeout=10) as plain:
        with pytest.raises(Exception) as refused:
            plain.get_match(match.match_id)
    assert getattr(refused.value, "code", None) == grpc.StatusCode.UNAVAILABLE


def test_a_client_that_does_not_trust_the_ca_is_refused(tls_service):
    with TyphoonClient(tls_service.target, tls=ClientTls(), retries=0, timeout=10) as client:  # the system's CAs
        with pytest.raises(Exception) as refused:
            client.list_scenarios()
    assert getattr(refused.value, "code", None) == grpc.StatusCode.UNAVAILABLE


def test_rest_and_server_sent_events_over_tls(tls_service, pki):
    base = f"https://127.0.0.1:{tls_service.http_port}"
    with httpx.Client(base_url=base, verify=ssl.create_default_context(cafile=pki["ca"]), timeout=20) as http:
        assert http.get("/healthz").json() == {"status": "SERVING"}
        match = http.post("/v1/matches", json={"scenario": "standard"}).json()["match"]
        with http.stream("GET", f"/v1/matches/{match['match_id']}/watch") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert next(line for line in stream.iter_lines() if line.startswith("id: ")) == "id: 1"
    with httpx.Client(base_url=f"http://127.0.0.1:{tls_service.http_port}", timeout=10) as plain:
        with pytest.raises(httpx.HTTPError):
            plain.get("/healthz")


def test_a_tls_handshake_that_never_ends_is_cut(redis_url, pki):
    service = ServiceProcess("--redis-url", redis_url, "--tls-cert", pki["cert"], "--tls-key", pki["key"],
                             "--request-read-timeout", "1").start()
    try:
        for port in (service.http_port, service.grpc_port):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                sock.sendall(b"\x16\x03\x01")  # the start of a ClientHello, then nothing
                sock.settimeout(30)
                try:
                    assert sock.recv(100) == b""  # closed by the service
                except ConnectionResetError:
                    pass
    finally:
        service.stop()


def test_a_bot_plays_a_match_over_tls(tls_service, pki):
    tls = ClientTls(ca=pki["ca"])
    with TyphoonClient(tls_service.target, tls=tls) as client:
        match, tokens = client.create_match(seats=["german"])
    german = Bot("random", tls_service.target, match_id=match.match_id, side="german", token=tokens["german"],
                 seed=1, tls=tls)
    soviet = Bot("random", tls_service.target, match_id=match.match_id, side="soviet", seed=2, tls=tls)
    soviet.claim()
    thread = threading.Thread(target=soviet.run, daemon=True)
    thread.start()
    result = german.run()
    thread.join(120)
    assert result.finished


def test_mutual_tls_asks_every_client_for_a_certificate_of_its_ca(redis_url, pki):
    service = ServiceProcess("--redis-url", redis_url, "--tls-cert", pki["cert"], "--tls-key", pki["key"],
                             "--tls-client-ca", pki["ca"]).start()
    try:
        with TyphoonClient(service.target, tls=ClientTls(ca=pki["ca"], cert=pki["client_cert"],
                                                         key=pki["client_key"])) as client:
            assert client.list_scenarios().scenarios
        with TyphoonClient(service.target, tls=ClientTls(ca=pki["ca"]), retries=0, timeout=10) as anonymous:
            with pytest.raises(Exception) as refused:
                anonymous.list_scenarios()
        assert getattr(refused.value, "code", None) == grpc.StatusCode.UNAVAILABLE

        context = ssl.create_default_context(cafile=pki["ca"])
        base = f"https://127.0.0.1:{service.http_port}"
        with httpx.Client(base_url=base, verify=context, timeout=20) as anonymous_http:
            with pytest.raises(httpx.HTTPError):
                anonymous_http.get("/healthz")
        context.load_cert_chain(pki["client_cert"], pki["client_key"])
        with httpx.Client(base_url=base, verify=context, timeout=20) as http:
            assert http.get("/healthz").status_code == 200
    finally:
        service.stop()


def test_the_bot_command_takes_a_ca(tls_service, pki):
    with TyphoonClient(tls_service.target, tls=ClientTls(ca=pki["ca"])) as client:
        match, _ = client.create_match()
    run = subprocess.run([sys.executable, "-m", "clients.cli", "bot", "--server", tls_service.target, "--match",
                          match.match_id, "--strategy", "random", "--tls-ca", pki["ca"], "--idle-timeout", "2",
                          "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "claimed" in run.stdout, run.stdout + run.stderr


def test_the_ladder_command_takes_a_ca(tls_service, pki):
    run = subprocess.run([sys.executable, "-m", "clients.cli", "ladder", "leaderboard", "--server", tls_service.target,
                          "--tls-ca", pki["ca"]], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and ("no player is registered yet" in run.stdout or "rating" in run.stdout), \
        run.stdout + run.stderr


def test_a_key_that_does_not_match_its_certificate_is_refused_at_start(tmp_path, pki):
    other = trustme.CA().issue_cert("127.0.0.1")
    other.private_key_pem.write_to_path(tmp_path / "other.key")
    run = subprocess.run([sys.executable, "-m", "clients.cli", "serve", "--tls-cert", pki["cert"], "--tls-key",
                          str(tmp_path / "other.key"), "--data-dir", str(tmp_path / "data")],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "--tls-cert/--tls-key" in run.stdout
