"""What ``typhoon serve`` runs with: ports, Redis, limits, sweeps (``service.run.cli`` fills it from the
command line; the server and its workers read it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.api.connection_limits import ConnectionLimits
from service.client_identity import IPV4_PREFIX, IPV6_PREFIX
from service.guard.history_pool import HistorySettings
from service.guard.limit_settings import LimitSettings
from service.guard.store_capacity import HIGH_WATER
from service.ladder.core import LadderConfig
from service.match.updates import MAX_SEAT_WATCHES
from service.match.watch_limits import MAX_WATCH_STREAMS, MAX_WATCH_STREAMS_PER_CLIENT
from service.run.operations import Operations
from service.run.tls import TlsFiles
from service.store.credentials import password_from_file
from service.store.connection import MAX_CONNECTIONS, WAIT_TIMEOUT_MS, RedisSettings
from service.upkeep.abandoned import DEFAULT_DAYS as DEFAULT_ABANDON_DAYS
from service.upkeep.unused import DEFAULT_HOURS as DEFAULT_UNUSED_HOURS


@dataclass
class ServeConfig:
    grpc_port: int = 50051
    http_port: int = 8080
    host: str = "127.0.0.1"
    redis_url: str | None = None
    redis_cluster: bool = False
    #: Sentinel: the sentinels' (host, port) and the name of the primary they watch (service.store.connection)
    redis_sentinels: tuple[tuple[str, int], ...] = ()
    redis_master_name: str = ""
    #: replicas that must hold a write before it is acknowledged (WAIT; 0: no WAIT), and how long it waits
    redis_min_replicas: int = 0
    redis_wait_timeout_ms: int = WAIT_TIMEOUT_MS
    #: a file holding the Redis password (a mounted secret); the password itself is never in the config
    redis_password_file: str | None = None
    data_dir: str = ".typhoon"
    grace_seconds: float = 10.0
    log_level: str = "info"
    #: one of the processes of ``typhoon serve --workers N`` (service/run/workers.py): the ports are shared
    #: (SO_REUSEPORT) and the supervisor is told when it serves
    worker: bool = False
    #: Origins whose pages may call the REST API (CORS); none by default.
    cors_origins: tuple[str, ...] = ()
    #: The page: the origin of the API it calls when not its own, and the gRPC address it tells bots
    #: when not its host and grpc_port (service.api.web.PageSettings).
    page_api_origin: str = ""
    public_grpc_address: str = ""
    ladder: LadderConfig = field(default_factory=LadderConfig)
    #: The file of the ladder's address key (service.ladder.related), for the workers; "": drawn, kept in Redis.
    ladder_address_key_file: str = ""
    redis_connections: int = MAX_CONNECTIONS
    max_watch_streams: int = MAX_WATCH_STREAMS
    max_watch_streams_per_client: int = MAX_WATCH_STREAMS_PER_CLIENT
    #: Watches of one seat with its legal actions (WatchMatch include_legal_actions) per process.
    max_seat_watches: int = MAX_SEAT_WATCHES
    fsync: str = "everysec"
    #: Live matches unchanged for this many days are ended (service.upkeep.abandoned); 0: never.
    abandon_after_days: float = DEFAULT_ABANDON_DAYS
    #: Matches over for more than this many days are deleted (service.upkeep.retention); 0: kept for good.
    retention_days: float = 0.0
    #: The limits on slow and greedy clients (service.api.connection_limits).
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    #: TLS on both ports (service.run.tls); None: plain.
    tls: TlsFiles | None = None
    #: Where /metrics, /docs and reflection are served, and the admin listeners (service.run.operations).
    operations: Operations = field(default_factory=Operations)
    #: Live matches never played in and unchanged for this many hours are deleted (service.upkeep.unused); 0: never.
    unused_after_hours: float = DEFAULT_UNUSED_HOURS
    #: The rate limits (service.guard); ``LimitSettings.off()`` for a private service.
    limits: LimitSettings = field(default_factory=LimitSettings.defaults)
    #: Networks of the proxies whose X-Forwarded-For is believed (service.guard.addresses); none by default.
    trusted_proxies: tuple[str, ...] = ()
    #: Clients are counted by these networks, for the limits and the ladder's related owners (service.client_identity).
    client_ipv4_prefix: int = IPV4_PREFIX
    client_ipv6_prefix: int = IPV6_PREFIX
    #: New matches and players are refused past this share of Redis's maxmemory (service.guard.store_capacity).
    store_high_water: float = HIGH_WATER
    #: The embedded Redis's maxmemory ("auto": a quarter of the machine's memory; "0": none).
    redis_maxmemory: str = "auto"
    #: The pool that re-simulates match logs off the event loop, and its caps (service.guard.history_pool).
    history: HistorySettings = field(default_factory=HistorySettings)

    def redis_settings(self, url: str = "") -> RedisSettings:
        """The settings of the service's Redis (``url``: the one found when none was given, the embedded)."""
        return RedisSettings(url or self.redis_url or "", self.redis_cluster, self.redis_sentinels,
                             self.redis_master_name, self.redis_min_replicas, self.redis_wait_timeout_ms,
                             self.redis_connections, password_from_file(self.redis_password_file))


__all__ = ["ServeConfig"]
