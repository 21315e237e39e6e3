"""TLS from the clients' side: a service started with ``typhoon serve --tls-cert ... --tls-key ...`` speaks
only TLS, on both ports.

>>> ClientTls().is_default_trust, ClientTls(ca="ca.pem").is_default_trust
(True, False)

``TyphoonClient(target, tls=ClientTls(ca="ca.pem"))`` trusts certificates that CA signed (``ClientTls()``:
the system's CAs, as for a public certificate); ``cert`` and ``key`` are the client's own certificate for a
service that asks for one (``--tls-client-ca``, mutual TLS). The commands take ``--tls`` (and
``--tls-ca``, ``--tls-cert``, ``--tls-key``; any of them implies ``--tls``).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import grpc


@dataclass(frozen=True)
class ClientTls:
    """The CA to trust (None: the system's) and, for mutual TLS, the client's certificate and key (PEM files)."""

    ca: str | None = None
    cert: str | None = None
    key: str | None = None

    def __post_init__(self) -> None:
        if (self.cert is None) != (self.key is None):
            raise ValueError("a client certificate and its key go together")

    @property
    def is_default_trust(self) -> bool:
        return self.ca is None

    def credentials(self) -> grpc.ChannelCredentials:
        def read(path: str | None) -> bytes | None:
            return Path(path).read_bytes() if path else None

        return grpc.ssl_channel_credentials(root_certificates=read(self.ca), private_key=read(self.key),
                                            certificate_chain=read(self.cert))


def open_channel(target: str, tls: ClientTls | None = None,
                 options: Sequence[tuple[str, int | str]] = ()) -> grpc.Channel:
    """A channel to ``target``: TLS with ``tls``, else plain."""
    if tls is None:
        return grpc.insecure_channel(target, options=list(options))
    return grpc.secure_channel(target, tls.credentials(), options=list(options))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--tls``, ``--tls-ca``, ``--tls-cert``, ``--tls-key`` on a command that talks to the service."""
    group = parser.add_argument_group("TLS (a service started with --tls-cert)")
    group.add_argument("--tls", action="store_true", help="talk TLS to the service (trusting the system's CAs, or "
                                                          "--tls-ca)")
    group.add_argument("--tls-ca", metavar="PEM", help="trust the certificates this CA signed (implies --tls)")
    group.add_argument("--tls-cert", metavar="PEM", help="this client's certificate, for mutual TLS (implies --tls)")
    group.add_argument("--tls-key", metavar="PEM", help="the client certificate's key")


def from_args(args: argparse.Namespace) -> ClientTls | None:
    """The TLS the flags ask for (None: plain)."""
    if not (args.tls or args.tls_ca or args.tls_cert or args.tls_key):
        return None
    return ClientTls(ca=args.tls_ca, cert=args.tls_cert, key=args.tls_key)


__all__ = ["ClientTls", "add_arguments", "from_args", "open_channel"]
