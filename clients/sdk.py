"""The bot SDK: play one seat of a Typhoon match over gRPC with any strategy.

A strategy is anything with ``choose(state, legal_actions) -> action`` — an object (see
:mod:`clients.strategies`) or a plain function. ``state`` is an :class:`engine.Game` rebuilt from the
match's current position (read it, clone it, simulate on the clones; the match seed is secret while the
match runs, so its dice are not in it), ``legal_actions`` the engine actions the service offers the
bot's side; return one of them. A complete bot::

    import engine
    from clients.sdk import run_bot

    def greedy(state, legal_actions):
        attacks = [a for a in legal_actions if isinstance(a, engine.DeclareAttack)]
        return attacks[0] if attacks else legal_actions[-1]

    result = run_bot(greedy, "127.0.0.1:50051", match_id="rxirx72ff22bir4b", side="soviet")
    print(result.winner, result.points)

or with a ready strategy: ``run_bot("heuristic", target, match_id=..., side="german")``, and on the
command line ``typhoon bot --match ID --side german --strategy heuristic [--server ADDR]``.

What :class:`Bot` does for you:

- claims the seat (``JoinMatch``), or acts with the seat token you already hold (``token=...``);
- follows the match with ``WatchMatch`` and wakes up whenever its side may have to act or decide
  (pending battle decisions included: the strategy gets those like any other choice);
- reads the position (``GetMatch``) and the legal actions (``ListLegalActions``) at the same version, asks
  the strategy, and submits with ``expected_version`` and a request id; if someone else moved first
  (``ABORTED``) it reads again and chooses anew; a choice that is not legal is replaced by the
  strategy's fallback (or the first legal action) and counted in ``BotResult.illegal``;
- survives dropped connections and service restarts: every call is retried with exponential backoff
  (tenacity) for up to ``retry_seconds``, a submit is retried with the same request id (so it is
  applied once), and the watch resumes from its cursor;
- stops cleanly when the match ends (or when :meth:`Bot.stop` is called from another thread) and
  returns a :class:`BotResult`.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential

import engine
from clients.client import TRANSIENT_CODES, Seat, TyphoonClient, TyphoonError
from clients.tls import ClientTls, open_channel
from service.gen.typhoon.v1 import match_pb2
from service.match import convert

ChooseFunction = Callable[[engine.Game, list[engine.Action]], engine.Action]

# refusals that mean "the match moved on while we were choosing": read again and choose anew
_MOVED_ON = {(grpc.StatusCode.ABORTED, None), (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
             (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER"), (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_ABORTED")}


# game events after which the side to act may have changed
_WAKE_EVENTS = {"phase_started", "turn_started", "game_ended"}


class BotError(RuntimeError):
    """The bot cannot go on (a refusal it cannot recover from, the service gone for too long...)."""


@dataclass
class BotResult:
    """How a bot's match went, from its seat."""

    match_id: str
    side: str
    strategy: str
    finished: bool = False
    aborted: bool = False     # called off without a result (``reason`` says why: a clock, an operator)
    winner: str = ""
    reason: str = ""
    points: dict[str, int] = field(default_factory=dict)
    version: int = 0          # the match version (actions applied, both sides) when the bot stopped
    turn: int = 0
    actions: int = 0          # actions this bot submitted
    think_seconds: float = 0.0  # time spent in the strategy
    max_think_seconds: float = 0.0
    illegal: int = 0          # choices that were not legal and were replaced
    stale: int = 0            # submissions refused because the match had moved on
    retries: int = 0          # calls retried after a connection failure
    seconds: float = 0.0

    @property
    def won(self) -> bool:
        return self.finished and self.winner == self.side

    def summary(self) -> str:
        if self.aborted:
            return f"{self.side} ({self.strategy}): the match was aborted: {self.reason or 'no reason given'}"
        if not self.finished:
            return f"{self.side} ({self.strategy}): stopped at version {self.version}, match not finished"
        outcome = "draw" if self.winner == "draw" else f"{self.winner} wins"
        points = ", ".join(f"{side} {value}" for side, value in sorted(self.points.items()))
        return (f"{self.side} ({self.strategy}): {outcome} ({self.reason}); victory points {points}; "
                f"{self.actions} actions of {self.version}, turn {self.turn}, {self.seconds:.1f} s"
                + (f"; {self.illegal} illegal choices replaced" if self.illegal else "")
                + (f"; {self.retries} retries" if self.retries else ""))


class FunctionStrategy:
    """A plain ``choose(state, legal_actions)`` function as a strategy."""

    def __init__(self, function: ChooseFunction, name: str | None = None) -> None:
        self.function = function
        self.name = name or getattr(function, "__name__", "function")

    def choose(self, state: engine.Game, legal_actions: list[engine.Action]) -> engine.Action:
        return self.function(state, legal_actions)


def as_strategy(strategy: Any, seed: Any = None, **params: Any) -> Any:
    """A strategy object from a registry name (``"heuristic"``), a strategy object or a function."""
    if isinstance(strategy, str):
        from clients.strategies import make_strategy

        return make_strategy(strategy, seed, **params)
    if hasattr(strategy, "choose"):
        return strategy
    if callable(strategy):
        return FunctionStrategy(strategy)
    raise TypeError(f"not a strategy: {strategy!r} (give a name, an object with choose(), or a function)")


def engine_actions(messages: Any) -> list[engine.Action]:
    """``typhoon.v1.Action`` messages as engine actions."""
    return [engine.action_from_json(convert.action_from_proto(message)) for message in messages]


def game_from_state(state: match_pb2.GameState) -> engine.Game:
    """The engine game of a ``GameState`` (GetMatch's ``state``), rebuilt from its ``position_json``."""
    return engine.game_from_position(json.loads(state.position_json))


class Bot:
    """One seat of one match, played by a strategy. ``run()`` plays until the match ends.

    ``client`` (a :class:`TyphoonClient`) or ``target`` (``"host:port"``) says where the service is; a
    bot made from a target owns its client and closes it when done. ``side`` is the seat to claim (empty:
    the first free one); with ``token`` the bot acts for a seat claimed earlier (give its ``side`` too).
    ``on_action(bot, version, action, seconds)`` and ``on_wait(bot, version)`` are optional hooks
    (logging, progress). ``idle_timeout`` (seconds, default none) gives up when the match does not move.
    ``tls`` (a :class:`clients.tls.ClientTls`) talks TLS to a service that serves it.
    """

    def __init__(self, strategy: Any, target: str | None = None, *, match_id: str, side: str = "",
                 token: str | None = None, client: TyphoonClient | None = None, player_name: str = "",
                 seed: Any = None, params: dict[str, Any] | None = None, retry_seconds: float = 120.0,
                 idle_timeout: float | None = None, heartbeat_seconds: int = 5,
                 on_action: Callable[[Bot, int, engine.Action, float], None] | None = None,
                 on_wait: Callable[[Bot, int], None] | None = None, tls: ClientTls | None = None) -> None:
        if client is None and target is None:
            raise ValueError("give the service's address (target) or a TyphoonClient (client)")
        if token and not side:
            raise ValueError("with a seat token, say which side it is for (side=...)")
        self.strategy = as_strategy(strategy, seed, **(params or {}))
        self.name = getattr(self.strategy, "name", type(self.strategy).__name__)
        self._owns_client = client is None
        # the bot does its own retrying (longer, with tenacity): the client's quick retries are off
        self.client = client or TyphoonClient(target, retries=0, channel=open_channel(target, tls, options=[
            ("grpc.initial_reconnect_backoff_ms", 100), ("grpc.min_reconnect_backoff_ms", 100),
            ("grpc.max_reconnect_backoff_ms", 1000)]))  # quick to find a restarted service
        self.match_id = match_id
        self.side = side
        self.token = token
        self.player_name = player_name or f"{self.name} bot"
        self.retry_seconds = retry_seconds
        self.idle_timeout = idle_timeout
        self.heartbeat_seconds = heartbeat_seconds
        self.on_action = on_action
        self.on_wait = on_wait
        self.result = BotResult(match_id, side, self.name)
        self._stop = threading.Event()
        self._watch = None
        self._last_event = time.monotonic()

    # --- the seat ----------------------------------------------------------------------------------

    def claim(self) -> Seat:
        """Claim the seat (JoinMatch) unless a token was given; returns the seat."""
        if not self.token:
            seat = self._call(self.client.join_match, self.match_id, self.side, self.player_name)
            self.side, self.token = seat.side, seat.token
            self.result.side = seat.side
        return Seat(self.match_id, self.side, self.token)

    # --- playing -----------------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask a running bot (in another thread) to stop; ``run()`` then returns its result."""
        self._stop.set()
        if self._watch is not None:
            self._watch.close()

    def run(self) -> BotResult:
        """Claim the seat if needed, play until the match ends, return the result."""
        started = time.monotonic()
        try:
            if not self.token:
                self.claim()
            first = self._call(self.client.get_match, self.match_id)
            events = self._follow(first.match.last_sequence)
            while not self._stop.is_set():
                legal = self._call(self.client.legal_actions, self.match_id)
                self.result.version = legal.version
                if not legal.side_to_act:
                    break  # the game is over
                if legal.side_to_act != self.side:
                    if self.on_wait:
                        self.on_wait(self, legal.version)
                    self._wait_past(events, legal.version)
                    continue
                self._play(legal)
        finally:
            if self._watch is not None:
                self._watch.close()
            self.result.seconds = time.monotonic() - started
            self._finish()
            if self._owns_client:
                self.client.close()
        return self.result

    def _play(self, legal) -> None:
        response = self._call(self.client.get_match, self.match_id)
        if response.match.version != legal.version:
            return  # the match moved between the two reads: read again
        game = game_from_state(response.state)
        actions = engine_actions(legal.actions)
        started = time.perf_counter()
        action = self.strategy.choose(game, list(actions))
        took = time.perf_counter() - started
        self.result.think_seconds += took
        self.result.max_think_seconds = max(self.result.max_think_seconds, took)
        if action not in actions:
            self.result.illegal += 1
            fallback = getattr(self.strategy, "fallback", None)
            action = fallback(game, actions) if fallback else actions[0]
        request_id = uuid.uuid4().hex  # the same id for every retry of this submission
        try:
            self._call(self.client.submit, self.match_id, self.token, action, expected_version=legal.version,
                       request_id=request_id)
        except TyphoonError as error:
            if (error.code, None) in _MOVED_ON or (error.code, error.reason) in _MOVED_ON:
                self.result.stale += 1
                return
            raise BotError(f"the service refused {action.to_json()} at version {legal.version}: {error}") from error
        self.result.actions += 1
        if self.on_action:
            self.on_action(self, legal.version + 1, action, took)

    def _follow(self, cursor: int) -> Iterator:
        """The match's events and heartbeats after ``cursor``, for as long as the bot runs. The client's
        watch resumes by itself after a disconnect; should it end anyway before the match is over (a
        stream cancelled by a server going down), a new one starts from its cursor."""
        while not self._stop.is_set():
            self._watch = self.client.watch(self.match_id, after_sequence=cursor,
                                            heartbeat_seconds=self.heartbeat_seconds, heartbeats=True)
            try:
                yield from self._watch
            except TyphoonError as error:
                if error.code not in TRANSIENT_CODES:
                    raise
                self.result.retries += 1
            cursor = self._watch.cursor
            if self._watch.finished or self._stop.is_set():
                return
            time.sleep(0.2)
            yield None  # let the bot look at the match again

    def _wait_past(self, events: Iterator, version: int) -> None:
        """Wait until the side to act may have changed after ``version`` (or the match is over, or the
        bot is stopped).

        The side to act changes with the phase (``phase_started``) or at the end of the game, so the
        other side's moves inside a phase do not wake the bot. Anything else that could hand the move
        over is covered by the heartbeat: while it is the bot's turn nobody else can act, the stream
        goes quiet, and the heartbeat after ``heartbeat_seconds`` makes the bot look again.
        """
        for item in events:
            if self._stop.is_set():
                return
            if isinstance(item, match_pb2.MatchEvent):
                self._last_event = time.monotonic()
                if item.version <= version:
                    continue
                kind = item.WhichOneof("kind")
                if kind == "seed_revealed" or (kind == "game_event"
                                               and item.game_event.WhichOneof("kind") in _WAKE_EVENTS):
                    return
            elif item is None:
                return  # the watch was restarted: look again
            elif self.idle_timeout is not None and time.monotonic() - self._last_event > self.idle_timeout:
                raise BotError(f"the match did not move for {self.idle_timeout:.0f} s (version {version})")
            else:
                return  # a heartbeat: the stream is quiet, look again
        # the watch ended: the match is over (the loop reads it again)

    def _finish(self) -> None:
        try:
            match = self._call(self.client.get_match, self.match_id).match
        except Exception:  # noqa: BLE001 - the result stays as far as it got
            return
        self.result.version, self.result.turn = match.version, match.turn
        self.result.aborted = match.status == match_pb2.MATCH_STATUS_ABORTED
        if self.result.aborted:
            with contextlib.suppress(Exception):  # the result stays, without its reason
                self.result.reason = self._call(self.client.why_aborted, match)
        if match.status == match_pb2.MATCH_STATUS_FINISHED:
            self.result.finished = True
            self.result.winner, self.result.reason = match.result.winner, match.result.reason
            self.result.points = dict(match.result.points)

    # --- calls with retries ------------------------------------------------------------------------

    def _call(self, method: Callable, *args: Any, **kwargs: Any) -> Any:
        """Call the service, retrying on connection failures (service restarts, network drops)."""
        def transient(error: BaseException) -> bool:
            return isinstance(error, TyphoonError) and error.code in TRANSIENT_CODES and not self._stop.is_set()

        def count(_state) -> None:
            self.result.retries += 1

        for attempt in Retrying(retry=retry_if_exception(transient), stop=stop_after_delay(self.retry_seconds),
                                wait=wait_exponential(multiplier=0.1, max=2.0), before_sleep=count, reraise=True):
            with attempt:
                return method(*args, **kwargs)
        raise AssertionError("unreachable")


def run_bot(strategy: Any, target: str | None = None, *, match_id: str, side: str = "", token: str | None = None,
            **kwargs: Any) -> BotResult:
    """Play one seat of a match to its end with ``strategy`` (a name, a strategy object or a function
    ``choose(state, legal_actions) -> action``); see :class:`Bot` for the other arguments."""
    return Bot(strategy, target, match_id=match_id, side=side, token=token, **kwargs).run()


def start_bot(strategy: Any, target: str | None = None, **kwargs: Any) -> tuple[Bot, threading.Thread]:
    """A bot running in a daemon thread: ``bot, thread = start_bot(...)``; ``thread.join()``, then
    ``bot.result`` (and ``bot.error`` if it failed)."""
    bot = Bot(strategy, target, **kwargs)
    bot.error = None

    def play() -> None:
        try:
            bot.run()
        except BaseException as error:  # noqa: BLE001 - kept for the caller
            bot.error = error

    thread = threading.Thread(target=play, name=f"bot-{kwargs.get('side') or 'seat'}", daemon=True)
    thread.start()
    return bot, thread


__all__ = ["Bot", "BotError", "BotResult", "FunctionStrategy", "as_strategy", "engine_actions", "game_from_state",
           "run_bot", "start_bot"]


# --- what the command lines check: typhoon bot, match run, play ------------------------------------

def parse_params(items: list[str] | None) -> dict[str, Any]:
    """``["budget=0.5", "horizon=2", "strict=true"]`` as a dict (values read as JSON when they can be)."""
    params: dict[str, Any] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"a strategy parameter is name=value, not {item!r}")
        try:
            params[name] = json.loads(value)
        except ValueError:
            params[name] = value
    return params


def checked_options(scenario: str, text: str) -> dict[str, Any] | None:
    """The match options ``text`` names (as for ``typhoon selfplay``), checked against ``scenario``
    before anything is created: a ValueError with the engine's sentence when it refuses them."""
    try:
        options = engine.Options.parse(text).to_json() if text else None
        engine.new_game(scenario, options)
    except engine.IllegalAction as error:
        raise ValueError(error.message) from None
    return options


def checked_strategy(name: str, params: dict[str, Any]) -> None:
    """ValueError when ``name`` is not a strategy or does not take ``params``."""
    from clients.strategies import make_strategy

    make_strategy(name, **params)
