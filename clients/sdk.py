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
- takes part in the dice (ruleset 4 on, engine/seat_entropy.py): commits to fresh entropy when it takes
  its seat (or, for a seat taken for it, when the match waits for its commitment), and reveals it when
  the match waits for its reveal, so that nobody, the service's operator included, can choose the rolls;
- follows the match with one ``WatchMatch`` stream that, whenever its side is to act or decide
  (pending battle decisions included: the strategy gets those like any other choice), brings the
  position and the legal actions at that version (``include_legal_actions``): no polling, and no call
  but ``SubmitAction`` per action;
- asks the strategy, and submits with ``expected_version`` and a request id; if someone else moved
  first (``ABORTED``) it waits for the next update and chooses anew; a choice that is not legal is
  replaced by the strategy's fallback (or the first legal action) and counted in ``BotResult.illegal``;
- survives dropped connections and service restarts: every call is retried with exponential backoff
  (tenacity) for up to ``retry_seconds``, a submit is retried with the same request id (so it is
  applied once), and the watch resumes from its cursor;
- stops cleanly when the match ends (or when :meth:`Bot.stop` is called from another thread) and
  returns a :class:`BotResult`.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential

import engine
from clients.client import TRANSIENT_CODES, Seat, TyphoonClient, TyphoonError, fresh_entropy
from clients.strategies.base import FunctionStrategy
from clients.tls import ClientTls, open_channel
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import convert

ChooseFunction = Callable[[engine.Game, list[engine.Action]], engine.Action]

# refusals that mean "the match moved on while we were choosing": read again and choose anew
_MOVED_ON = {(grpc.StatusCode.ABORTED, None), (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
             (grpc.StatusCode.FAILED_PRECONDITION, "ENTROPY_AWAITED"),
             (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER"), (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_ABORTED")}


_ENDED = (match_pb2.MATCH_STATUS_FINISHED, match_pb2.MATCH_STATUS_ABORTED)

#: Put into a bot's ``updates`` queue: no more updates come from there; the bot follows the match itself.
OWN_WATCH = object()


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
    entropy: str = ""         # the entropy the seat committed to for the dice ("" if none: see ``entropy_refused``)
    entropy_refused: str = ""  # why the service took none (DICE_ROLLED: the first die came first...)

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
    ``updates``: a queue another thread fills with the match's MatchUpdates (with the seat's legal
    actions and state), ``None`` to end: the bot then opens no stream of its own (a LadderBot feeds its
    bots from its one Seek stream).
    ``tls`` (a :class:`clients.tls.ClientTls`) talks TLS to a service that serves it.
    ``entropy`` (default True): the seat commits to fresh entropy for the dice (ruleset 4 on,
    engine/seat_entropy.py) in its JoinMatch, or, with a ``token`` whose seat was taken for it, when the
    match waits for its commitment; and reveals it when the match waits for its reveal. A string gives
    that entropy (a bot resuming a seat that committed must be given the entropy it committed to);
    False gives none.
    """

    def __init__(self, strategy: Any, target: str | None = None, *, match_id: str, side: str = "",
                 token: str | None = None, client: TyphoonClient | None = None, player_name: str = "",
                 seed: Any = None, params: dict[str, Any] | None = None, retry_seconds: float = 120.0,
                 idle_timeout: float | None = None, heartbeat_seconds: int = 5,
                 on_action: Callable[[Bot, int, engine.Action, float], None] | None = None,
                 on_wait: Callable[[Bot, int], None] | None = None,
                 updates: queue.Queue | None = None, tls: ClientTls | None = None,
                 entropy: bool | str = True) -> None:
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
        self.updates = updates
        self.entropy = fresh_entropy(entropy)
        self.result = BotResult(match_id, side, self.name)
        self._stop = threading.Event()
        self._watch = None
        self._last_change = time.monotonic()
        self._floor = 0  # the lowest version worth acting on
        self._owed = False  # the bot's step (entropy, or an action found stale) awaits the update it makes
        self._last: api.MatchUpdate | None = None

    # --- the seat ----------------------------------------------------------------------------------

    def claim(self) -> Seat:
        """Claim the seat (JoinMatch, committing to the bot's entropy) unless a token was given; returns
        the seat."""
        if not self.token:
            seat = self._call(self.client.join_match, self.match_id, self.side, self.player_name, self.entropy)
            self.side, self.token = seat.side, seat.token
            self.result.side = seat.side
            self.result.entropy = seat.entropy
            if self.entropy and not seat.entropy:
                self.result.entropy_refused = "DICE_ROLLED"  # JoinMatch takes no commitment after the first die
        return Seat(self.match_id, self.side, self.token, self.result.entropy)

    def _entropy_step(self, stage: str) -> None:
        """What the match waits for from the bot's seat: its commitment (a seat taken for it) or its reveal.
        A commitment refused because the dice took none any more is noted in the result, not raised."""
        if stage == "entropy_commitment":
            try:
                self._call(self.client.commit_entropy, self.match_id, self.token, self.entropy or False)
            except TyphoonError as error:
                if error.code != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                self.result.entropy_refused = error.reason
                return
            self.result.entropy = self.entropy
            return
        entropy = self.result.entropy or self.entropy  # a bot resuming a seat was given the entropy it committed to
        if not entropy:
            raise BotError(f"match {self.match_id} waits for the {self.side} seat to reveal the entropy it committed "
                           f"to, and this bot does not hold it (give it with entropy=...)")
        try:
            self._call(self.client.reveal_entropy, self.match_id, self.token, entropy)
        except TyphoonError as error:
            if error.reason == "ENTROPY_MISMATCH":
                raise BotError(f"the {self.side} seat of match {self.match_id} committed to another entropy than "
                               f"this bot's (give it with entropy=...)") from error
            if error.code != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            return
        self.result.entropy = entropy

    # --- playing -----------------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask a running bot (in another thread) to stop; ``run()`` then returns its result."""
        self._stop.set()
        if self._watch is not None:
            self._watch.close()
        if self.updates is not None:
            self.updates.put(None)

    def run(self) -> BotResult:
        """Claim the seat if needed, play until the match ends, return the result."""
        started = time.monotonic()
        try:
            if not self.token:
                self.claim()
            for update in self._updates():
                if self._stop.is_set():
                    break
                if update.version < self._floor:
                    continue  # an update from before the bot's own last action (a reconnection's)
                self._floor = update.version
                self.result.version, self.result.turn = update.version, update.turn
                if update.status in _ENDED:
                    self._last = update
                    break
                if update.side_to_act != self.side:
                    if self.on_wait:
                        self.on_wait(self, update.version)
                    continue
                stage = update.state.pending_decision.stage if update.HasField("state") else ""
                if stage in ("entropy_commitment", "entropy_reveal"):
                    self._entropy_step(stage)
                    self._owed = True
                elif update.HasField("legal_actions"):  # else the match moved on already: a later update has them
                    self._play(update)
        finally:
            if self._watch is not None:
                self._watch.close()
            self.result.seconds = time.monotonic() - started
            self._finish()
            if self._owns_client:
                self.client.close()
        return self.result

    def _play(self, update: api.MatchUpdate) -> None:
        game = game_from_state(update.state)
        actions = engine_actions(update.legal_actions.actions)
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
            self._call(self.client.submit, self.match_id, self.token, action, expected_version=update.version,
                       request_id=request_id)
        except TyphoonError as error:
            if (error.code, None) in _MOVED_ON or (error.code, error.reason) in _MOVED_ON:
                self.result.stale += 1
                self._owed = True
                return
            raise BotError(f"the service refused {action.to_json()} at version {update.version}: {error}") from error
        self.result.actions += 1
        self._floor = update.version + 1
        if self.on_action:
            self.on_action(self, update.version + 1, action, took)

    def _updates(self) -> Iterator[api.MatchUpdate]:
        """Where the match stands after each change, with the legal actions and the state whenever the
        bot's side is to act: from ``updates`` (fed by whoever holds the stream, e.g. a LadderBot's
        Seek), else from the bot's own WatchMatch. Raises BotError past ``idle_timeout`` without a change."""
        while self.updates is not None and not self._stop.is_set():
            try:
                update = self.updates.get(timeout=self.heartbeat_seconds)
            except queue.Empty:
                self._check_idle()
                continue
            if update is None:
                return
            if update is OWN_WATCH:
                break  # whoever fed the updates stops: follow the match with a stream of the bot's own
            self._last_change = time.monotonic()
            yield update
        if self._stop.is_set():
            return
        cursor = self._call(self.client.get_match, self.match_id).match.last_sequence
        while not self._stop.is_set():
            self._watch = self.client.watch(self.match_id, after_sequence=cursor,
                                            heartbeat_seconds=self.heartbeat_seconds, heartbeats=True,
                                            updates_only=True, token=self.token)  # a bot reads no event
            try:
                for item in self._watch:
                    if isinstance(item, api.MatchUpdate):
                        self._last_change, self._owed = time.monotonic(), False
                        yield item
                    elif isinstance(item, api.Heartbeat):
                        self._check_idle()
                        if self._owed:  # a beat, and not the update the bot's step made: ask again for where
                            self._owed = False  # the match stands (a new stream begins with it)
                            self.result.retries += 1
                            self._watch.close()
                            break
            except TyphoonError as error:
                # the client's watch resumes by itself after a disconnect; a stream cancelled by a
                # server going down may still end it: a new one starts from its cursor
                if error.code not in TRANSIENT_CODES:
                    raise
                self.result.retries += 1
            cursor = self._watch.cursor
            if self._watch.finished or self._stop.is_set():
                return
            time.sleep(0.2)

    def _check_idle(self) -> None:
        if self.idle_timeout is not None and time.monotonic() - self._last_change > self.idle_timeout:
            raise BotError(f"the match did not move for {self.idle_timeout:.0f} s (version {self.result.version})")

    def _finish(self) -> None:
        match = self._last  # the last update, when it said the match is over
        if match is None:
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


__all__ = ["OWN_WATCH", "Bot", "BotError", "BotResult", "FunctionStrategy", "as_strategy", "engine_actions", "game_from_state",
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


def checked_strategy(name: str, params: dict[str, Any]) -> str:
    """The strategy's own name (what its bot's seat is called after); ValueError when ``name`` is not a
    strategy or does not take ``params``."""
    from clients.strategies import make_strategy

    strategy = make_strategy(name, **params)
    return str(getattr(strategy, "name", "") or name)
