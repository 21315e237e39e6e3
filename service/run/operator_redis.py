"""The Redis an operator's command (``typhoon admin ...``) works on: ``--redis-url``, else the embedded
Redis of ``--data-dir``, shared with the service running on it or started for the command."""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path
from typing import Iterator


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options naming an operator's Redis, the same for every ``typhoon admin`` command."""
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"),
                        help="the service's Redis (default: $REDIS_URL, else the embedded Redis of --data-dir)")
    parser.add_argument("--redis-password-file", metavar="PATH", default=os.environ.get("TYPHOON_REDIS_PASSWORD_FILE"),
                        help="a file holding the Redis password (default: $TYPHOON_REDIS_PASSWORD_FILE)")
    parser.add_argument("--data-dir", default=".typhoon", help="the embedded Redis's data directory (.typhoon)")


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
