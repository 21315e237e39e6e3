"""Plain text on the network (issue 34, point 10): ``typhoon serve --host 0.0.0.0`` without TLS served every
seat token and API key in clear, and said nothing.

The attack starts two services of its own listening on every interface, one plain and one with TLS (a
certificate of a CA made on the spot by ``trustme``), and puts itself between a client and each (a
relay that keeps every byte, as anyone on the path could): the client creates a match with a seat and
registers a ladder owner through it. Figures, for each: whether the service warned at start
(``listening_in_plaintext``), and whether the seat token and the owner key could be read on the wire.
The eavesdropper costs the service nothing: there is no honest play to measure beside it.
"""

from __future__ import annotations

import asyncio
import secrets
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import trustme

from service.processes import ServeProcess

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

NAME = "plaintext"
SUMMARY = "an eavesdropper between a client and a service on 0.0.0.0, without then with TLS"


class Relay:
    """A TCP relay on 127.0.0.1 to ``port``, in a thread of its own, keeping every byte it passes."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.seen = bytearray()
        self.address = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Relay:
        self._thread.start()
        self._ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._relay, "127.0.0.1", 0))
        self.address = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()
        pending = asyncio.all_tasks(self._loop)
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.close()

    async def _relay(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)

        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            while data := await source.read(65536):
                self.seen += data
                sink.write(data)
                await sink.drain()
            sink.close()

        await asyncio.gather(copy(client_reader, writer), copy(reader, client_writer), return_exceptions=True)


def _overheard(service: ServeProcess, scheme: str, verify: Any) -> dict[str, Any]:
    with Relay(service.http_port) as relay, \
            httpx.Client(base_url=f"{scheme}://localhost:{relay.address}", verify=verify, timeout=30) as http:
        created = http.post("/v1/matches", json={"seats": [{"side": "german"}]}).json()
        token = created["seat_tokens"][0]["token"]
        owner_key = http.post("/v1/ladder/owners", json={"name": "eavesdropped-" + secrets.token_hex(3)}).json()["owner_key"]
    warned = any(entry.get("event") == "listening_in_plaintext" for entry in service.logs)
    return {"warned at start": "yes" if warned else "no",
            "seat token read on the wire": "yes" if token.encode() in relay.seen else "no",
            "owner key read on the wire": "yes" if owner_key.encode() in relay.seen else "no"}


def run(target: Target, seconds: float) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="typhoon-plaintext-") as directory:
        ca = trustme.CA()
        certificate = ca.issue_cert("127.0.0.1", "localhost")
        cert, key, ca_file = (Path(directory) / name for name in ("server.pem", "server.key", "ca.pem"))
        certificate.cert_chain_pems[0].write_to_path(cert)
        certificate.private_key_pem.write_to_path(key)
        ca.cert_pem.write_to_path(ca_file)
        for label, args, scheme, verify in (
                ("plain", (), "http", True),
                ("TLS", ("--tls-cert", str(cert), "--tls-key", str(key)), "https", str(ca_file))):
            service = ServeProcess("--host", "0.0.0.0", "--data-dir", str(Path(directory) / label), *args,
                                   remember=500).start()
            try:
                figures |= {f"{label}: {name}": value for name, value in _overheard(service, scheme, verify).items()}
            finally:
                service.stop()
    return figures
