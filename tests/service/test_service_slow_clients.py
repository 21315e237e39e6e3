"""Slow and greedy clients, on real sockets against a real service: a request head too large or with too
many fields (431), a request that never ends (slowloris: 408, closed), connections over the per-address
cap (429), an answer nobody reads (closed; a gRPC stream ends with SLOW_READER and the watcher resumes),
idle connections, gRPC's metadata, handshake, stream and ping limits. The service runs with short
timeouts so that each test waits little; no test asserts how fast anything happened, only that it
happened within a generous bound."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest

from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc

from service_helpers import ServiceProcess, play_random, wait_for

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def guarded(redis_url):
    """A service with short timeouts and a small per-address cap (127.0.0.1 is exempt, as a local proxy's
    address is by default; the cap is tried from 127.0.0.2 and up)."""
    process = ServiceProcess("--redis-url", redis_url, "--request-read-timeout", "1", "--slow-reader-timeout", "1",
                             "--max-connections-per-address", "3", "--http-idle-timeout", "1",
                             "--grpc-idle-timeout", "2").start()
    yield process
    process.stop()


def _connect(service, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", service.http_port), timeout=20, source_address=(source, 0))
    return sock


def _answer(sock: socket.socket) -> tuple[int, dict, bytes]:
    """Read one answer: its status, its headers, and its body (by Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    while len(body) < int(headers.get("content-length", 0)):
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body


def _closed(sock: socket.socket, within: float = 30.0) -> bool:
    """Whether the service closes the connection (reading what it still sends) within ``within`` seconds."""
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return True


def _reason(body: bytes) -> str:
    return json.loads(body)["error"]["reason"]


# --- the request's head -----------------------------------------------------------------------------

def test_a_header_line_of_a_megabyte_is_refused_with_431_and_the_connection_closed(guarded):
    with _connect(guarded) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ")
        try:
            sock.sendall(b"a" * 1_000_000 + b"\r\n\r\n")
        except (ConnectionResetError, BrokenPipeError):
            pass  # the service answered and closed before reading it all
        status, headers, body = _answer(sock)
        assert (status, _reason(body)) == (431, "HEADERS_TOO_LARGE")
        assert headers["connection"] == "close"
        assert _closed(sock)
    with guarded.http() as http:  # and the service goes on
        assert http.get("/healthz").status_code == 200


def test_a_head_just_over_the_size_limit_is_refused_and_one_under_it_is_served(guarded):
    for size, expected in ((15_000, 200), (17_000, 431)):  # the default limit: 16 KB
        with _connect(guarded) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"p" * size + b"\r\n\r\n")
            assert _answer(sock)[0] == expected, size


def test_more_header_fields_than_the_limit_are_refused_with_431(guarded):
    for count, expected in ((90, 200), (101, 431), (20_000, 431)):  # the default limit: 100 fields
        with _connect(guarded) as sock:
            try:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n" + b"".join(b"X-H%d: v\r\n" % n for n in range(count))
                             + b"\r\n")
            except (ConnectionResetError, BrokenPipeError):
                pass
            status, _, body = _answer(sock)
            assert status == expected, count
            if expected == 431:
                assert _reason(body) in ("TOO_MANY_HEADERS", "HEADERS_TOO_LARGE")


# --- slow requests ----------------------------------------------------------------------------------

def test_slowloris_sockets_are_answered_408_and_closed(guarded):
    """Fifty connections sending a head a byte at a time, and ten sending nothing at all: every one is
    closed (the service's read timeout is 1 s here)."""
    slow = [_connect(guarded) for _ in range(50)]
    silent = [_connect(guarded) for _ in range(10)]
    try:
        deadline = time.monotonic() + 60
        open_ = list(slow)
        payload = b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: " + b"a" * 1000
        sent = 0
        while open_ and time.monotonic() < deadline:
            for sock in list(open_):
                try:
                    sock.sendall(payload[sent:sent + 1])
                except OSError:
                    open_.remove(sock)
            sent += 1
            time.sleep(0.2)
        assert not open_, f"{len(open_)} slow sockets still open"
        for sock in silent:
            assert _closed(sock)
        with _connect(guarded) as sock:  # what a timed-out request is answered
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
            status, _, body = _answer(sock)
            assert (status, _reason(body)) == (408, "REQUEST_TIMEOUT")
    finally:
        for sock in slow + silent:
            sock.close()


def test_a_body_that_never_ends_is_answered_408(guarded):
    with _connect(guarded) as sock:
        sock.sendall(b"POST /v1/matches HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{")
        assert _closed(sock)


def test_an_idle_keep_alive_connection_is_closed(guarded):
    with _connect(guarded) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        assert _answer(sock)[0] == 200
        assert _closed(sock)  # --http-idle-timeout 1


# --- connections per address ------------------------------------------------------------------------

def test_connections_over_the_per_address_cap_get_429_while_other_addresses_are_served(guarded):
    held = [_connect(guarded, "127.0.0.2") for _ in range(3)]
    try:
        for sock in held:  # the three are served (keep-alive)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            assert _answer(sock)[0] == 200
        with _connect(guarded, "127.0.0.2") as fourth:
            fourth.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            status, headers, body = _answer(fourth)
            assert (status, _reason(body)) == (429, "TOO_MANY_CONNECTIONS")
            assert "retry-after" in headers
        with _connect(guarded, "127.0.0.3") as other:  # another address is not concerned
            other.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            assert _answer(other)[0] == 200
        held.pop().close()

        def served() -> bool:
            with _connect(guarded, "127.0.0.2") as again:
                again.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                return _answer(again)[0] == 200

        wait_for(served, timeout=20, interval=0.2)  # a place is free again once one closed
        many = [_connect(guarded) for _ in range(10)]  # 127.0.0.1 is exempt (a local proxy's address)
        for sock in many:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            assert _answer(sock)[0] == 200
            sock.close()
    finally:
        for sock in held:
            sock.close()


# --- answers nobody reads ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def long_match(guarded):
    """A live match with a long log (300 random actions: ~650 events, ~140 KB as server-sent events)."""
    with guarded.client() as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, match.match_id, tokens, seed="long", max_actions=300)
        assert client.get_match(match.match_id).match.status == 2  # still in play
        return match.match_id


def test_an_event_stream_nobody_reads_is_closed_and_resumes_from_its_last_event_id(guarded, long_match):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", guarded.http_port))
    sock.sendall(f"GET /v1/matches/{long_match}/watch HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    try:
        def reset() -> bool:  # the service closed it: the socket is no longer ESTABLISHED
            return sock.getsockopt(socket.SOL_TCP, socket.TCP_INFO, 1)[0] != 1

        wait_for(reset, timeout=60, interval=0.2)
    finally:
        sock.close()
    with guarded.http() as http:  # a watcher resumes with its cursor
        with http.stream("GET", f"/v1/matches/{long_match}/watch", headers={"Last-Event-ID": "5"}) as stream:
            lines = stream.iter_lines()
            first = next(line for line in lines if line.startswith("id: "))
            assert first == "id: 6"


def test_a_grpc_watcher_that_stops_reading_is_ended_with_slow_reader_and_resumes(guarded, long_match):
    """A client with a 1 KB flow-control window that does not read: the service ends its stream with
    UNAVAILABLE / SLOW_READER; the client, reading at last, gets what was sent, then that status."""
    with grpc.insecure_channel(guarded.target, options=[("grpc.http2.bdp_probe", 0),
                                                        ("grpc.http2.lookahead_bytes", 1024)]) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        call = stub.WatchMatch(api.WatchMatchRequest(match_id=long_match))
        wait_for(lambda: any(e.get("rpc") == "WatchMatch" and e.get("reason") == "SLOW_READER"
                             for e in list(guarded.logs)), timeout=60, interval=0.2)
        received = []
        with pytest.raises(grpc.RpcError) as ended:
            for response in call:
                received.append(response.event.sequence)
        assert ended.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "read nothing" in ended.value.details()
        assert received == list(range(1, len(received) + 1))
    with guarded.client() as client:  # the client's Watch resumes from its cursor by itself
        watch = client.watch(long_match, after_sequence=received[-1])
        assert next(iter(watch)).sequence == received[-1] + 1
        watch.close()


# --- gRPC ---------------------------------------------------------------------------------------------

def test_grpc_metadata_over_the_size_limit_is_refused_and_the_service_goes_on(guarded):
    with grpc.insecure_channel(guarded.target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        for metadata in ([("x-big", "a" * 1_000_000)], [(f"x-h{n}", "v") for n in range(20_000)]):
            with pytest.raises(grpc.RpcError) as refused:
                stub.GetMatch(api.GetMatchRequest(match_id="nosuchmatch"), metadata=metadata, timeout=20)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        with pytest.raises(grpc.RpcError) as answered:
            stub.GetMatch(api.GetMatchRequest(match_id="nosuchmatch"), timeout=20)
        assert answered.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_grpc_connection_that_never_says_hello_is_closed(guarded):
    with socket.create_connection(("127.0.0.1", guarded.grpc_port), timeout=30) as sock:
        sock.sendall(b"PRI * HTTP/2.0\r\n")  # half of HTTP/2's preface, then nothing
        assert _closed(sock)


def test_a_client_pinging_too_often_is_sent_away(guarded):
    """Pings every 100 ms (the service tolerates one per 10 s): GOAWAY too_many_pings ends the stream."""
    with grpc.insecure_channel(guarded.target, options=[("grpc.keepalive_time_ms", 100),
                                                        ("grpc.keepalive_permit_without_calls", 1),
                                                        ("grpc.http2.max_pings_without_data", 0),
                                                        ("grpc.http2.min_time_between_pings_ms", 100),
                                                        ("grpc.http2.min_ping_interval_without_data_ms", 100)]
                           ) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        with guarded.client() as client:
            match, _ = client.create_match()
        call = stub.WatchMatch(api.WatchMatchRequest(match_id=match.match_id, heartbeat_seconds=60))
        with pytest.raises(grpc.RpcError) as ended:
            for _ in call:
                pass
        assert ended.value.code() == grpc.StatusCode.UNAVAILABLE


def test_a_connection_with_more_streams_than_allowed_queues_the_rest(redis_url):
    service = ServiceProcess("--redis-url", redis_url, "--max-streams-per-connection", "2").start()
    try:
        with service.client() as client:
            match, _ = client.create_match()
        with grpc.insecure_channel(service.target) as channel:
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            # a deadline on each stream: no wait below can outlast it
            calls = [stub.WatchMatch(api.WatchMatchRequest(match_id=match.match_id, heartbeat_seconds=60), timeout=90)
                     for _ in range(3)]
            first: dict[int, int] = {}

            def read_first(index: int) -> None:
                try:
                    first[index] = next(calls[index]).event.sequence
                except grpc.RpcError:
                    pass

            readers = [threading.Thread(target=read_first, args=(index,), daemon=True) for index in range(3)]
            for reader in readers:
                reader.start()
            wait_for(lambda: len(first) >= 2, timeout=60, interval=0.1)
            time.sleep(2)  # room for a third stream to slip through, were the limit not kept
            assert len(first) == 2  # two streams are served; the third waits for a place on the connection...
            waiting = next(index for index in range(3) if index not in first)
            calls[next(iter(first))].cancel()
            wait_for(lambda: waiting in first, timeout=60, interval=0.1)
            assert set(first.values()) == {1}  # ...and gets it when one ends
            for call in calls:
                call.cancel()
            for reader in readers:
                reader.join(30)
    finally:
        service.stop()


def test_an_idle_grpc_connection_is_sent_away_and_the_channel_reconnects_when_needed(guarded):
    states = []
    with grpc.insecure_channel(guarded.target) as channel:
        channel.subscribe(states.append, try_to_connect=True)
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        stub.ListScenarios(api.ListScenariosRequest(), timeout=20)
        ready, idle = grpc.ChannelConnectivity.READY, grpc.ChannelConnectivity.IDLE
        # --grpc-idle-timeout 2: GOAWAY, the channel goes idle (the states come on gRPC's own thread: READY
        # may not be there yet when the call returns)
        wait_for(lambda: ready in states and idle in states[states.index(ready):], timeout=60, interval=0.1)
        assert stub.ListScenarios(api.ListScenariosRequest(), timeout=20).scenarios  # and reconnects


def test_a_stopped_grpc_client_process_is_ended_and_goes_on_when_resumed(guarded, long_match):
    """A real client process frozen (SIGSTOP) while its stream is busy: the service does not keep
    waiting on it; resumed, the client's Watch goes on from its cursor to the end of the log."""
    code = (
        "import sys, grpc\n"
        "from clients.client import TyphoonClient\n"
        "with TyphoonClient(sys.argv[1]) as client:\n"
        "    channel = grpc.insecure_channel(sys.argv[1], options=[('grpc.http2.bdp_probe', 0),\n"
        "                                                          ('grpc.http2.lookahead_bytes', 1024)])\n"
        "    client.stub = __import__('service.gen.typhoon.v1.match_service_pb2_grpc',\n"
        "                             fromlist=['x']).MatchServiceStub(channel)\n"
        "    print('ready', flush=True)\n"
        "    for event in client.watch(sys.argv[2]):\n"
        "        print(event.sequence, flush=True)\n"
        "        __import__('time').sleep(0.05)  # a slow reader\n"
        "        if event.sequence >= int(sys.argv[3]): break\n")
    with guarded.client() as client:
        last = client.get_match(long_match).match.last_sequence
    child = subprocess.Popen([sys.executable, "-c", code, guarded.target, long_match, str(last)], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert child.stdout.readline().strip() == "ready"
        before = sum(e.get("reason") == "SLOW_READER" for e in list(guarded.logs))
        child.stdout.readline()
        os.kill(child.pid, signal.SIGSTOP)
        wait_for(lambda: sum(e.get("reason") == "SLOW_READER" for e in list(guarded.logs)) > before, timeout=60,
                 interval=0.2)
        os.kill(child.pid, signal.SIGCONT)
        out, _ = child.communicate(timeout=120)
        sequences = [int(line) for line in out.split()]
        assert sequences[-1] == last
        assert sequences == sorted(set(sequences))  # nothing twice, in order
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGCONT)
            child.kill()
            child.wait()
