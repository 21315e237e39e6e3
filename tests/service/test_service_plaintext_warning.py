"""``typhoon serve`` warns at start when it listens beyond this machine without TLS (issue 34, point 10):
seat tokens and API keys would cross the network in clear. Real service processes."""

from __future__ import annotations

import trustme

from service_helpers import ServiceProcess


def _warnings(service: ServiceProcess) -> list[dict]:
    return [entry for entry in service.logs if entry.get("event") == "listening_in_plaintext"]


def _started(*args: str) -> ServiceProcess:
    service = ServiceProcess(*args).start()
    service.stop()
    return service


def test_a_service_on_every_interface_without_tls_warns_once_at_start(redis_url):
    for workers in (1, 2):  # with workers, the supervisor warns, once for all of them
        service = ServiceProcess("--redis-url", redis_url, "--host", "0.0.0.0", workers=workers)
        service.start()
        service.stop()
        (warning,) = _warnings(service)
        assert warning["level"] == "warning" and warning["host"] == "0.0.0.0"
        assert "--tls-cert" in warning["advice"] and "in clear" in warning["advice"]
        serving = [entry for entry in service.logs if entry.get("event") == "serving"]
        assert serving and service.logs.index(warning) < service.logs.index(serving[0])  # before it serves


def test_no_warning_on_loopback_or_with_tls(redis_url, tmp_path):
    assert not _warnings(_started("--redis-url", redis_url, "--host", "127.0.0.1"))
    server = trustme.CA().issue_cert("127.0.0.1", "localhost")
    cert, key = tmp_path / "server.pem", tmp_path / "server.key"
    server.cert_chain_pems[0].write_to_path(cert)
    server.private_key_pem.write_to_path(key)
    assert not _warnings(_started("--redis-url", redis_url, "--host", "0.0.0.0", "--tls-cert", str(cert),
                                  "--tls-key", str(key)))
