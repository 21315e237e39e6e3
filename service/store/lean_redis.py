"""Cheaper calls through redis-py's asyncio client, on the service's hot path (every call makes one).

Two costs of ``redis.asyncio`` that the service does not need to pay (benchmarks/service_floor.py):

- its asyncio connections pack each command in Python, argument by argument (~60 µs for a commit's
  ~50 arguments); its synchronous client packs with hiredis's C packer when hiredis is installed
  (``redis.connection.HiredisRespSerializer``, ~6 µs). :func:`pack_with_hiredis` gives a pool's
  connections that packer.
- a registered script (``AsyncScript``) imports a module and checks for pipelines on every call
  before ``EVALSHA``; :class:`Script` sends ``EVALSHA`` itself, loading the script on ``NOSCRIPT``
  as ``AsyncScript`` does.
- the client's ``execute_command`` takes a connection from its blocking pool (a condition, a
  timeout, a connection check), wraps the command in its retry loop and records observability
  hooks: ~65 µs of CPU a command, against ~40 µs for the same command sent and read on a
  connection of that pool. :class:`Lane` does the latter on a few connections it keeps from the
  pool, and hands any connection or timeout failure to ``execute_command`` (whose retries, pool
  and cluster routing stay redis-py's).

>>> import redis.asyncio as aioredis
>>> pool = pack_with_hiredis(aioredis.ConnectionPool.from_url("redis://localhost"))
>>> b"".join(pool.make_connection().pack_command("EVALSHA", "ab", 1, "k", "v"))
b'*5\\r\\n$7\\r\\nEVALSHA\\r\\n$2\\r\\nab\\r\\n$1\\r\\n1\\r\\n$1\\r\\nk\\r\\n$1\\r\\nv\\r\\n'
>>> b"".join(pool.make_connection().pack_command("SCRIPT LOAD", "return 1"))  # split as redis-py does
b'*3\\r\\n$6\\r\\nSCRIPT\\r\\n$4\\r\\nLOAD\\r\\n$8\\r\\nreturn 1\\r\\n'
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any, Sequence

try:
    import hiredis
except ImportError:  # pack_with_hiredis() then leaves the pool as it is
    hiredis = None

from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.connection import HIREDIS_AVAILABLE, HiredisRespSerializer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError


@functools.cache
def _hiredis_packing(connection_class: type) -> type:
    serializer = HiredisRespSerializer()

    class HiredisPacked(connection_class):  # type: ignore[misc, valid-type]
        def pack_command(self, *args: Any) -> list[bytes]:
            # hiredis's packer itself where redis-py's wrapper has nothing to do (a one-word command,
            # arguments hiredis takes): the wrapper's checks cost more than the packing (~10 µs against
            # ~4 for a commit)
            if isinstance(args[0], str) and " " not in args[0]:
                try:
                    return [hiredis.pack_command(args)]
                except TypeError:
                    pass
            return serializer.pack(*args)

    HiredisPacked.__name__ = HiredisPacked.__qualname__ = f"HiredisPacked{connection_class.__name__}"
    return HiredisPacked


def pack_with_hiredis(pool: ConnectionPool) -> ConnectionPool:
    """``pool``, its connections (made from now on) packing commands with hiredis (if installed)."""
    if HIREDIS_AVAILABLE:
        pool.connection_class = _hiredis_packing(pool.connection_class)
    return pool


class Lane:
    """``execute_command`` of a ``redis.asyncio`` client, cheaper (see the module's docstring).

    It keeps up to ``idle`` connections taken from the client's pool, and no more than an eighth of
    the pool's limit (they count as in use there: see :attr:`kept`), and sends each command on one
    of them. An error reply
    leaves the connection usable; a broken connection or a timeout (redis-py disconnects it then)
    is given back to the pool and the command sent again through the client's ``execute_command``,
    which retries with its backoff: what its own retry of a lost answer would send. A command
    cancelled midway leaves its connection disconnected (redis-py's own rule), so no later command
    reads its reply. A Redis Cluster client, or a single-connection one, is used as it is.
    """

    def __init__(self, client: Any, idle: int = 16) -> None:
        self.client = client
        pool = getattr(client, "connection_pool", None)
        self._pool: ConnectionPool | None = None if getattr(client, "single_connection_client", True) else pool
        self.idle = max(1, min(idle, getattr(pool, "max_connections", idle) // 8))
        self._connections: list[AbstractConnection] = []

    @property
    def kept(self) -> int:
        """Connections kept idle here (the pool counts them as in use)."""
        return len(self._connections)

    async def script_load(self, source: str) -> Any:
        return await self.client.script_load(source)

    async def execute_command(self, *args: Any) -> Any:
        pool = self._pool
        if pool is None:
            return await self.client.execute_command(*args)
        connection = self._connections.pop() if self._connections else await pool.get_connection()
        try:
            await _send(connection, connection.pack_command(*args))
            reply = await connection.read_response()
        except ResponseError:
            await self._keep(connection)
            raise
        except (RedisConnectionError, RedisTimeoutError, OSError):
            await self._drop(connection)
            return await self.client.execute_command(*args)
        except BaseException:
            await self._drop(connection)
            raise
        await self._keep(connection)
        return reply

    async def execute_many(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Several commands in one write, their replies read in one round trip (a pipeline without
        MULTI: each runs on its own), on one connection. An error reply comes back in its place as the
        ResponseError (the caller decides), never raised. A Cluster or single-connection client sends
        them one by one; a broken connection or a timeout sends them again, together, through a pipeline
        of the client (its retries; one connection still, as a WAIT among them needs)."""
        pool = self._pool
        if pool is None:
            return [await self._reply(self.client.execute_command(*command)) for command in commands]
        connection = self._connections.pop() if self._connections else await pool.get_connection()
        try:
            await _send(connection, connection.pack_commands(commands))
            replies = [await self._reply(connection.read_response()) for _ in commands]
        except (RedisConnectionError, RedisTimeoutError, OSError):
            await self._drop(connection)
            async with self.client.pipeline(transaction=False) as pipe:
                for command in commands:
                    pipe.execute_command(*command)
                return await pipe.execute(raise_on_error=False)
        except BaseException:
            await self._drop(connection)
            raise
        await self._keep(connection)
        return replies

    async def _drop(self, connection: AbstractConnection) -> None:
        """A connection whose state is unknown (broken, timed out, cancelled midway): closed, given back."""
        await connection.disconnect(nowait=True)
        await self._pool.release(connection)

    @staticmethod
    async def _reply(pending: Any) -> Any:
        try:
            return await pending
        except ResponseError as error:
            return error

    async def _keep(self, connection: AbstractConnection) -> None:
        if len(self._connections) < self.idle:
            self._connections.append(connection)
        else:
            await self._pool.release(connection)


async def _send(connection: AbstractConnection, packed: list[bytes]) -> None:
    """Send a packed command on ``connection``. redis-py sends each one under ``asyncio.wait_for(...,
    socket_timeout)``, which on Python 3.11 wraps the send in a task of its own, with a timer, and resumes
    the caller a loop turn later (~10 µs a command): for a write that never waits, into a connection whose
    write buffer is empty. Here such a write is handed to the transport at once (which sends it, or
    buffers what the socket does not take); only a connection with bytes still buffered (a slow or full
    socket), or not yet connected, goes through redis-py's send and its timeout. A write that fails breaks
    the connection: its reply's read then raises redis-py's ConnectionError, as a failed send would."""
    writer: Any = getattr(connection, "_writer", None)
    if writer is not None:
        transport = writer.transport
        if not transport.is_closing() and not transport.get_write_buffer_size():
            writer.writelines(packed)
            return
    await connection.send_packed_command(packed, check_health=False)


class Script:
    """A Lua script run by ``EVALSHA`` (loaded into Redis when Redis does not know it yet)."""

    def __init__(self, client: Any, source: str) -> None:
        self.client = client
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()  # noqa: S324 - Redis names scripts by SHA-1

    async def __call__(self, keys: Sequence[Any] = (), args: Sequence[Any] = ()) -> Any:
        try:
            return await self.client.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:  # a Redis that restarted, or that was never told
            self.sha = await self.client.script_load(self.source)
            return await self.client.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)

    async def then(self, keys: Sequence[Any], args: Sequence[Any], *after: Sequence[Any]) -> tuple[Any, list[Any]]:
        """The script run as a call does, and the commands ``after`` it on the same connection in the same
        round trip (``client`` is then a :class:`Lane`): the script's reply (an error reply raised), and
        theirs as :meth:`Lane.execute_many` gives them."""
        for attempt in range(2):
            replies = await self.client.execute_many([("EVALSHA", self.sha, len(keys), *keys, *args), *after])
            if isinstance(replies[0], NoScriptError) and attempt == 0:
                self.sha = await self.client.script_load(self.source)
                continue
            if isinstance(replies[0], Exception):
                raise replies[0]
            return replies[0], replies[1:]
        raise AssertionError("unreachable")
