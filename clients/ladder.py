"""The ladder from the client side: a bot that plays ladder matches until stopped, the operator's
commands, and a thin client of ``typhoon.v1.LadderService``.

A bot joins the ladder with a registered player's API key; a player belongs to an owner (you)::

    typhoon ladder owner register --server ADDR --name me              # prints the owner id and key, once
    typhoon ladder register --server ADDR --name my-bot --owner-key OWNER_KEY   # the player's id and API key, once
    typhoon bot --ladder ADDR --key KEY --strategy heuristic --concurrency 2
    typhoon ladder rotate-key PLAYER_ID --server ADDR --key KEY        # a new API key (or --key OWNER_KEY)

or from Python, with any strategy (a name, an object with ``choose``, or a function)::

    from clients.ladder import LadderBot
    LadderBot("heuristic", "127.0.0.1:50051", key="tpk_...", concurrency=2).run()   # until stop()

:class:`LadderBot` keeps a Seek stream open (reconnecting after a cut or a service restart) and plays
every match it is handed, each with its own :class:`clients.sdk.Bot` in a thread, so a slow match does
not hold up the others. The Seek stream also brings, for each match, its updates with the legal
actions and the position whenever the bot is to act: the bots play from that one stream and
SubmitAction. Stopping seeking (:meth:`LadderBot.stop_seeking`, the first SIGTERM or Ctrl-C of
``typhoon bot --ladder``) closes it; each match in progress is then followed with a WatchMatch of its own
until it ends. ``typhoon ladder leaderboard`` and ``typhoon ladder player NAME`` show the
standings and a player's matches.
"""

from __future__ import annotations

import os
import queue
import secrets
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import grpc
from tabulate import tabulate

from clients.client import (RATE_LIMIT_PATIENCE, TRANSIENT_CODES, ReconnectingStream, TyphoonError, patiently,
                            retry_after)
from clients.connect import add_server_argument, service_answers, unreachable_sentence
from clients.ladder_audit import cli_audit
from clients.sdk import OWN_WATCH, Bot, BotResult, as_strategy, checked_strategy, parse_params
from clients.tls import ClientTls, open_channel
from clients.tls import add_arguments as add_tls_arguments
from clients.tls import from_args as tls_from_args
from clients.wording import counted
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.gen.typhoon.v1 import ladder_service_pb2_grpc
from service.gen.typhoon.v1 import match_service_pb2 as api

LadderMatch = lapi.LadderMatch
MatchUpdate = api.MatchUpdate
LadderPlayer = lapi.LadderPlayer
LadderOwner = lapi.LadderOwner


class Registration(NamedTuple):
    """A player registered with an owner of its own: both, and both keys (shown only once: keep them)."""

    player: LadderPlayer
    api_key: str
    owner: LadderOwner
    owner_key: str


def _shown(key: str, withheld: bool, lost: str) -> str:
    """The key an answer shows, or ``KEY_WITHHELD`` for a retry's answer (the key went to the first call only)."""
    if withheld or not key:
        raise TyphoonError(grpc.StatusCode.FAILED_PRECONDITION, "KEY_WITHHELD", lost)
    return key


class LadderClient:
    """Synchronous client of ``typhoon.v1.LadderService``; unary calls are retried while the service is
    unreachable (``retries`` times, backing off up to 2 s), and after the time a rate limit says (up to
    ``rate_limit_patience`` seconds of waiting per call)."""

    def __init__(self, target: str, *, timeout: float = 30.0, retries: int = 8,
                 rate_limit_patience: float = RATE_LIMIT_PATIENCE, metadata: Iterable[tuple[str, str]] = (),
                 tls: ClientTls | None = None) -> None:
        self.target = target
        self.timeout = timeout
        self.retries = retries
        self.rate_limit_patience = rate_limit_patience
        self.metadata = list(metadata)  # sent with every call (see TyphoonClient)
        self.channel = open_channel(target, tls, options=[
            ("grpc.initial_reconnect_backoff_ms", 100), ("grpc.min_reconnect_backoff_ms", 100),
            ("grpc.max_reconnect_backoff_ms", 1000)])
        self.stub = ladder_service_pb2_grpc.LadderServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> LadderClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, request: Any, key: str | None = None) -> Any:
        return patiently(lambda: self._send(method, request, key), self.rate_limit_patience)

    def _send(self, method: str, request: Any, key: str | None = None) -> Any:
        delay = 0.1
        for attempt in range(self.retries + 1):
            try:
                return getattr(self.stub, method)(request, timeout=self.timeout, metadata=self._metadata(key))
            except grpc.RpcError as error:
                if error.code() not in TRANSIENT_CODES or attempt == self.retries:
                    raise TyphoonError.from_rpc_error(error) from None
                time.sleep(delay)
                delay = min(2 * delay, 2.0)
        raise AssertionError("unreachable")

    def _metadata(self, key: str | None = None) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {key}"), *self.metadata] if key else self.metadata

    def register_owner(self, name: str) -> tuple[LadderOwner, str]:
        """Register an owner; returns it and its owner key (keep it: the service keeps only its hash). A
        retry after a lost answer carries the same request id, so it registers nothing twice; but the key
        is shown to the first call only: if its answer was lost, this raises ``KEY_WITHHELD``."""
        response = self._call("RegisterOwner", lapi.RegisterOwnerRequest(name=name, request_id=uuid.uuid4().hex))
        return response.owner, _shown(response.owner_key, response.key_withheld,
                                      f"owner {name!r} was registered, but the answer holding its key was lost; "
                                      f"register another name")

    def register(self, name: str, description: str = "", *, owner_key: str) -> tuple[LadderPlayer, str]:
        """Register a player under the owner of ``owner_key``; returns it and its API key (keep it: the
        service keeps only its hash). Retried with the same request id: the same player (with a new key)."""
        response = self._call("RegisterPlayer", lapi.RegisterPlayerRequest(
            name=name, description=description, request_id=uuid.uuid4().hex), key=owner_key)
        return response.player, response.api_key

    def register_with_owner(self, name: str, description: str = "") -> Registration:
        """Register an owner named ``name`` and a player of the same name under it: a player that is its own
        owner (paired with anyone else's)."""
        owner, owner_key = self.register_owner(name)
        player, api_key = self.register(name, description, owner_key=owner_key)
        return Registration(player, api_key, owner, owner_key)

    def owner(self, owner_id: str) -> LadderOwner:
        return self._call("GetOwner", lapi.GetOwnerRequest(owner_id=owner_id)).owner

    def rotate_player_key(self, player_id: str, key: str) -> str:
        """A new API key for the player (``key``: its API key or its owner's); the old one stops working."""
        response = self._call("RotatePlayerKey", lapi.RotatePlayerKeyRequest(player_id=player_id,
                                                                              request_id=uuid.uuid4().hex), key=key)
        return _shown(response.api_key, response.key_withheld, "the player's key was rotated, but the answer "
                      "holding the new one was lost; rotate it again with its owner's key")

    def revoke_player_key(self, player_id: str, key: str) -> None:
        """Revoke the player's API key (``key``: its API key or its owner's): it has none until its owner rotates one."""
        self._call("RevokePlayerKey", lapi.RevokePlayerKeyRequest(player_id=player_id), key=key)

    def rotate_owner_key(self, owner_id: str, owner_key: str) -> str:
        """A new owner key; the old one stops working."""
        response = self._call("RotateOwnerKey", lapi.RotateOwnerKeyRequest(owner_id=owner_id,
                                                                            request_id=uuid.uuid4().hex), key=owner_key)
        return _shown(response.owner_key, response.key_withheld, "the owner key was rotated, but the answer holding "
                      "the new one was lost")

    def revoke_owner_key(self, owner_id: str, owner_key: str) -> int:
        """Close the owner: its key and its players' keys stop working for good; returns the player keys revoked."""
        return self._call("RevokeOwnerKey", lapi.RevokeOwnerKeyRequest(owner_id=owner_id),
                          key=owner_key).player_keys_revoked

    def ladder(self) -> lapi.GetLadderResponse:
        return self._call("GetLadder", lapi.GetLadderRequest())

    def leaderboard(self, page_size: int = 50, page_token: str = "") -> lapi.GetLeaderboardResponse:
        return self._call("GetLeaderboard", lapi.GetLeaderboardRequest(page_size=page_size, page_token=page_token))

    def standings(self) -> list[LadderPlayer]:
        """Every player, best first."""
        players, token = [], ""
        while True:
            page = self.leaderboard(200, token)
            players.extend(page.players)
            token = page.next_page_token
            if not token:
                return players

    def player(self, player_id: str = "", name: str = "") -> LadderPlayer:
        return self._call("GetPlayer", lapi.GetPlayerRequest(player_id=player_id, name=name)).player

    def matches(self, player_id: str, limit: int | None = None) -> list[lapi.LadderGame]:
        """A player's ladder matches, newest first (``limit``: at most that many)."""
        games: list[lapi.LadderGame] = []
        token = ""
        while limit is None or len(games) < limit:
            page = self._call("ListPlayerMatches", lapi.ListPlayerMatchesRequest(
                player_id=player_id, page_size=200 if limit is None else min(200, limit - len(games)),
                page_token=token))
            games.extend(page.matches)
            token = page.next_page_token
            if not token:
                break
        return games

    def seek(self, key: str, concurrency: int = 1, heartbeat_seconds: int = 15,
             include_legal_actions: bool = False, commit_entropy: bool = False) -> Seek:
        """The Seek stream of the player of ``key``; see :class:`Seek`. ``commit_entropy``: each match
        handed out waits for the seat's entropy commitment, then its reveal (a :class:`clients.sdk.Bot`
        gives both)."""
        return Seek(self, key, concurrency, heartbeat_seconds, include_legal_actions, commit_entropy)


class Seek(ReconnectingStream):
    """An iterator over a player's Seek stream (LadderMatch, MatchUpdate and SeekHeartbeat messages) that
    reconnects by itself (backing off up to 2 s) while the service is unreachable or restarting;
    ``close()`` stops it from another thread. A match may come again after a reconnection (skip those
    you play), and so may the update of a version already sent."""

    def __init__(self, client: LadderClient, key: str, concurrency: int, heartbeat_seconds: int,
                 include_legal_actions: bool = False, commit_entropy: bool = False) -> None:
        super().__init__(client.rate_limit_patience)
        self.client = client
        self.request = lapi.SeekRequest(concurrency=concurrency, heartbeat_seconds=heartbeat_seconds,
                                        include_legal_actions=include_legal_actions, commit_entropy=commit_entropy)
        self.key = key
        self.reconnections = 0

    def __iter__(self) -> Iterator[LadderMatch | MatchUpdate | lapi.SeekHeartbeat]:
        while not self._closed:
            self._call = self.client.stub.Seek(self.request, metadata=self.client._metadata(self.key))
            try:
                for response in self._call:
                    self._received()
                    yield getattr(response, response.WhichOneof("kind"))
            except grpc.RpcError as error:
                if self._closed:
                    return
                if self._waited_for_rate_limit(error):
                    continue
                if error.code() not in TRANSIENT_CODES:
                    raise TyphoonError.from_rpc_error(error) from None
            finally:
                self._call = None
            if self._closed:
                return
            self.reconnections += 1  # the stream ended (the service stopping) or was cut: again
            self._back_off()


#: Seconds a LadderBot waits before seeking again after a STORE_FULL that names no wait.
STORE_FULL_WAIT = 60.0


@dataclass
class LadderRecord:
    """What a LadderBot did."""

    started: list[LadderMatch] = field(default_factory=list)
    results: list[BotResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: Seeks the service refused for want of room (STORE_FULL), each waited out before seeking again.
    store_full_waits: int = 0
    #: The last heartbeat's reason for not being paired (more): a SeekWaitReason; 0 before any.
    waiting: int = 0

    def summary(self) -> str:
        finished = [r for r in self.results if r.finished]
        won = sum(r.won for r in finished)
        aborted = sum(r.aborted for r in self.results)
        return (f"{counted(len(self.started), 'ladder match')} started, {len(finished)} finished ({won} won), "
                f"{aborted} aborted, {len(self.errors)} failed")


class LadderBot:
    """Plays ladder matches with a strategy until :meth:`stop` (or Ctrl-C for the command line).

    ``strategy`` is a registered name (a fresh strategy per match, seeded from ``seed`` and the match
    id), or a strategy object or function shared by every match; or give ``factory(match)``, which
    makes the strategy of each match. ``concurrency`` is how many matches at once (the service pairs
    the player into no more). ``on_start(match)`` and ``on_end(match, result, error)`` are optional
    hooks, and so is ``on_waiting(heartbeat)``: called when the heartbeats' reason for not pairing the
    player changes (``heartbeat.waiting``, ``heartbeat.waiting_message``)."""

    def __init__(self, strategy: Any, target: str, key: str, *, concurrency: int = 1, seed: Any = None,
                 params: dict[str, Any] | None = None, retry_seconds: float = 300.0, heartbeat_seconds: int = 5,
                 factory: Callable[[LadderMatch], Any] | None = None,
                 on_start: Callable[[LadderMatch], None] | None = None,
                 on_end: Callable[[LadderMatch, BotResult | None, BaseException | None], None] | None = None,
                 on_waiting: Callable[[lapi.SeekHeartbeat], None] | None = None,
                 tls: ClientTls | None = None) -> None:
        self.strategy = strategy
        self.tls = tls
        self.factory = factory
        self.target = target
        self.key = key
        self.concurrency = concurrency
        self.seed = seed if seed is not None else secrets.token_hex(4)
        self.params = params or {}
        self.retry_seconds = retry_seconds
        self.heartbeat_seconds = heartbeat_seconds
        self.on_start = on_start
        self.on_end = on_end
        self.on_waiting = on_waiting
        self.record = LadderRecord()
        self.client = LadderClient(target, tls=tls)
        self._stopped = threading.Event()
        self._seek: Seek | None = None
        self._bots: dict[str, tuple[Bot, threading.Thread]] = {}
        self._lock = threading.Lock()

    def _strategy_for(self, match: LadderMatch) -> Any:
        if self.factory is not None:
            return self.factory(match)
        if isinstance(self.strategy, str):
            return as_strategy(self.strategy, f"{self.seed}-{match.match_id}", **self.params)
        return self.strategy

    def stop_seeking(self) -> None:
        """Ask for no more matches; those in progress are played to their end (see :meth:`wait`), each
        bot following its match with a stream of its own once the Seek stream is closed."""
        self._stopped.set()
        if self._seek is not None:
            self._seek.close()
        with self._lock:
            for bot, _ in self._bots.values():
                bot.updates.put(OWN_WATCH)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the matches in progress to end; False if some still run after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            threads = [thread for _, thread in self._bots.values()]
        for thread in threads:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in threads)

    def stop(self) -> None:
        """Stop seeking and stop every match's bot (their matches go on without it: clocks run)."""
        self.stop_seeking()
        with self._lock:
            bots = list(self._bots.values())
        for bot, _ in bots:
            bot.stop()

    @property
    def playing(self) -> list[str]:
        with self._lock:
            return [match_id for match_id, (_, thread) in self._bots.items() if thread.is_alive()]

    def run(self) -> LadderRecord:
        """Seek and play until stopped; returns what was played."""
        try:
            while not self._stopped.is_set():
                self._seek = self.client.seek(self.key, self.concurrency, self.heartbeat_seconds,
                                              include_legal_actions=True, commit_entropy=True)
                try:
                    for item in self._seek:
                        if self._stopped.is_set():
                            break
                        if isinstance(item, LadderMatch):
                            self._play(item)
                        elif isinstance(item, MatchUpdate):
                            self._deliver(item)
                        elif item.waiting != self.record.waiting:
                            self.record.waiting = item.waiting
                            if self.on_waiting:
                                self.on_waiting(item)
                except TyphoonError as error:
                    if error.code in TRANSIENT_CODES:
                        continue
                    if error.reason == "STORE_FULL":  # no room for new matches until the operator makes some
                        self.record.store_full_waits += 1
                        self._stopped.wait(retry_after(error, STORE_FULL_WAIT))
                        continue
                    raise
        finally:
            self.stop_seeking()
            self.client.close()
        return self.record

    def _play(self, match: LadderMatch) -> None:
        with self._lock:
            if match.match_id in self._bots:
                return  # sent again after a reconnection: already playing it
            bot = Bot(self._strategy_for(match), self.target, match_id=match.match_id, side=match.side,
                      token=match.seat_token, retry_seconds=self.retry_seconds, tls=self.tls,
                      updates=queue.Queue())
            if self._stopped.is_set():  # stop_seeking() came meanwhile
                bot.updates.put(OWN_WATCH)
            thread = threading.Thread(target=self._run_bot, args=(match, bot), daemon=True,
                                      name=f"ladder-{match.match_id}")
            self._bots[match.match_id] = (bot, thread)
            self.record.started.append(match)
        if self.on_start:
            self.on_start(match)
        thread.start()

    def _deliver(self, update: MatchUpdate) -> None:
        """Hand a match's update to the bot that plays it."""
        with self._lock:
            playing = self._bots.get(update.match_id)
        if playing is not None:
            playing[0].updates.put(update)

    def _run_bot(self, match: LadderMatch, bot: Bot) -> None:
        result, failure = None, None
        try:
            result = bot.run()
            self.record.results.append(result)
        except Exception as error:  # noqa: BLE001 - one match failing does not stop the others
            failure = error
            self.record.errors.append(f"{match.match_id}: {type(error).__name__}: {error}")
        if self.on_end:
            self.on_end(match, result, failure)


# --- the command line ------------------------------------------------------------------------------

def _rating_rows(players: list[LadderPlayer]) -> str:
    head = ["rank", "player", "rating", "mu", "sigma", "games", "won G", "won S", "lost", "drawn", "on time",
            "aborted", "player id"]
    rows = [[str(p.rank) if not p.provisional else "new", p.name, f"{p.rating:.2f}", f"{p.mu:.2f}", f"{p.sigma:.2f}", str(p.games),
             f"{p.wins_as_german}/{p.games_as_german}", f"{p.wins_as_soviet}/{p.games_as_soviet}", str(p.losses),
             str(p.draws), str(p.time_losses), str(p.aborted), p.player_id] for p in players]
    return tabulate(rows, headers=head, colalign=["right", "left", *["right"] * 10, "left"], disable_numparse=True)


def leaderboard_table(players: list[LadderPlayer]) -> str:
    """The standings as text: ``won G`` is wins as German / games as German (``won S`` the same for the
    Soviet side), ``on time`` the losses on time; ``rating`` is mu - 3 sigma; a provisional player (not
    established yet: no rank, after the established ones) is ranked ``new``."""
    return _rating_rows(players)


class _Usage(Exception):
    """A command line missing something: said, exit status 2."""


def _key_of(args, option: str, variable: str) -> str:
    """A key from its option, else from its environment variable (a command line is seen by every user of
    the machine; the environment is not)."""
    key = getattr(args, option.lstrip("-").replace("-", "_")) or os.environ.get(variable, "")
    if not key:
        raise _Usage(f"give {option} KEY (or set ${variable})")
    return key


def cli_register_owner(args) -> int:
    with LadderClient(args.server, tls=tls_from_args(args)) as client:
        owner, key = client.register_owner(args.name)
    print(f"registered owner {owner.name} as {owner.owner_id}")
    print(f"owner key (shown only now; keep it): {key}")
    print(f"add a player: typhoon ladder register --server {args.server} --name NAME --owner-key {key}")
    return 0


def cli_owner(args) -> int:
    with LadderClient(args.server, tls=tls_from_args(args)) as client:
        owner = client.owner(args.owner_id)
        players = [client.player(player_id) for player_id in owner.player_ids]
    print(f"{owner.name} ({owner.owner_id}), registered {owner.registered_at.ToJsonString()[:19].replace('T', ' ')} UTC"
          + (", closed" if owner.closed else ""))
    if players:
        print(_rating_rows(players))
    return 0


def cli_register(args) -> int:
    with LadderClient(args.server, tls=tls_from_args(args)) as client:
        player, key = client.register(args.name, args.description,
                                      owner_key=_key_of(args, "--owner-key", "TYPHOON_OWNER_KEY"))
    print(f"registered {player.name} as {player.player_id} (owner {player.owner})")
    print(f"API key (shown only now; keep it): {key}")
    print(f"play: typhoon bot --ladder {args.server} --key {key} --strategy heuristic")
    return 0


def _rotated(client: LadderClient, args, key: str) -> str:
    if args.owner:
        return f"new owner key (shown only now; the old one no longer works): {client.rotate_owner_key(args.id, key)}"
    return f"new API key (shown only now; the old one no longer works): {client.rotate_player_key(args.id, key)}"


def _revoked(client: LadderClient, args, key: str) -> str:
    if args.owner:
        return f"owner {args.id} closed: its key and {client.revoke_owner_key(args.id, key)} player keys no longer work"
    client.revoke_player_key(args.id, key)
    return f"the API key of {args.id} no longer works; its owner can rotate a new one"


def _key_command(change):
    """``typhoon ladder rotate-key|revoke-key ID [--owner] --key KEY``: ``change(client, args, key)`` says what it did."""
    def run(args) -> int:
        key = _key_of(args, "--key", "TYPHOON_LADDER_KEY")
        with LadderClient(args.server, tls=tls_from_args(args)) as client:
            print(change(client, args, key))
        return 0
    return run


def cli_leaderboard(args) -> int:
    with LadderClient(args.server, tls=tls_from_args(args)) as client:
        players = client.standings() if args.all else list(client.leaderboard(args.size).players)
        ladder = client.ladder()
    if not players:
        print("no player is registered yet")
        return 0
    print(leaderboard_table(players))
    control = ladder.time_control
    print(f"(time control {control.initial.ToMilliseconds() / 1000:g}+{control.increment.ToMilliseconds() / 1000:g}, "
          f"scenario {ladder.scenario}; rating = mu - 3 sigma)")
    return 0


def cli_player(args) -> int:
    with LadderClient(args.server, tls=tls_from_args(args)) as client:
        try:
            player = client.player(player_id=args.player)
        except TyphoonError as error:
            if error.reason != "PLAYER_NOT_FOUND":
                raise
            player = client.player(name=args.player)
        games = client.matches(player.player_id, args.matches)
    print(f"{player.name} ({player.player_id}), owner {player.owner or '-'}"
          f"{f' ({player.owner_id})' if player.owner_id else ''}: {player.description}")
    print(_rating_rows([player]))
    if games:
        print()
        rows = [[g.finished_at.ToJsonString()[:19].replace("T", " "), g.match_id, g.side, g.opponent_name,
                 g.outcome, g.reason, f"{g.rating:.2f}" if g.rated else f"not rated: {g.unrated_reason}"]
                for g in games]
        print(tabulate(rows, headers=["finished (UTC)", "match", "side", "opponent", "outcome", "reason",
                                      "rating after"], disable_numparse=True))
    return 0


def cli_ladder_audit(args) -> int:
    with LadderClient(args.server) as client:
        return cli_audit(client)


def cli_ladder_bot(args) -> int:
    """``typhoon bot --ladder ADDR --key KEY ...``: play ladder matches until Ctrl-C."""
    try:
        params = parse_params(args.param)
        checked_strategy(args.strategy, params)
    except ValueError as error:
        print(f"typhoon bot: {error}", file=sys.stderr)
        return 2
    if not args.key:
        print("typhoon bot: --ladder needs --key (from typhoon ladder register)", file=sys.stderr)
        return 2
    if not service_answers(args.ladder, tls_from_args(args)):
        print(f"typhoon bot: {unreachable_sentence(args.ladder, flag='--ladder')}", file=sys.stderr)
        return 1

    def started(match: LadderMatch) -> None:
        print(f"match {match.match_id}: {match.side} against {match.opponent_name}", flush=True)

    def ended(match: LadderMatch, result: BotResult | None, error: BaseException | None) -> None:
        print(f"match {match.match_id}: " + (result.summary() if result else f"failed: {error}"), flush=True)

    def waiting(beat: lapi.SeekHeartbeat) -> None:
        if beat.waiting not in (lapi.SEEK_WAIT_REASON_UNSPECIFIED, lapi.SEEK_WAIT_REASON_PLAYING_ENOUGH):
            print(f"not paired: {beat.waiting_message}", flush=True)

    bot = LadderBot(args.strategy, args.ladder, args.key, concurrency=args.concurrency, seed=args.seed,
                    params=params, retry_seconds=args.retry_seconds, on_start=None if args.quiet else started,
                    on_end=ended, on_waiting=None if args.quiet else waiting, tls=tls_from_args(args))
    print(f"{args.strategy} seeks ladder matches on {args.ladder}, {args.concurrency} at a time (SIGTERM or "
          f"Ctrl-C: stop seeking and finish the matches in progress; again: quit at once)", flush=True)
    return run_until_stopped(bot)


def run_until_stopped(bot: LadderBot) -> int:
    """Run a LadderBot until a signal: the first SIGTERM or SIGINT stops seeking and lets the matches in
    progress end (then 0), a second quits at once (130; those matches go on without the bot, its clocks
    running). 1 if the service refused the bot."""
    stopping, quitting = threading.Event(), threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        if not stopping.is_set():
            stopping.set()
            playing = len(bot.playing)
            print(f"stopping: no more matches; finishing the {playing} in progress (again to quit at once)",
                  file=sys.stderr, flush=True)
            bot.stop_seeking()
        else:
            left.append(len(bot.playing))
            quitting.set()
            bot.stop()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    failure: list[TyphoonError] = []
    left: list[int] = []  # the matches in progress when it quit

    def seek() -> None:
        try:
            bot.run()
        except TyphoonError as error:
            failure.append(error)
            stopping.set()

    seeker = threading.Thread(target=seek, name="ladder-seek", daemon=True)
    seeker.start()
    try:
        while seeker.is_alive() and not quitting.is_set():  # the main thread stays free for the signals
            seeker.join(0.2)
        while not quitting.is_set() and not bot.wait(0.2):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if failure:
        print(f"typhoon bot: {failure[0]}", file=sys.stderr)
        return 1
    print(bot.record.summary() + (f"; quit with {left[0]} in progress" if left else ""), flush=True)
    return 130 if quitting.is_set() else 0


def _quiet_errors(run):
    def wrapped(args) -> int:
        try:
            if not service_answers(args.server, tls_from_args(args)):  # said at once, not after the retries
                print(f"typhoon ladder: {unreachable_sentence(args.server)}", file=sys.stderr)
                return 1
            return run(args)
        except TyphoonError as error:
            print(f"typhoon ladder: {error}", file=sys.stderr)
            return 1
        except _Usage as error:
            print(f"typhoon ladder: {error}", file=sys.stderr)
            return 2
    return wrapped


def register(commands) -> None:
    """Add ``ladder owner|register|rotate-key|revoke-key|leaderboard|player`` to the ``typhoon`` command line."""
    ladder = commands.add_parser("ladder")
    sub = ladder.add_subparsers(dest="ladder_command", required=True)

    def server(parser) -> None:
        add_server_argument(parser)
        add_tls_arguments(parser)

    owner = sub.add_parser("owner", help="owners: the people or teams that run players")
    owner_sub = owner.add_subparsers(dest="owner_command", required=True)
    owner_register = owner_sub.add_parser("register", help="register an owner; prints its owner key, once")
    server(owner_register)
    owner_register.add_argument("--name", required=True, help="the owner's name (unique among owners)")
    owner_register.set_defaults(run=_quiet_errors(cli_register_owner))
    owner_show = owner_sub.add_parser("show", help="an owner and its players")
    server(owner_show)
    owner_show.add_argument("owner_id")
    owner_show.set_defaults(run=_quiet_errors(cli_owner))

    register_ = sub.add_parser("register", help="register a player (a bot) under your owner; prints its API key, once")
    server(register_)
    register_.add_argument("--name", required=True, help="the player's name (unique)")
    register_.add_argument("--description", default="", help="what the bot is")
    register_.add_argument("--owner-key", default="", help="the owner key (default: $TYPHOON_OWNER_KEY)")
    register_.set_defaults(run=_quiet_errors(cli_register))

    for command, run, says in (("rotate-key", _key_command(_rotated), "a new key for a player (or --owner: an owner); the old "
                                                          "one stops working; prints the new one, once"),
                               ("revoke-key", _key_command(_revoked), "revoke a player's key (or --owner: close an owner, "
                                                          "its players' keys with it)")):
        parser = sub.add_parser(command, help=says)
        server(parser)
        parser.add_argument("id", help="the player's id (or with --owner, the owner's)")
        parser.add_argument("--owner", action="store_true", help="the id is an owner's")
        parser.add_argument("--key", default="", help="the player's API key or its owner's key (with --owner: the "
                                                      "owner key); default: $TYPHOON_LADDER_KEY")
        parser.set_defaults(run=_quiet_errors(run))

    board = sub.add_parser("leaderboard", help="the players by rating")
    server(board)
    board.add_argument("--size", type=int, default=50, help="players to show (default 50)")
    board.add_argument("--all", action="store_true", help="every player")
    board.set_defaults(run=_quiet_errors(cli_leaderboard))

    player = sub.add_parser("player", help="a player's record and its ladder matches")
    server(player)
    player.add_argument("player", help="the player's id or name")
    player.add_argument("--matches", type=int, default=20, help="matches to list (default 20)")
    player.set_defaults(run=_quiet_errors(cli_player))

    audit = sub.add_parser("audit", help="recompute every rating from the public API and say whether they match")
    server(audit)
    audit.set_defaults(run=_quiet_errors(cli_ladder_audit))


__all__ = ["LadderBot", "LadderClient", "LadderRecord", "Registration", "Seek", "leaderboard_table", "register"]
