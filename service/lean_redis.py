"""Cheaper calls through redis-py's asyncio client, on the service's hot path (every call makes one).

Two costs of ``redis.asyncio`` that the service does not need to pay (benchmarks/service_floor.py):

- its asyncio connections pack each command in Python, argument by argument (~60 µs for a commit's
  ~50 arguments); its synchronous client packs with hiredis's C packer when hiredis is installed
  (``redis.connection.HiredisRespSerializer``, ~6 µs). :func:`pack_with_hiredis` gives a pool's
  connections that packer.
- a registered script (``AsyncScript``) imports a module and checks for pipelines on every call
  before ``EVALSHA``; :class:`Script` sends ``EVALSHA`` through the client's ``execute_command``
  (retries, connection pool and cluster routing stay redis-py's), loading the script on
  ``NOSCRIPT`` as ``AsyncScript`` does.

>>> import redis.asyncio as aioredis
>>> pool = pack_with_hiredis(aioredis.ConnectionPool.from_url("redis://localhost"))
>>> b"".join(pool.make_connection().pack_command("EVALSHA", "ab", 1, "k", "v"))
b'*5\\r\\n$7\\r\\nEVALSHA\\r\\n$2\\r\\nab\\r\\n$1\\r\\n1\\r\\n$1\\r\\nk\\r\\n$1\\r\\nv\\r\\n'
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any, Sequence

from redis.asyncio.connection import ConnectionPool
from redis.connection import HIREDIS_AVAILABLE, HiredisRespSerializer
from redis.exceptions import NoScriptError


@functools.cache
def _hiredis_packing(connection_class: type) -> type:
    serializer = HiredisRespSerializer()

    class HiredisPacked(connection_class):  # type: ignore[misc, valid-type]
        def pack_command(self, *args: Any) -> list[bytes]:
            return serializer.pack(*args)

    HiredisPacked.__name__ = HiredisPacked.__qualname__ = f"HiredisPacked{connection_class.__name__}"
    return HiredisPacked


def pack_with_hiredis(pool: ConnectionPool) -> ConnectionPool:
    """``pool``, its connections (made from now on) packing commands with hiredis (if installed)."""
    if HIREDIS_AVAILABLE:
        pool.connection_class = _hiredis_packing(pool.connection_class)
    return pool


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
