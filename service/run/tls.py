"""TLS on both ports: ``typhoon serve --tls-cert FILE --tls-key FILE [--tls-client-ca FILE]``.

The same certificate serves gRPC (gRPC core's TLS: ``grpc.ssl_server_credentials``) and HTTP (Python's
``ssl``, TLS 1.2 at least, ALPN ``http/1.1``). With a client CA, both ports ask every client for a
certificate signed by it and refuse a connection without one (mutual TLS). The files are read once, at
start; a renewed certificate takes a restart (one replica at a time: clients resume elsewhere).
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc


@dataclass(frozen=True)
class TlsFiles:
    """PEM files: the server's certificate (chain) and key, and the CA that signs clients' certificates."""

    cert: str
    key: str
    client_ca: str | None = None

    def check(self) -> None:
        """A ValueError naming what is wrong (a file missing, a key that does not match its certificate)."""
        for label, path in (("--tls-cert", self.cert), ("--tls-key", self.key), ("--tls-client-ca", self.client_ca)):
            if path is not None and not Path(path).is_file():
                raise ValueError(f"{label}: no such file {path}")
        self.server_context()

    def server_context(self) -> ssl.SSLContext:
        """The HTTP port's TLS."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            context.load_cert_chain(self.cert, self.key)
        except ssl.SSLError as error:
            raise ValueError(f"--tls-cert/--tls-key: cannot use them: {error.reason or error}") from None
        context.set_alpn_protocols(["http/1.1"])
        if self.client_ca:
            context.load_verify_locations(cafile=self.client_ca)
            context.verify_mode = ssl.CERT_REQUIRED
        return context

    def grpc_credentials(self) -> grpc.ServerCredentials:
        """The gRPC port's TLS."""
        client_ca = Path(self.client_ca).read_bytes() if self.client_ca else None
        return grpc.ssl_server_credentials([(Path(self.key).read_bytes(), Path(self.cert).read_bytes())],
                                           root_certificates=client_ca, require_client_auth=client_ca is not None)

    def as_args(self) -> list[str]:
        """As ``typhoon serve`` flags (for the workers of ``--workers``).

        >>> TlsFiles("c.pem", "k.pem").as_args()
        ['--tls-cert', 'c.pem', '--tls-key', 'k.pem']
        """
        args = ["--tls-cert", self.cert, "--tls-key", self.key]
        return args + (["--tls-client-ca", self.client_ca] if self.client_ca else [])


def reaches_the_network(host: str) -> bool:
    """Whether listening on ``host`` takes connections from beyond this machine: any address but a
    loopback one (a name counts by every address it resolves to; one that does not resolve counts).

    >>> [reaches_the_network(host) for host in ("127.0.0.1", "127.0.0.2", "::1", "localhost")]
    [False, False, False, False]
    >>> [reaches_the_network(host) for host in ("0.0.0.0", "::", "192.0.2.5", "2001:db8::1")]
    [True, True, True, True]
    """
    try:
        addresses = [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        try:
            addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in socket.getaddrinfo(host, None)]
        except (OSError, ValueError):
            return True
    return not addresses or any(not address.is_loopback for address in addresses)


def warn_if_plaintext(host: str, tls: TlsFiles | None, log: Any) -> bool:
    """At start: a warning (``listening_in_plaintext``) when the service listens beyond this machine
    without TLS: seat tokens and API keys would cross the network in clear. True if it warned."""
    if tls is not None or not reaches_the_network(host):
        return False
    log.warning("listening_in_plaintext", host=host, lifecycle=True,
                advice="seat tokens and API keys cross the network in clear: give --tls-cert and --tls-key, or "
                       "listen on 127.0.0.1 behind a proxy that speaks TLS (deploy/README.md, TLS); a proxy on a "
                       "private network reaching this address in plaintext is the one case where this is expected")
    return True


__all__ = ["TlsFiles", "reaches_the_network", "warn_if_plaintext"]
