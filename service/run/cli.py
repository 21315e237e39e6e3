"""The ``serve`` subcommand of the ``typhoon`` command (registered by clients/cli.py)."""

from __future__ import annotations

import argparse
import os


def _serve(args: argparse.Namespace) -> int:
    from dataclasses import replace

    import structlog

    from service.ladder.core import LadderConfig
    from service.ladder.related import read_key_file
    from service.match.clock import TimeControl
    from service.processes import die_with_parent_if_asked
    from service.run.config import ServeConfig
    from service.run.server import configure_logging, run_event_loop, serve, settle_garbage_collector
    from service.run.workers import default_workers, serve_workers
    from service.store.connection import RedisSettings
    from service.store.embedded_redis import EmbeddedRedisError

    die_with_parent_if_asked()
    try:
        control = TimeControl.parse(args.ladder_time_control)
        control = replace(control, first_action_ms=round(args.ladder_first_action * 1000))
        control.check()
    except ValueError as error:
        print(f"typhoon serve: --ladder-time-control: {error}")
        return 2
    fair_play = fair_play_of(args)
    try:
        fair_play.check()
        address_key = read_key_file(args.ladder_address_key_file) if args.ladder_address_key_file else None
    except (ValueError, OSError) as error:
        print(f"typhoon serve: ladder fair play: {error}")
        return 2
    for option, value in (("--abandon-after-days", args.abandon_after_days), ("--retention-days", args.retention_days)):
        if value < 0:
            print(f"typhoon serve: {option}: a number of days, or 0 for never")
            return 2
    if args.redis_password_file:
        from service.store.credentials import CredentialsError, password_from_file

        if not args.redis_url:
            print("typhoon serve: --redis-password-file is the password of --redis-url ($REDIS_URL), and none "
                  "is given (the embedded Redis has no password: it listens on a private socket)")
            return 2
        try:
            password_from_file(args.redis_password_file)
        except CredentialsError as error:
            print(f"typhoon serve: --redis-password-file: {error}")
            return 2
    from service.api.web import PageSettings
    try:
        sentinels = RedisSettings.parse_sentinels(args.redis_sentinel or "")
        settings = RedisSettings(args.redis_url or "", args.redis_cluster, sentinels, args.redis_master_name or "",
                                 args.redis_min_replicas, args.redis_wait_timeout_ms)
        settings.check()
        if settings.min_replicas and not (settings.url or os.environ.get("REDIS_URL") or settings.sentinel):
            raise ValueError("--redis-min-replicas needs a Redis with replicas (--redis-url or --redis-sentinel); "
                             "the embedded Redis has none")
        guard_settings = _guard_settings(args)
        connections, tls, operations = _edge(args)
        PageSettings(grpc_address=args.public_grpc_address, api_origin=args.page_api_origin)
    except (ValueError, OSError) as error:
        print(f"typhoon serve: {error}")
        return 2
    configure_logging(args.log_level, cache=True)
    if args.worker:  # which of the workers logged a line
        structlog.contextvars.bind_contextvars(pid=os.getpid())
    config = ServeConfig(grpc_port=args.grpc_port, http_port=args.http_port, host=args.host,
                         redis_url=args.redis_url, redis_cluster=args.redis_cluster, redis_sentinels=sentinels,
                         redis_master_name=settings.master_name, redis_min_replicas=settings.min_replicas,
                         redis_wait_timeout_ms=settings.wait_timeout_ms,
                         redis_password_file=args.redis_password_file, data_dir=args.data_dir,
                         grace_seconds=args.grace, log_level=args.log_level, worker=args.worker,
                         cors_origins=tuple(args.cors_origin or ()),
                         page_api_origin=args.page_api_origin, public_grpc_address=args.public_grpc_address,
                         ladder=LadderConfig(time_control=control, max_concurrency=args.ladder_max_concurrency,
                                             fair_play=fair_play, address_key=address_key),
                         ladder_address_key_file=args.ladder_address_key_file or "",
                         redis_connections=args.redis_connections, max_watch_streams=args.max_watch_streams,
                         max_watch_streams_per_client=args.max_watch_streams_per_client, fsync=args.fsync,
                         max_seat_watches=args.max_seat_watches,
                         abandon_after_days=args.abandon_after_days, retention_days=args.retention_days,
                         connections=connections, tls=tls, operations=operations, **guard_settings)
    workers = args.workers or default_workers()
    try:
        if workers > 1:
            return serve_workers(config, workers)
        run_event_loop(serve(config, on_ready=lambda server: settle_garbage_collector()))
    except EmbeddedRedisError as error:
        print(f"typhoon serve: {error}")
        return 1
    return 0


def _edge(args: argparse.Namespace):
    """The limits on slow and greedy clients, TLS and the operations endpoints, from the flags (a
    ValueError names a wrong one)."""
    from dataclasses import fields
    from pathlib import Path

    from service.api.connection_limits import ConnectionLimits
    from service.run.operations import Operations
    from service.run.tls import TlsFiles

    values = {each.name: getattr(args, each.name) for each in fields(ConnectionLimits)}
    values["connection_cap_exempt"] = tuple(filter(None, values["connection_cap_exempt"].replace(",", " ").split()))
    connections = ConnectionLimits(**values)
    tls = None
    if args.tls_cert or args.tls_key:
        if not (args.tls_cert and args.tls_key):
            raise ValueError("--tls-cert and --tls-key go together")
        absolute = [str(Path(path).resolve()) if path else None for path in (args.tls_cert, args.tls_key, args.tls_client_ca)]
        tls = TlsFiles(*absolute)
        tls.check()
    elif args.tls_client_ca:
        raise ValueError("--tls-client-ca needs --tls-cert and --tls-key")
    operations = Operations(metrics=args.metrics, docs=args.docs, reflection=args.reflection, admin_host=args.admin_host,
                            admin_port=args.admin_port, admin_grpc_port=args.admin_grpc_port)
    return connections, tls, operations


def _add_edge_arguments(serve: argparse.ArgumentParser) -> None:
    from service.api.connection_limits import ConnectionLimits
    from service.run.operations import PLACES, Operations

    _add_fields(serve.add_argument_group("limits on slow and greedy clients (deploy/README.md)"), ConnectionLimits)
    tls = serve.add_argument_group("TLS on both ports")
    tls.add_argument("--tls-cert", metavar="PEM", help="the server's certificate (chain); with --tls-key, both ports "
                                                       "speak TLS only")
    tls.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")
    tls.add_argument("--tls-client-ca", metavar="PEM", help="mutual TLS: clients must show a certificate signed by "
                                                            "this CA (both ports)")
    ops = serve.add_argument_group("operations endpoints (service/run/operations.py)")
    defaults = Operations()
    for name, what in (("metrics", "GET /metrics"), ("docs", "/docs and /redoc"), ("reflection", "gRPC reflection")):
        ops.add_argument(f"--{name}", choices=PLACES, default=getattr(defaults, name),
                         help=f"where {what} is served: on the public port, on the admin listener only (not at all "
                              f"without one), or nowhere (default {getattr(defaults, name)})")
    ops.add_argument("--admin-host", default=defaults.admin_host,
                     help=f"the admin listeners' address (default {defaults.admin_host}: this machine only)")
    ops.add_argument("--admin-port", type=int, default=None,
                     help="an HTTP admin listener on this port: /metrics, /healthz, /readyz, /openapi.json (and "
                          "/docs if placed there); 0: any free port; default: none")
    ops.add_argument("--admin-grpc-port", type=int, default=None,
                     help="a gRPC admin listener on this port: health (and reflection if placed there); 0: any free "
                          "port; default: none")


def _add_fields(group: argparse._ArgumentGroup, settings: type) -> None:
    """A flag for each field of the dataclass ``settings`` (its name with dashes, its ``help`` metadata)."""
    from dataclasses import fields

    for each in fields(settings):
        default = each.default
        if isinstance(default, tuple):
            group.add_argument("--" + each.name.replace("_", "-"), default=",".join(default), metavar="ADDRESSES",
                               help=f"{each.metadata['help']} (default {','.join(default) or 'none'})")
        else:
            group.add_argument("--" + each.name.replace("_", "-"), type=type(default), default=default,
                               metavar=each.metadata.get("metavar", "SECONDS" if isinstance(default, float) else "N"),
                               help=f"{each.metadata['help']} (default {default:g})")


def fair_play_of(args: argparse.Namespace):
    """The ladder's fair play of ``typhoon serve``'s flags (a FairPlay; check() it)."""
    from service.ladder.fairness import FairPlay

    return FairPlay(same_owner_pairs=args.ladder_same_owner_pairs, pair_rated_max=args.ladder_pair_rated_max,
                    pair_window_ms=round(args.ladder_pair_window_hours * 3_600_000),
                    min_actions=args.ladder_min_actions, players_per_owner=args.ladder_players_per_owner,
                    abandon_cooldown_ms=round(args.ladder_abandon_cooldown * 1000),
                    owner_pair_rated_max=args.ladder_owner_pair_rated_max,
                    related_window_ms=round(args.ladder_related_days * 86_400_000),
                    established_games=args.ladder_established_games,
                    established_owners=args.ladder_established_owners)


def _guard_settings(args: argparse.Namespace) -> dict:
    """The ServeConfig fields of the rate limits, the trusted proxies, the store's capacity and the
    unused-match sweep (ValueError for a wrong value)."""
    from dataclasses import fields

    from service.client_identity import count_by
    from service.guard.addresses import parse_networks
    from service.guard.history_pool import HistorySettings
    from service.guard.limit_settings import LimitSettings
    from service.store.embedded_redis import maxmemory_bytes

    limits = LimitSettings.off() if args.no_rate_limits else LimitSettings.defaults()
    if args.limits:
        limits = limits.with_file(args.limits)
    limits = limits.with_flags(args.limit or [])
    limits = limits.with_store_error(dict(flag.partition("=")[::2] for flag in args.limit_on_store_error or []))
    parse_networks(args.trusted_proxy or [])
    count_by(args.client_ipv4_prefix, args.client_ipv6_prefix)  # a wrong prefix: ValueError
    if not 0 <= args.store_high_water <= 1:
        raise ValueError("--store-high-water: a share of Redis's maxmemory from 0 (never judged full) to 1")
    if args.unused_after_hours < 0:
        raise ValueError("--unused-after-hours: a number of hours, or 0 for never")
    maxmemory_bytes(args.redis_maxmemory)
    history = HistorySettings(**{each.name: getattr(args, each.name) for each in fields(HistorySettings)})
    return {"limits": limits, "trusted_proxies": tuple(args.trusted_proxy or ()),
            "client_ipv4_prefix": args.client_ipv4_prefix, "client_ipv6_prefix": args.client_ipv6_prefix,
            "store_high_water": args.store_high_water, "unused_after_hours": args.unused_after_hours,
            "redis_maxmemory": args.redis_maxmemory, "history": history}


def _add_guard_arguments(serve: argparse.ArgumentParser) -> None:
    """The flags of service.guard and of the unused-match sweep (deploy/README.md, "Rate limits")."""
    from service.guard.history_pool import HistorySettings
    from service.client_identity import IPV4_PREFIX, IPV6_PREFIX
    from service.guard.limit_settings import LIMITS
    from service.guard.store_capacity import HIGH_WATER
    from service.upkeep.unused import DEFAULT_HOURS

    serve.add_argument("--limit", action="append", metavar="NAME=RATES",
                       help="set one rate limit, e.g. create_match=10/minute;100/hour, or watch=off; repeatable. "
                            "Limits and defaults: " + ", ".join(f"{limit.name} {limit.rates}" for limit in LIMITS))
    serve.add_argument("--limits", metavar="FILE", help="rate limits from a TOML or JSON file (a table 'limits' of "
                                                        "NAME = RATES); --limit flags override it")
    serve.add_argument("--limit-on-store-error", action="append", help=argparse.SUPPRESS)  # NAME=open|closed, for workers
    serve.add_argument("--no-rate-limits", action="store_true",
                       help="no rate limit at all (a private service: tests, a local match run)")
    serve.add_argument("--trusted-proxy", action="append", metavar="CIDR",
                       default=os.environ.get("TYPHOON_TRUSTED_PROXIES", "").replace(",", " ").split() or None,
                       help="believe X-Forwarded-For (HTTP header or gRPC metadata) from this proxy network, e.g. "
                            "10.0.0.0/8; repeatable (default: $TYPHOON_TRUSTED_PROXIES, space-separated; else none)")
    serve.add_argument("--client-ipv4-prefix", type=int, default=IPV4_PREFIX, metavar="BITS",
                       help=f"count an IPv4 client by its network of this prefix, for the rate limits and the ladder's "
                            f"related owners (default {IPV4_PREFIX}: a /24; 32: by its address)")
    serve.add_argument("--client-ipv6-prefix", type=int, default=IPV6_PREFIX, metavar="BITS",
                       help=f"count an IPv6 client by its network of this prefix (default {IPV6_PREFIX}: a /64)")
    serve.add_argument("--store-high-water", type=float, default=HIGH_WATER, metavar="SHARE",
                       help=f"refuse new matches and players (STORE_FULL) once Redis uses this share of its "
                            f"maxmemory ({HIGH_WATER:g}; 0: never)")
    serve.add_argument("--unused-after-hours", type=float, default=DEFAULT_HOURS, metavar="HOURS",
                       help=f"delete live matches nobody ever played in, unchanged for this many hours "
                            f"({DEFAULT_HOURS:g}; 0: never)")
    serve.add_argument("--redis-maxmemory", default="auto", metavar="SIZE",
                       help="the embedded Redis's maxmemory, e.g. 2gb (default auto: a quarter of the machine's "
                            "memory; 0: none)")
    _add_fields(serve.add_argument_group("the history pool: VerifyMatch and GetMatch at a version, off the event "
                                         "loop (deploy/README.md)"), HistorySettings)


def register(commands: argparse._SubParsersAction) -> None:
    from service.ladder.fairness import FairPlay
    from service.match.updates import MAX_SEAT_WATCHES
    from service.match.watch_limits import MAX_WATCH_STREAMS, MAX_WATCH_STREAMS_PER_CLIENT
    from service.store.connection import MAX_CONNECTIONS, MAX_WAIT_TIMEOUT_MS, WAIT_TIMEOUT_MS
    from service.upkeep.abandoned import DEFAULT_DAYS as DEFAULT_ABANDON_DAYS

    serve = commands.add_parser("serve")
    serve.add_argument("--grpc-port", type=int, default=os.environ.get("TYPHOON_GRPC_PORT", "50051"),
                       help="gRPC port (default: $TYPHOON_GRPC_PORT, else 50051; 0: any free port)")
    serve.add_argument("--http-port", type=int, default=os.environ.get("TYPHOON_HTTP_PORT", "8080"),
                       help="REST/JSON port (default: $TYPHOON_HTTP_PORT, else 8080; 0: any free port)")
    serve.add_argument("--host", default=os.environ.get("TYPHOON_HOST", "127.0.0.1"),
                       help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    serve.add_argument("--redis-url", default=os.environ.get("REDIS_URL"),
                       help="external Redis (default: $REDIS_URL, else an embedded Redis in --data-dir)")
    serve.add_argument("--redis-cluster", action="store_true", help="the Redis URL is a Redis Cluster node")
    serve.add_argument("--redis-sentinel", default=os.environ.get("REDIS_SENTINEL"), metavar="HOST:PORT,...",
                       help="Redis Sentinel: the sentinels to ask for the primary (default: $REDIS_SENTINEL); the "
                            "service follows a failover to the new primary. Needs --redis-master-name")
    serve.add_argument("--redis-master-name", default=os.environ.get("REDIS_MASTER_NAME"), metavar="NAME",
                       help="the name the sentinels monitor the primary by (default: $REDIS_MASTER_NAME)")
    serve.add_argument("--redis-min-replicas", type=int, default=int(os.environ.get("REDIS_MIN_REPLICAS") or 0),
                       metavar="N", help="acknowledge a write only once N replicas hold it (WAIT), so that a "
                                         "failover loses nothing acknowledged; else UNAVAILABLE NOT_REPLICATED "
                                         "(default: $REDIS_MIN_REPLICAS, else 0: no WAIT)")
    serve.add_argument("--redis-wait-timeout-ms", type=int, default=WAIT_TIMEOUT_MS, metavar="MS",
                       help=f"how long a write waits for its replicas ({WAIT_TIMEOUT_MS}; at most {MAX_WAIT_TIMEOUT_MS})")
    serve.add_argument("--redis-password-file", metavar="PATH", default=os.environ.get("TYPHOON_REDIS_PASSWORD_FILE"),
                       help="a file holding the password of --redis-url, e.g. a mounted secret (default: "
                            "$TYPHOON_REDIS_PASSWORD_FILE); never put the password in the URL or the environment")
    serve.add_argument("--data-dir", default=".typhoon", help="the embedded Redis's data directory")
    serve.add_argument("--grace", type=float, default=10.0, help="seconds in-flight calls get at shutdown")
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.add_argument("--workers", type=int, default=os.environ.get("TYPHOON_WORKERS", "0"),
                       help="service processes sharing the ports and one Redis (default: $TYPHOON_WORKERS, "
                            "else one per core; the image sets 1)")
    serve.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # started by --workers
    serve.add_argument("--cors-origin", action="append", metavar="ORIGIN",
                       default=os.environ.get("TYPHOON_CORS_ORIGINS", "").replace(",", " ").split() or None,
                       help="let pages from this origin (e.g. https://example.org, or *) call the REST API; "
                            "repeatable (default: $TYPHOON_CORS_ORIGINS, space-separated; else none)")
    serve.add_argument("--page-api-origin", default=os.environ.get("TYPHOON_PAGE_API_ORIGIN", ""), metavar="ORIGIN",
                       help="the page calls the API of this origin (e.g. https://api.example.org, which must allow "
                            "the page's origin with --cors-origin) instead of its own (default: "
                            "$TYPHOON_PAGE_API_ORIGIN, else its own)")
    serve.add_argument("--public-grpc-address", default=os.environ.get("TYPHOON_PUBLIC_GRPC_ADDRESS", ""),
                       metavar="HOST:PORT",
                       help="the gRPC address the page tells bots to connect to (default: "
                            "$TYPHOON_PUBLIC_GRPC_ADDRESS, else the page's host and the gRPC port served)")
    serve.add_argument("--ladder-time-control", default="blitz", metavar="PRESET|INITIAL+INCREMENT",
                       help="the clocks of ladder matches: a preset or seconds such as 300+3 (default blitz)")
    serve.add_argument("--ladder-first-action", type=float, default=30.0, metavar="SECONDS",
                       help="ladder matches are aborted when a side makes no first action within this (default 30)")
    serve.add_argument("--ladder-max-concurrency", type=int, default=8,
                       help="the most ladder matches a player may play at once (default 8)")
    fair = FairPlay()
    serve.add_argument("--ladder-same-owner-pairs", action="store_true",
                       help="pair players of one owner with each other (a private ladder; default: never)")
    serve.add_argument("--ladder-pair-rated-max", type=int, default=fair.pair_rated_max, metavar="N",
                       help=f"rate two players at most N times per pair window; their further matches are played "
                            f"but not rated (default {fair.pair_rated_max})")
    serve.add_argument("--ladder-pair-window-hours", type=float, default=fair.pair_window_ms / 3_600_000,
                       metavar="HOURS", help=f"the pair window (default {fair.pair_window_ms / 3_600_000:g})")
    serve.add_argument("--ladder-min-actions", type=int, default=fair.min_actions, metavar="N",
                       help=f"a match that ends by resignation or time before each side made N actions of its own "
                            f"is not rated (default {fair.min_actions})")
    serve.add_argument("--ladder-players-per-owner", type=int, default=fair.players_per_owner, metavar="N",
                       help=f"the most players one owner may register (default {fair.players_per_owner})")
    serve.add_argument("--ladder-abandon-cooldown", type=float, default=fair.abandon_cooldown_ms / 1000,
                       metavar="SECONDS", help=f"a player that abandoned a match (no first action in time, or gave up "
                                               f"before N actions of its own) is not paired for this long, doubled "
                                               f"for each such match in a row, at most an hour "
                                               f"(default {fair.abandon_cooldown_ms / 1000:g})")
    serve.add_argument("--ladder-owner-pair-rated-max", type=int, default=fair.owner_pair_rated_max, metavar="N",
                       help=f"rate the players of two owners (related owners count as one) at most N times between "
                            f"them all per pair window (default {fair.owner_pair_rated_max})")
    serve.add_argument("--ladder-related-days", type=float, default=fair.related_window_ms / 86_400_000,
                       metavar="DAYS", help=f"owners registered from one client network (--client-ipv4-prefix) within this "
                                            f"are related: one owner to the ladder; a keyed hash of the address is "
                                            f"kept this long after its last owner registered (default "
                                            f"{fair.related_window_ms / 86_400_000:g}; 0: never related, nothing kept)")
    serve.add_argument("--ladder-established-games", type=int, default=fair.established_games, metavar="N",
                       help=f"a player is established once it has N rated matches against --ladder-established-owners "
                            f"owners (related owners count as one) other than its own; until then it is provisional: "
                            f"shown apart on the leaderboard, and beating it raises nobody's rating "
                            f"(default {fair.established_games}; 0 and 0: every player is established)")
    serve.add_argument("--ladder-established-owners", type=int, default=fair.established_owners, metavar="K",
                       help=f"see --ladder-established-games (default {fair.established_owners})")
    serve.add_argument("--ladder-address-key-file", metavar="FILE",
                       default=os.environ.get("TYPHOON_LADDER_ADDRESS_KEY_FILE") or None,
                       help="the key of those hashes, at least 16 random bytes (default: "
                            "$TYPHOON_LADDER_ADDRESS_KEY_FILE, else drawn by the service and kept in Redis)")
    serve.add_argument("--redis-connections", type=int, default=MAX_CONNECTIONS,
                       help=f"the most Redis connections of this process's pool ({MAX_CONNECTIONS}); watching "
                            "holds none (one more connection carries every watched match's notices)")
    serve.add_argument("--max-watch-streams", type=int, default=MAX_WATCH_STREAMS,
                       help=f"watch streams this process serves at once ({MAX_WATCH_STREAMS}); more are "
                            "refused with RESOURCE_EXHAUSTED / 429")
    serve.add_argument("--max-watch-streams-per-client", type=int, default=MAX_WATCH_STREAMS_PER_CLIENT,
                       help=f"watch streams one client address may hold here ({MAX_WATCH_STREAMS_PER_CLIENT})")
    serve.add_argument("--max-seat-watches", type=int, default=MAX_SEAT_WATCHES,
                       help=f"watches of one seat with its legal actions (include_legal_actions) this process "
                            f"serves at once ({MAX_SEAT_WATCHES}); more are refused with RESOURCE_EXHAUSTED / 429")
    serve.add_argument("--fsync", choices=["everysec", "always"], default="everysec",
                       help="the embedded Redis's append-only fsync: every second (a machine crash may lose "
                            "the last second), or at every write (slower; see deploy/README.md)")
    serve.add_argument("--abandon-after-days", type=float, default=DEFAULT_ABANDON_DAYS, metavar="DAYS",
                       help=f"end live matches in which nothing happened for this many days, as an operator's "
                            f"abort does ({DEFAULT_ABANDON_DAYS:g}; 0: never)")
    serve.add_argument("--retention-days", type=float, default=0.0, metavar="DAYS",
                       help="delete matches over (finished or aborted) for more than this many days, their logs "
                            "included (default 0: keep them for good)")
    _add_edge_arguments(serve)
    _add_guard_arguments(serve)
    serve.set_defaults(run=_serve)

