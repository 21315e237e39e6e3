"""Reaching the service from the command line: the ``--server`` option every command shares, and a quick
look that a service answers there before a command starts its work.

A bot's client waits minutes for a service that went away (a restart, a failover: ``--retry-seconds``);
a command started against an address where nothing answers should say so at once instead, with how to
start a service:

>>> print(unreachable_sentence("127.0.0.1:50051", 5))  # doctest: +NORMALIZE_WHITESPACE
no Typhoon service answers at 127.0.0.1:50051 (gRPC) within 5 s: start one with
`typhoon serve --grpc-port 50051 --http-port 8080`, or give its address with --server HOST:PORT
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clients.tls import ClientTls

#: Where the commands look for the service unless told: ``typhoon serve``'s default gRPC port, here.
DEFAULT_SERVER = "127.0.0.1:50051"
#: Seconds a command waits for a first connection before it says nothing answers.
CONNECT_SECONDS = 5.0


def add_server_argument(parser: argparse.ArgumentParser, flag: str = "--server",
                        default: str | None = DEFAULT_SERVER, says: str = "") -> None:
    """The option naming the service's gRPC address, its default in its help."""
    told = f" (default {default})" if default else ""
    parser.add_argument(flag, default=default, metavar="HOST:PORT",
                        help=(says or "the service's gRPC address") + told)


def service_answers(target: str, tls: ClientTls | None = None, seconds: float = CONNECT_SECONDS) -> bool:
    """Whether a gRPC server accepts a connection at ``target`` within ``seconds`` (an HTTP/1 server, or
    nothing, does not)."""
    import grpc

    from clients.tls import open_channel

    channel = open_channel(target, tls)
    try:
        grpc.channel_ready_future(channel).result(timeout=seconds)
        return True
    except grpc.FutureTimeoutError:
        return False
    finally:
        channel.close()


def unreachable_sentence(target: str, seconds: float = CONNECT_SECONDS, flag: str = "--server") -> str:
    """What to tell someone whose command found no service at ``target``."""
    port = target.rpartition(":")[2] if target.rpartition(":")[2].isdigit() else "50051"
    return (f"no Typhoon service answers at {target} (gRPC) within {seconds:g} s: start one with "
            f"`typhoon serve --grpc-port {port} --http-port 8080`, or give its address with {flag} HOST:PORT")


__all__ = ["CONNECT_SECONDS", "DEFAULT_SERVER", "add_server_argument", "service_answers", "unreachable_sentence"]
