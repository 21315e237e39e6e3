"""The Redis an operator's command (``typhoon admin ...``) works on: ``--redis-url``, else the embedded
Redis of ``--data-dir``, shared with the service running on it or started for the command."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def redis_of(redis_url: str | None, data_dir: str) -> Iterator[str]:
    """The URL of the operator's Redis: ``redis_url``, else the embedded one of ``data_dir`` (the socket
    of the service running on it, or an embedded Redis started for the command)."""
    from service.store.embedded_redis import EmbeddedRedis, EmbeddedRedisError

    if redis_url:
        yield redis_url
        return
    directory = Path(data_dir)
    if not any((directory / name).exists() for name in ("appendonly.aof", "appendonlydir", "redis.sock")):
        raise SystemExit(f"typhoon admin: {directory} holds no embedded Redis data; give --data-dir or --redis-url")
    embedded = EmbeddedRedis(directory)
    try:
        url = embedded.start()
    except EmbeddedRedisError:  # a service runs on it: share its Redis
        socket = directory.resolve() / "redis.sock"
        if not socket.exists():
            raise SystemExit(f"typhoon admin: the service running on {directory} listens on a port; "
                             "give its --redis-url") from None
        yield f"unix://{socket}"
        return
    try:
        yield url
    finally:
        embedded.stop()
