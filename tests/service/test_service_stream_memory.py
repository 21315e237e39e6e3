"""What closed streams leave behind: nothing the garbage collector must find (each stream's objects are
freed as it ends, service/api/event_stream.py), and the allocator's free memory returned to the system
once a crowd of streams has gone (service/run/memory.py)."""

from __future__ import annotations

import asyncio
import gc
import socket
import types

import grpc
import pytest

from clients.client import TyphoonClient
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc
from service.guard.limit_settings import LimitSettings
from service.run.config import ServeConfig
from service.run.memory import MemoryReturn, _malloc_trim
from service.run.server import BackgroundServer

from service_helpers import wait_for

STREAMS = 30
#: What a watch stream is made of: none of it may be left for the collector once the stream has ended.
STREAM_PARTS = {"_Subscription", "EventStreamResponse", "RequestResponseCycle", "GuardedHttpProtocol", "Queue"}
STREAM_CODE = {"_watch", "follow", "_sse", "_pump", "handler"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # streams opened back to back: not held back by the stream_opens limit
    config = ServeConfig(grpc_port=0, http_port=0, data_dir=str(tmp_path_factory.mktemp("data")),
                         limits=LimitSettings.defaults().with_rates({"stream_opens": "off"}))
    with BackgroundServer(config) as run:
        yield run


@pytest.fixture(scope="module")
def match_id(server) -> str:
    with TyphoonClient(f"127.0.0.1:{server.grpc_port}") as client:
        return client.create_match()[0].match_id


def _event_streams(server, match_id: str) -> None:
    """Open STREAMS server-sent event streams, then close them all and wait until the service has."""
    sockets = []
    for _ in range(STREAMS):
        sock = socket.create_connection(("127.0.0.1", server.http_port), timeout=20)
        sock.sendall(f"GET /v1/matches/{match_id}/watch HTTP/1.1\r\nHost: t\r\n\r\n".encode())
        assert sock.recv(100).startswith(b"HTTP/1.1 200")
        sockets.append(sock)
    wait_for(lambda: server.server.hub.watchers == STREAMS, timeout=30)
    for sock in sockets:
        sock.close()
    wait_for(lambda: server.server.hub.watchers == 0 and server.server._http.connections == 0, timeout=30)


def _grpc_streams(server, match_id: str) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        calls = [stub.WatchMatch(api.WatchMatchRequest(match_id=match_id)) for _ in range(STREAMS)]
        for call in calls:
            next(call)
        for call in calls:
            call.cancel()
    wait_for(lambda: server.server.hub.watchers == 0, timeout=30)


def _left_for_the_collector() -> list[str]:
    """The stream parts only the garbage collector would free (what a full collection finds unreachable)."""
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found = []
        for thing in gc.garbage:
            name = type(thing).__name__
            if name in STREAM_PARTS:
                found.append(name)
            elif isinstance(thing, (types.CoroutineType, types.AsyncGeneratorType)) and thing.__name__ in STREAM_CODE:
                found.append(thing.__qualname__)
        return found
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()


def _left_by_the_second_use(use_streams) -> list:
    """What the garbage collector would find after ``use_streams()`` (once before, for what a first use
    makes once: the Redis scripts loaded...)."""
    use_streams()
    gc.collect()
    gc.disable()
    try:
        use_streams()
        return _left_for_the_collector()
    finally:
        gc.enable()


def test_closed_event_streams_leave_nothing_for_the_garbage_collector(server, match_id):
    assert _left_by_the_second_use(lambda: _event_streams(server, match_id)) == []


def test_closed_grpc_watch_streams_leave_nothing_for_the_garbage_collector(server, match_id):
    assert _left_by_the_second_use(lambda: _grpc_streams(server, match_id)) == []


@pytest.mark.skipif(_malloc_trim() is None, reason="the C library has no malloc_trim (not glibc)")
def test_memory_is_returned_once_the_streams_open_fell_well_below_their_peak():
    count = [0]
    memory = MemoryReturn(lambda: count[0], drop=100)

    async def scenario() -> list[bool]:
        seen = []
        for open_now in (50, 400, 350, 290, 299, 10):
            count[0] = open_now
            seen.append(await memory.check())
        return seen

    # the peak is 400: 290 is 110 below it (returned); then from the new peak, 299, 10 is 289 below it
    assert asyncio.run(scenario()) == [False, False, False, True, False, True]
    assert memory.returns == 2


def _refused_calls(server) -> None:
    """Calls the service refuses: an unknown match, a malformed request, metadata over the limit."""
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}", options=[("grpc.max_metadata_size", 2**20)]) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        for metadata in ((), (("x-pad", "p" * 17_000),)):
            for _ in range(STREAMS):
                with pytest.raises(grpc.RpcError):
                    stub.GetMatch(api.GetMatchRequest(match_id="m-none"), metadata=metadata, timeout=20)
        with pytest.raises(grpc.RpcError):
            next(stub.WatchMatch(api.WatchMatchRequest(match_id="m-none"), timeout=20))


def test_refused_grpc_calls_leave_nothing_for_the_garbage_collector(server):
    """A refused call ends with ``context.abort()`` whose AbortError is stripped of its traceback and context:
    left whole, it kept the call (its metadata, its request) in a reference cycle until a full collection
    (service/api/grpc_api.py, ``end_with``)."""
    _refused_calls(server)
    gc.collect()
    gc.disable()
    flags = gc.get_debug()
    try:
        _refused_calls(server)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [type(thing).__name__ for thing in gc.garbage
                if type(thing).__name__ in ("AbortError", "RPCState", "_ServicerContext")]
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
        gc.enable()
    assert left == []


@pytest.mark.skipif(_malloc_trim() is None, reason="the C library has no malloc_trim (not glibc)")
def test_memory_is_returned_once_the_allocator_holds_much_more_free_memory():
    """Whatever freed it (calls no count sees), once the allocator holds ``growth`` more free bytes than
    at the last return, they are returned; memory used again lowers the mark."""
    free = [10]
    memory = MemoryReturn(lambda: 0, growth=100, free=lambda: free[0])
    trims: list[int] = []
    memory._trim = lambda pad: trims.append(free[0]) or 0

    async def scenario() -> None:
        for now in (50, 109, 5, 104, 300, 310, 420):
            free[0] = now
            await memory.check()

    asyncio.run(scenario())
    # the mark starts at 10: 109 is 99 above it; 5 lowers it, and 104 is 99 above that; 300 is returned
    # (the mark: 300), the look after a return trims once more (310), and 420 is 120 above the mark
    assert trims == [300, 310, 420]
