"""A thin typed Python client of the Typhoon game service (gRPC).

>>> from clients.client import TyphoonClient                          # doctest: +SKIP
>>> with TyphoonClient("127.0.0.1:50051") as client:                  # doctest: +SKIP
...     match, tokens = client.create_match(seats=["german"])
...     soviet = client.join_match(match.match_id, "soviet")
...     legal = client.legal_actions(match.match_id)
...     client.submit(match.match_id, tokens["german"], legal.actions[0], expected_version=legal.version)
...     for event in client.watch(match.match_id):                    # resumes by itself after a disconnect
...         print(event.sequence, event.WhichOneof("kind"))

A match may have clocks: ``client.create_match(time_control="300+5")`` (or a preset, ``"blitz"``);
``match.clock`` then says whose time runs and until when (:func:`time_left`).

The dice (ruleset 4 on) mix in each seat's entropy, committed to and then revealed (engine/seat_entropy.py):
``join_match`` commits to fresh entropy by default and reveals it as soon as every seat has committed, for
every seat this client joined (:meth:`TyphoonClient.reveal_due`; a :class:`clients.sdk.Bot` reveals its own
when the match waits for it). ``create_match(..., entropy=True)`` claims its seats for players who commit
themselves (``commit_entropy``, then ``reveal_entropy``): hand the tokens to bots or pages that do.

Actions may be given as engine actions (``engine.Move("XLVII", "0704")``), as their JSON form
(``{"type": "move", "unit": "XLVII", "to": "0704"}``) or as ``typhoon.v1.Action`` messages. Refusals
raise :class:`TyphoonError` with the gRPC code, the machine-readable reason (``STOPPED_BY_ZOC``,
``STALE_VERSION``...), the sentence and the metadata (``current_version`` for a stale version).

A call refused by one of the service's rate limits (RESOURCE_EXHAUSTED ``RATE_LIMITED``), or by its busy
history pool (``HISTORY_BUSY``, ``TOO_MANY_HISTORY_CALLS``), is sent again by itself once the refusal's ``retry_after_seconds`` have passed, as long as the waits of that call add
up to no more than ``rate_limit_patience`` seconds (120 by default): bots need no code for it.
"""

from __future__ import annotations

import random
import secrets
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, TypeVar

import grpc
from google.protobuf.struct_pb2 import Struct
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from clients.tls import ClientTls, open_channel
from engine.dice import entropy_commitment
from service.gen.typhoon.v1 import actions_pb2, match_pb2, match_service_pb2_grpc
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import convert
from service.match.audit import aborted_text
from service.match.fresh_tokens import new_seat_token
from service.match.time_control import PRESETS, TimeControl

Match = match_pb2.Match
TimeControlMessage = match_pb2.TimeControl
MatchEvent = match_pb2.MatchEvent
Action = actions_pb2.Action
MatchUpdate = api.MatchUpdate
_ENDED = (match_pb2.MATCH_STATUS_FINISHED, match_pb2.MATCH_STATUS_ABORTED)

#: Failures worth retrying: the service unreachable (or stopping), too slow, or a call cancelled on
#: the way (a proxy or a server going away).
TRANSIENT_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED)


T = TypeVar("T")
#: The longest a client waits, in all, for the rate limits to let one call (or one stream) through.
RATE_LIMIT_PATIENCE = 120.0


def _transient(error: BaseException) -> bool:
    return isinstance(error, grpc.RpcError) and error.code() in TRANSIENT_CODES


class TyphoonError(Exception):
    """A call the service refused or could not answer."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str, metadata: dict[str, str] | None = None):
        super().__init__(f"{code.name} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata or {}

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> "TyphoonError":
        reason, metadata = "", {}
        try:
            status = rpc_status.from_call(error)
        except Exception:  # noqa: BLE001 - a status without details is still an error
            status = None
        for detail in status.details if status else ():
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                reason, metadata = info.reason, dict(info.metadata)
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        message = error.details() if hasattr(error, "details") else str(error)
        return cls(code, reason or code.name, message or "", metadata)


def rate_limit_delay(error: TyphoonError) -> float | None:
    """Seconds to wait before sending again a call a rate limit refused (its ``retry_after_seconds``, and
    up to a quarter second more so that clients refused together do not all come back together);
    None for any other error.

    >>> error = TyphoonError(grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", "", {"retry_after_seconds": "3"})
    >>> 3 <= rate_limit_delay(error) <= 3.25, rate_limit_delay(TyphoonError(grpc.StatusCode.NOT_FOUND, "", ""))
    (True, None)
    """
    if error.code != grpc.StatusCode.RESOURCE_EXHAUSTED or error.reason not in WAITED_OUT:
        return None
    return retry_after(error, 1.0)


#: The refusals that pass by themselves, waited out like a rate limit: the history pool's (a busy server
#: re-simulating match logs; a client with too many such calls under way).
WAITED_OUT = frozenset({"RATE_LIMITED", "HISTORY_BUSY", "TOO_MANY_HISTORY_CALLS"})


def retry_after(error: TyphoonError, default: float) -> float:
    """The seconds a refusal asks to wait (its ``retry_after_seconds``, else ``default``), and up to a
    quarter second more so that clients refused together do not all come back together.

    >>> error = TyphoonError(grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL", "", {"retry_after_seconds": "60"})
    >>> 60 <= retry_after(error, 5) <= 60.25, 5 <= retry_after(TyphoonError(error.code, "STORE_FULL", ""), 5) <= 5.25
    (True, True)
    """
    try:
        seconds = float(error.metadata.get("retry_after_seconds", default))
    except ValueError:
        seconds = default
    return max(0.1, seconds) + random.uniform(0, 0.25)


def wait_for_rate_limit(error: TyphoonError, waited: float, patience: float) -> float | None:
    """If ``error`` is a rate limit's refusal whose wait keeps the waits of one call (``waited`` so far)
    within ``patience`` seconds, wait, and return the seconds waited in all; else None (raise it)."""
    delay = rate_limit_delay(error)
    if delay is None or waited + delay > patience:
        return None
    time.sleep(delay)
    return waited + delay


def patiently(send: Callable[[], T], patience: float) -> T:
    """``send()``, sent again after each rate limit's refusal for as long as the waits add up to no more
    than ``patience`` seconds; any other error, or a refusal past that, is raised."""
    waited: float | None = 0.0
    while True:
        try:
            return send()
        except TyphoonError as error:
            waited = wait_for_rate_limit(error, waited, patience)
            if waited is None:
                raise


def as_time_control(value: str | TimeControlMessage) -> TimeControlMessage:
    """A time control message from a preset name or ``"INITIAL+INCREMENT"`` in seconds (ValueError if
    neither), or the message itself.

    >>> as_time_control("300+5").increment.seconds
    5
    """
    if isinstance(value, TimeControlMessage):
        return value
    if value in PRESETS:
        return TimeControlMessage(preset=value)
    return TimeControl.parse(value).to_proto()


def time_left(match: Match, now: float | None = None) -> dict[str, float]:
    """Each side's time left in seconds now (``now``: Unix seconds), from a Match with a clock
    (empty without). The service's clock is the authority: this is a reading, as good as the two
    machines' clocks agree."""
    if not match.HasField("clock"):
        return {}
    clock = match.clock
    now = time.time() if now is None else now
    left = {side: value.ToMilliseconds() / 1000 for side, value in clock.remaining.items()}
    if clock.running and not clock.awaiting_first_action:
        left[clock.running] = max(0.0, left[clock.running] - (now - clock.since.ToMilliseconds() / 1000))
    return left


def to_action(action: Any) -> actions_pb2.Action:
    """An engine action, its JSON form or an Action message, as an Action message."""
    if isinstance(action, actions_pb2.Action):
        return action
    return convert.action_to_proto(action)


@dataclass
class Seat:
    """A claimed seat: act with ``client.submit(seat.match_id, seat.token, ...)``."""

    match_id: str
    side: str
    token: str = field(repr=False)
    #: the entropy the seat committed to (ruleset 4 on), to reveal when the match waits for it; "" if none
    entropy: str = field(default="", repr=False)


class ReconnectingStream:
    """A server stream read by one thread that ``close()`` stops from another; while the service is
    away the reader connects again, backing off from 0.1 s up to 2 s between attempts."""

    def __init__(self, rate_limit_patience: float = RATE_LIMIT_PATIENCE) -> None:
        self._call = None
        self._closed = False
        self._delay = 0.1
        self.rate_limit_patience = rate_limit_patience
        self._rate_limited_for = 0.0

    def close(self) -> None:
        self._closed = True
        if self._call is not None:
            self._call.cancel()

    def _received(self) -> None:
        """A message came: the next failure is retried soon again."""
        self._delay = 0.1
        self._rate_limited_for = 0.0

    def _waited_for_rate_limit(self, error: grpc.RpcError) -> bool:
        """If ``error`` is a rate limit's refusal and there is patience left, wait it out: True (connect again)."""
        waited = wait_for_rate_limit(TyphoonError.from_rpc_error(error), self._rate_limited_for, self.rate_limit_patience)
        if waited is None:
            return False
        self._rate_limited_for = waited
        return True

    def _back_off(self) -> None:
        time.sleep(self._delay)
        self._delay = min(2 * self._delay, 2.0)


class Watch(ReconnectingStream):
    """An iterator over a match's events that reconnects by itself with its cursor, so nothing is
    missed or repeated. Ends after the match's last event (and its update); ``close()`` stops it from
    another thread. While the service is unreachable it keeps trying (backing off up to 2 s between
    attempts). With ``updates`` it also yields each :class:`MatchUpdate` (where the match stands after a
    change; with ``token``, the seat's legal actions and the game state when it is to act)."""

    def __init__(self, client: "TyphoonClient", match_id: str, after_sequence: int, heartbeat_seconds: int,
                 heartbeats: bool, resume: bool, updates: bool = False, token: str | None = None,
                 updates_only: bool = False) -> None:
        super().__init__(client.rate_limit_patience)
        self.client = client
        self.match_id = match_id
        self.cursor = after_sequence
        self.heartbeat_seconds = heartbeat_seconds
        self.heartbeats = heartbeats
        self.resume = resume
        self.updates = updates
        self.token = token
        self.updates_only = updates_only
        self.finished = False

    def __iter__(self) -> Iterator[MatchEvent | MatchUpdate | api.Heartbeat]:
        while not self._closed and not self.finished:
            request = api.WatchMatchRequest(match_id=self.match_id, after_sequence=self.cursor,
                                            heartbeat_seconds=self.heartbeat_seconds,
                                            include_legal_actions=self.token is not None,
                                            updates_only=self.updates_only)
            self._call = self.client.stub.WatchMatch(request, metadata=self.client._metadata(self.token))
            try:
                for response in self._call:
                    self._received()
                    kind = response.WhichOneof("kind")
                    if kind == "event":
                        event = response.event
                        self.cursor = event.sequence
                        if event.WhichOneof("kind") == "seed_revealed":
                            self.finished = not self.updates  # else its update comes last
                        yield event
                    elif kind == "update":
                        if self.updates_only:  # no entries come: the update says how far the stream is
                            self.cursor = max(self.cursor, response.update.last_sequence)
                        if response.update.status in _ENDED and response.update.last_sequence <= self.cursor:
                            self.finished = True
                        if self.updates:
                            yield response.update
                    elif kind == "heartbeat" and self.heartbeats:
                        yield response.heartbeat
            except grpc.RpcError as error:
                if self._closed:
                    return
                if self._waited_for_rate_limit(error):
                    continue
                if not (self.resume and _transient(error)):  # a stream cut by a server going away: resume
                    raise TyphoonError.from_rpc_error(error) from None
                self._back_off()
                continue
            finally:
                self._call = None
            if not self.resume or self.finished:
                return
            # the stream ended without the last event: the server shut down, or the match was
            # already over at our cursor
            try:
                match = self.client.get_match(self.match_id).match
            except TyphoonError as error:
                if error.code not in TRANSIENT_CODES:
                    raise
                self._back_off()
                continue
            if match.status in _ENDED and self.cursor >= match.last_sequence:
                self.finished = True


#: How a client's channel reconnects to a service that went away: soon, and at least once a second.
RECONNECT_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 200), ("grpc.max_reconnect_backoff_ms", 1000)]


class TyphoonClient:
    """Synchronous client of ``typhoon.v1.MatchService``. Unary calls are retried (``retries`` times,
    backing off up to 2 s) while the service is unreachable or shutting down, and after the time a rate
    limit says (up to ``rate_limit_patience`` seconds of waiting per call; 0: never); SubmitAction, Resign
    and CreateMatch keep their request id and CreateMatch and JoinMatch their seat tokens, so none of
    them applies twice. ``tls`` (a :class:`clients.tls.ClientTls`) talks TLS to a service that serves it."""

    def __init__(self, target: str, *, timeout: float = 30.0, retries: int = 8,
                 channel: grpc.Channel | None = None, rate_limit_patience: float = RATE_LIMIT_PATIENCE,
                 metadata: Iterable[tuple[str, str]] = (), tls: ClientTls | None = None) -> None:
        """``metadata``: sent with every call besides the token (a proxy, or a load test standing for
        clients behind one, sends ``x-forwarded-for``)."""
        self.target = target
        self.timeout = timeout
        self.retries = retries
        self.rate_limit_patience = rate_limit_patience
        self.metadata = list(metadata)
        self.channel = channel or open_channel(target, tls, options=RECONNECT_OPTIONS)
        self.stub = match_service_pb2_grpc.MatchServiceStub(self.channel)
        #: the seats this client committed for, by match and side: what :meth:`reveal_due` reveals
        self.committed: dict[str, dict[str, Seat]] = {}

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> "TyphoonClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _metadata(self, token: str | None = None) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {token}"), *self.metadata] if token else self.metadata

    def _call(self, method: str, request: Any, token: str | None = None) -> Any:
        return patiently(lambda: self._send(method, request, token), self.rate_limit_patience)

    def _send(self, method: str, request: Any, token: str | None = None) -> Any:
        retrying = Retrying(retry=retry_if_exception(_transient), stop=stop_after_attempt(self.retries + 1),
                            wait=wait_exponential(multiplier=0.1, max=2.0), reraise=True)
        try:
            for attempt in retrying:
                with attempt:
                    return getattr(self.stub, method)(request, timeout=self.timeout, metadata=self._metadata(token))
        except grpc.RpcError as error:
            raise TyphoonError.from_rpc_error(error) from None
        raise AssertionError("unreachable")

    # --- matches -----------------------------------------------------------------------------------

    def create_match(self, scenario: str = "standard", options: dict[str, Any] | None = None,
                     seats: Iterable[str | tuple[str, str]] = (),
                     time_control: str | TimeControlMessage | None = None,
                     entropy: bool = False) -> tuple[Match, dict[str, str]]:
        """Create a match; ``seats`` (sides, or (side, player name) pairs) are claimed at once;
        ``time_control`` (a preset name, ``"300+5"`` or a TimeControl message) gives it clocks.
        Returns the match and the tokens of the claimed seats by side. The client chooses the seat
        tokens and a request id, so a retry after a lost answer gets the same match and seats. With
        ``entropy``, each claimed seat is taken for a player who commits to its entropy itself: the
        match waits for it, so hand the token to one that does (:class:`clients.sdk.Bot`, the page);
        without, the seats give none (theirs is drawn from the seed)."""
        request = api.CreateMatchRequest(scenario=scenario, request_id=uuid.uuid4().hex)
        if time_control is not None:
            request.time_control.CopyFrom(as_time_control(time_control))
        if options:
            struct = Struct()
            struct.update(options)
            request.options.CopyFrom(struct)
        for seat in seats:
            side, name = (seat, "") if isinstance(seat, str) else seat
            request.seats.add(side=side, player_name=name, seat_token=new_seat_token(), commit_entropy_later=entropy)
        response = self._call("CreateMatch", request)
        return response.match, {t.side: t.token for t in response.seat_tokens}

    def join_match(self, match_id: str, side: str = "", player_name: str = "", entropy: bool | str = True) -> Seat:
        """Claim a seat (``side``, or the first free one), with a token the client chooses, so a retry
        after a lost answer gets the same seat. ``entropy``: commit to fresh entropy for the dice (True),
        to this entropy, or to none (False); a seat joining after the first die joins without it. Then
        every seat this client committed for whose reveal is due reveals (:meth:`reveal_due`): the
        returned Seat holds its entropy, to reveal later if it is not due yet."""
        given = fresh_entropy(entropy)
        request = api.JoinMatchRequest(match_id=match_id, side=side, player_name=player_name,
                                       seat_token=new_seat_token(), entropy_commitment=entropy_commitment(given) if given else "")
        response = self._call("JoinMatch", request)
        seat = Seat(match_id, response.side, response.seat_token, given)
        if given and _seat_of(response.match, seat.side).entropy_commitment == entropy_commitment(given):
            self.committed.setdefault(match_id, {})[seat.side] = seat
            self.reveal_due(response.match)
        elif given:
            seat.entropy = ""  # not taken (the first die was rolled): the seat gives none
        return seat

    def commit_entropy(self, match_id: str, token: str, entropy: bool | str = True) -> tuple[api.ContributeEntropyResponse, str]:
        """Commit a seat taken for its player (Seat.entropy_due "entropy_commitment") to fresh entropy
        (True), to this entropy, or to none (False): the answer and the entropy, to reveal with
        :meth:`reveal_entropy` once every seat has committed. A repeat is answered as the first time."""
        given = fresh_entropy(entropy)
        request = api.ContributeEntropyRequest(match_id=match_id, commitment=entropy_commitment(given) if given else "none")
        return self._call("ContributeEntropy", request, token), given

    def reveal_entropy(self, match_id: str, token: str, entropy: str) -> api.ContributeEntropyResponse:
        """Reveal the entropy the seat committed to, once every seat has committed (Seat.entropy_due
        "entropy_reveal"): before the match's first die, once (a repeat is answered as the first time)."""
        return self._call("ContributeEntropy", api.ContributeEntropyRequest(match_id=match_id, entropy=entropy), token)

    def reveal_due(self, match: Match) -> Match:
        """Reveal the entropy of every seat of ``match`` this client committed for (in :meth:`join_match`)
        whose reveal is due; returns the match after it."""
        for side, seat in list(self.committed.get(match.match_id, {}).items()):
            if _seat_of(match, side).entropy_due == "entropy_reveal":
                match = self.reveal_entropy(match.match_id, seat.token, seat.entropy).match
        if all(_seat_of(match, side).entropy for side in self.committed.get(match.match_id, {})):
            self.committed.pop(match.match_id, None)
        return match

    def get_match(self, match_id: str) -> api.GetMatchResponse:
        return self._call("GetMatch", api.GetMatchRequest(match_id=match_id))

    def list_matches(self, status: int = 0, page_size: int = 20, page_token: str = "") -> api.ListMatchesResponse:
        return self._call("ListMatches", api.ListMatchesRequest(status=status, page_size=page_size,
                                                                page_token=page_token))

    def list_scenarios(self) -> api.ListScenariosResponse:
        """The scenarios, and every match option with the rule it implements."""
        return self._call("ListScenarios", api.ListScenariosRequest())

    def get_scenario(self, scenario_id: str = "standard") -> api.GetScenarioResponse:
        """A scenario in full: map hex by hex, counters, combat table, weather, turn track, set-up."""
        return self._call("GetScenario", api.GetScenarioRequest(scenario_id=scenario_id))

    def legal_actions(self, match_id: str) -> api.ListLegalActionsResponse:
        return self._call("ListLegalActions", api.ListLegalActionsRequest(match_id=match_id))

    # --- acting ------------------------------------------------------------------------------------

    def submit(self, match_id: str, token: str, action: Any, expected_version: int | None = None,
               request_id: str | None = None) -> api.SubmitActionResponse:
        """Apply an action for the seat of ``token``. A request id is made up if none is given, and
        kept for the retries."""
        request = api.SubmitActionRequest(match_id=match_id, action=to_action(action),
                                          request_id=request_id or uuid.uuid4().hex)
        if expected_version is not None:
            request.expected_version = expected_version
        return self._call("SubmitAction", request, token)

    def resign(self, match_id: str, token: str, request_id: str | None = None) -> api.ResignResponse:
        return self._call("Resign", api.ResignRequest(match_id=match_id, request_id=request_id or uuid.uuid4().hex),
                          token)

    # --- events ------------------------------------------------------------------------------------

    def event_log(self, match_id: str, after_sequence: int = 0, page_size: int = 1000) -> Iterator[MatchEvent]:
        """Every event after ``after_sequence`` that is in the log now, page by page."""
        cursor = after_sequence
        while True:
            page = self._call("GetEventLog", api.GetEventLogRequest(match_id=match_id, after_sequence=cursor,
                                                                    page_size=page_size))
            yield from page.events
            cursor = page.next_after_sequence
            if not page.has_more:
                return

    def why_aborted(self, match: match_pb2.Match) -> str:
        """Why ``match`` (a GetMatch answer's) was aborted, as ``typhoon replay verify`` says it: "the
        soviet side made no first action within 30 s", "by an operator of the service: <reason>"; ""
        if it was not. Reads the end of its log only."""
        if match.status != match_pb2.MATCH_STATUS_ABORTED:
            return ""
        for event in self.event_log(match.match_id, after_sequence=max(0, match.last_sequence - 2)):
            if event.WhichOneof("kind") == "match_aborted":
                return aborted_text(event.match_aborted)
        return "aborted"

    def watch(self, match_id: str, after_sequence: int = 0, heartbeat_seconds: int = 15,
              heartbeats: bool = False, resume: bool = True, updates: bool = False,
              token: str | None = None, updates_only: bool = False) -> Watch:
        """The match's events after ``after_sequence``, then live until its end (heartbeats too if
        asked, and each MatchUpdate with ``updates``; with a seat ``token``, the updates at which that
        seat is to act carry its legal actions and the game state; ``updates_only``: the updates and
        no event, what a bot needs). With ``resume`` it reconnects after a disconnect from its cursor
        (``watch.cursor``)."""
        return Watch(self, match_id, after_sequence, heartbeat_seconds, heartbeats, resume, updates or updates_only,
                     token, updates_only)


def describe_event(event: MatchEvent) -> str:
    """One readable line for an event: ``#12 v3 german: move XLVII to 0704``."""
    kind = event.WhichOneof("kind")
    head = f"#{event.sequence:<4} v{event.version:<4}"
    if kind == "game_event":
        data = convert.event_from_proto(event.game_event)
        name = data.pop("type")
        return f"{head} {name} " + " ".join(f"{k}={_plain(v)}" for k, v in data.items())
    if kind == "action_submitted":
        action = convert.action_from_proto(event.action_submitted.action)
        name = action.pop("type")
        details = " ".join(f"{k}={_plain(v)}" for k, v in action.items())
        clocks = ", ".join(f"{side} {value.ToMilliseconds() / 1000:.1f}s"
                           for side, value in sorted(event.action_submitted.time_left.items()))
        return f"{head} {event.action_submitted.side} plays {name} {details}".rstrip() + (f" [{clocks}]" if clocks else "")
    if kind == "match_created":
        created = event.match_created
        return (f"{head} match created: scenario {created.scenario}, ruleset {created.ruleset or 1}, seed commitment "
                f"{created.seed_commitment[:16]}...")
    if kind == "seat_claimed":
        return f"{head} {event.seat_claimed.side} seat claimed by {event.seat_claimed.player_name or 'someone'}"
    if kind == "entropy_awaited":
        return f"{head} the match waits for the {event.entropy_awaited.side} seat's entropy commitment"
    if kind == "entropy_committed":
        committed = event.entropy_committed
        return f"{head} {committed.side} " + (f"commits to entropy {committed.commitment[:16]}..." if committed.commitment
                                               else "gives no entropy")
    if kind == "entropy_contributed":
        return f"{head} {event.entropy_contributed.side} reveals entropy {event.entropy_contributed.entropy}"
    if kind == "seed_revealed":
        return f"{head} seed revealed: {event.seed_revealed.seed}"
    if kind == "match_aborted":
        return f"{head} match aborted: {event.match_aborted.reason}"
    return f"{head} {kind}"


def fresh_entropy(entropy: bool | str) -> str:
    """What to send as a seat's entropy: fresh (256 random bits as hex) for True, the text given, "" for False.

    >>> len(fresh_entropy(True)), fresh_entropy(False)
    (64, '')
    """
    if isinstance(entropy, str):
        return entropy
    return secrets.token_hex(32) if entropy else ""


def _seat_of(match: Match, side: str) -> match_pb2.Seat:
    return next(seat for seat in match.seats if seat.side == side)


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value)) or "-"
    return str(value)


__all__ = ["Action", "Match", "MatchEvent", "MatchUpdate", "RECONNECT_OPTIONS", "Seat", "TyphoonClient", "TyphoonError", "Watch",
           "describe_event", "as_time_control", "fresh_entropy", "patiently", "rate_limit_delay", "time_left", "to_action",
           "wait_for_rate_limit"]
