"""The one implementation of the match service: proto requests in, proto responses out.

The gRPC servicer (service/api/grpc_api.py) and the REST routes (service/api/http_api.py) are thin adapters
over :class:`MatchService`; it raises :class:`~service.errors.ServiceError` for every refusal. Game
rules live only in the engine: for each request the service rebuilds the game from the stored
position (``engine.game_from_position``), asks or applies, and commits the result atomically
(``service.store.match_store``).

Service events in the log (``source`` ``service``; engine events have ``source`` ``game``)::

    {"type": "match_created", "scenario": "standard", "options": {...}, "seed_commitment": "<hex>",
     "sides": ["german", "soviet"], "ruleset": 2}
    {"type": "seat_claimed", "side": "german", "player_name": "..."}
    {"type": "entropy_awaited", "side": "soviet"}                          (ruleset 4 on: service.match.seat_entropy)
    {"type": "entropy_committed", "side": "german", "commitment": "..."}
    {"type": "entropy_contributed", "side": "german", "entropy": "..."}
    {"type": "action_submitted", "side": "german", "action": {<engine action JSON>}, "state_hash": "<hex>"}
    {"type": "seed_revealed", "seed": "<seed>", "seed_commitment": "<hex>"}
    {"type": "match_aborted", "side": "soviet", "reason": "..."}    (+ "by_operator": true: service.run.admin)

A match with a time control has clocks (``service.match.clock``): ``match_created`` then also holds
``"time_control"``, ``action_submitted`` ``"time_left"`` (ms by side), and those entries' times are
Redis times.

Every match records the engine ruleset it was started under (``service.match.rulesets``) and is played under
it; a match of a ruleset the engine does not play is shown but not continued.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import math
import re
import secrets
import time
import weakref
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Protocol

import structlog
from grpc import StatusCode

import engine
from engine.data import SIDES
from service import metrics
from service.errors import ServiceError, shutting_down
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import answers, catalog, convert, history, log_entries, log_pages, rulesets, seat_entropy, updates
from service.match import clock as clock_module
from service.match import battles as battle_module
from service.match.battles import battles as battles_of
from service.match.cache import Known, MatchCache
from service.match.log_entries import match_event
from service.match.names import check_name
from service.match.fresh_tokens import new_seat_token
from service.match.seat_tokens import ChosenTokens, check_strength
from service.match.watch_limits import WatchLease, WatchLimits
from service.request_ids import check_request_id
from service.store import deadlines
from service.store import match_store as store_module
from service.store.hub import MatchState, StreamHub
from service.store.match_store import ENDED, Precheck, RequestRecord, Store, StoredEvent

log = structlog.get_logger("typhoon.service")

_MATCH_ID = re.compile(r"^[a-z0-9]{1,64}$")
SEAT_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,128}")
_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_STATUS = {"open": match_pb2.MATCH_STATUS_OPEN, "active": match_pb2.MATCH_STATUS_ACTIVE,
           "finished": match_pb2.MATCH_STATUS_FINISHED, "aborted": match_pb2.MATCH_STATUS_ABORTED}
_STATUS_NAMES = {value: name for name, value in _STATUS.items()}
MAX_RETRIES = 16
#: Limits on requests (the OpenAPI document states them from here).
MAX_PLAYER_NAME = 64
MAX_MATCHES_PAGE = 100
#: Matches a ListMatches call reads at most, whatever its filter skips (then its page is short, with a
#: next_page_token): 2,000 matches' meta hashes took ~35 ms of the event loop.
MAX_LIST_SCAN = 500
#: Matches read per round trip once a status filter has skipped a whole page.
LIST_CHUNK = 100
#: Matches whose status a filtered list reads for the cost of a log entry read (the history budget).
STATUSES_PER_UNIT = 2
MAX_EVENTS_PAGE = 1000
MAX_HEARTBEAT_SECONDS = 60
FINAL_EVENT = log_entries.FINAL_EVENT


@dataclass
class CallContext:
    """What a transport knows about a call besides the request: the bearer token, if any, and the
    caller's address (for the per-client watch cap)."""

    token: str | None = None
    #: Set only by the service itself (the clock sweeper), never by a transport: act for this side.
    service_side: str | None = None
    client: str = ""
    #: The call's rate limits, for its commit script to check (service.guard.in_commit), if any.
    admission: Admission | None = None


class Admission(Protocol):
    """Checks a call's commit runs first (service.guard.in_commit.InCommitAdmission)."""

    def take(self) -> Precheck | None: ...

    async def refusal(self, check: int) -> ServiceError: ...


#: A bound on PreviewBattle's request (a hex has six neighbours: more attackers are never legal).
MAX_PREVIEW_ATTACKERS = 6


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_match_id(clocked: bool = False) -> str:
    """A fresh match id; one with clocks has its keys in the Redis Cluster slot of a deadline set
    (service.store.deadlines)."""
    match_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(16))
    return deadlines.fit_to_shard(match_id) if clocked else match_id


def _err(code: StatusCode, reason: str, message: str, **metadata: object) -> ServiceError:
    return ServiceError(code, reason, message, **metadata)


def _side_holding(meta: dict[str, str], token: str) -> str | None:
    """The side whose seat ``token`` holds in a match, if any (only its hash is stored)."""
    digest = token_hash(token)
    for side in meta["sides"].split(","):
        stored = meta.get(f"seat:{side}:token")
        if stored and hmac.compare_digest(stored, digest):
            return side
    return None


def _check_same_request(recorded_fingerprint: str, fingerprint: str, request_id: str) -> None:
    """A request id seen before must come with the same request."""
    if not hmac.compare_digest(recorded_fingerprint, fingerprint):
        raise _err(StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED",
                   f"request_id {request_id!r} was already used for a different request")


def _not_found(match_id: str) -> ServiceError:
    return _err(StatusCode.NOT_FOUND, "MATCH_NOT_FOUND", f"there is no match {match_id!r}")


def _illegal(error: engine.IllegalAction) -> ServiceError:
    return _err(StatusCode.INVALID_ARGUMENT, error.reason, error.message)


class MatchService:
    """The match service over a :class:`~service.store.match_store.Store` (and a :class:`StreamHub` for watching)."""

    def __init__(self, store: Store, hub: StreamHub | None = None, clock: Callable[[], float] = time.time,
                 cache: MatchCache | None = None, watch_limits: WatchLimits | None = None,
                 seat_watches: updates.SeatWatches | None = None, past: history.Past | None = None,
                 log_cache: log_pages.LogPages | None = None) -> None:
        self.store = store
        #: where GetMatch at a version and VerifyMatch are computed (None: here, on this event loop)
        self.past = past
        self.hub = hub or StreamHub(store)
        self.watch_limits = watch_limits or WatchLimits()
        self.seat_watches = seat_watches or updates.SeatWatches()
        self.clock = clock
        self.clocks = clock_module.Clocks(store)
        self.cache = cache or MatchCache()
        #: encoded log entries of matches that are over (GetEventLog, a stream's catch-up)
        self.log_cache = log_cache or log_pages.LogPages()
        self.chosen_tokens = ChosenTokens(store.redis, lambda match_id: store_module.key(match_id, "meta"))
        self.draining = False
        self._last_refusal = 0.0
        self._calls = _InFlight()

    @property
    def _in_flight(self) -> int:
        return self._calls.count

    def admit(self, *, counted: bool = True) -> contextlib.AbstractContextManager[None]:
        """Around every call of both transports: once :meth:`drain` has begun, a new call is refused
        with UNAVAILABLE ``SHUTTING_DOWN`` (clients retry it, elsewhere if they can) instead of being
        cancelled halfway. ``counted`` calls are waited for by :meth:`drain`; watch streams are not
        (the hub ends them)."""
        if self.draining:
            self._last_refusal = time.monotonic()
            raise shutting_down()
        return self._calls if counted else _NOT_COUNTED

    async def drain(self, timeout: float, quiet: float = 0.2) -> int:
        """Refuse new calls and wait up to ``timeout`` seconds for those in flight, then until no call
        has come for ``quiet`` seconds: calls a busy process had received but not yet started are
        answered SHUTTING_DOWN rather than cancelled by the transport's stop. Returns how many calls
        were still running when the time was up."""
        self.draining = True
        self._last_refusal = time.monotonic()  # calls already received may not have reached admit() yet
        deadline = self._last_refusal + timeout
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._calls.idle.wait(), timeout)
            while time.monotonic() < min(deadline, self._last_refusal + quiet):
                await asyncio.sleep(quiet / 4)
        return self._in_flight

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    # --- CreateMatch -------------------------------------------------------------------------------

    async def create_match(self, request: api.CreateMatchRequest, ctx: CallContext) -> api.CreateMatchResponse:
        scenario = request.scenario or "standard"
        if scenario not in engine.scenario_ids():
            raise _err(StatusCode.INVALID_ARGUMENT, "UNKNOWN_SCENARIO",
                       f"there is no scenario {scenario!r}; scenarios: {', '.join(engine.scenario_ids())}")
        try:
            options = convert.struct_to_dict(request.options) if request.HasField("options") else {}
        except (ValueError, RecursionError) as error:  # NaN, infinity, nesting deeper than JSON allows
            raise _err(StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                       f"options must be plain JSON values: {error}") from None
        seed = secrets.token_hex(32)
        try:
            game = engine.new_game(scenario, options, seed=seed)
        except engine.IllegalAction as error:
            raise _illegal(error) from None
        claims: list[tuple[str, str, str]] = []  # side, player name, token
        for seat in request.seats:
            self._check_side(seat.side)
            self._check_player_name(seat.player_name)
            self._check_seat_token(seat.seat_token)
            seat_entropy.check_commitment(seat.entropy_commitment)
            if any(side == seat.side for side, _, _ in claims):
                raise _err(StatusCode.INVALID_ARGUMENT, "DUPLICATE_SEAT", f"the {seat.side} seat is asked for twice")
            if seat.seat_token and any(token == seat.seat_token for _, _, token in claims):
                raise _err(StatusCode.INVALID_ARGUMENT, "SEAT_TOKEN_IN_USE", "each seat needs a token of its own")
            claims.append((seat.side, seat.player_name, seat.seat_token or new_seat_token()))
        self._check_request_id(request.request_id)
        control = self.clocks.control_of(request.time_control if request.HasField("time_control") else None)

        now = self._now_ms()
        commitment = engine.seed_commitment(seed)
        effective_options = game.options.to_json()
        events = [StoredEvent(1, 0, now, "service", {
            "type": "match_created", "scenario": scenario, "options": effective_options,
            "seed_commitment": commitment, "sides": list(SIDES), "ruleset": engine.RULESET})]
        tokens = []
        meta = {"id": "", "scenario": scenario, "options": json.dumps(effective_options), "sides": ",".join(SIDES),
                "seed": seed, "seed_commitment": commitment, "created_at": str(now), "updated_at": str(now),
                "version": "0", "turn": str(game.turn), "phase": game.phase.name, "result": "",
                "ruleset": str(engine.RULESET),
                "status": "active" if {s for s, _, _ in claims} == set(SIDES) else "open"}
        for side, player, token in claims:
            tokens.append(api.SeatToken(side=side, token=token))
            meta |= {f"seat:{side}:token": token_hash(token), f"seat:{side}:player": player,
                     f"seat:{side}:claimed_at": str(now)}
            events.append(StoredEvent(len(events) + 1, 0, now, "service",
                                      {"type": "seat_claimed", "side": side, "player_name": player}))
        # the seats' commitments (hashes: the seed was drawn without knowing their entropy), if any takes part
        for step in seat_entropy.claim_steps(game, {seat.side: (seat.entropy_commitment, seat.commit_entropy_later)
                                                    for seat in request.seats}):
            events.append(StoredEvent(len(events) + 1, 0, now, "service", step))
            meta |= seat_entropy.logged_fields(step)
        meta["side_to_act"] = game.current_player() or ""
        meta["last_sequence"] = str(len(events))
        state_json = game.canonical_json()
        deadline = await self.clocks.start(control, game, meta, events) if control else None
        match_id = new_match_id(clocked=control is not None)
        if request.request_id:
            fingerprint = hashlib.sha256(request.SerializeToString(deterministic=True)).hexdigest()
            earlier = await self.store.reserve_creation(request.request_id, match_id, fingerprint)
            if earlier is not None:
                return await self._created_before(request, fingerprint, *earlier)
        chosen = [seat.seat_token for seat in request.seats if seat.seat_token]
        await self.chosen_tokens.reserve(match_id, chosen)  # SEAT_TOKEN_REUSED: another match's
        for _ in range(MAX_RETRIES):
            meta["id"] = match_id
            if await self.store.create(match_id, meta, state_json, 0, events, now, deadline):
                break
            await self.chosen_tokens.release(match_id, chosen)  # pragma: no cover - 36**16 ids
            match_id = new_match_id(clocked=control is not None)
            await self.chosen_tokens.reserve(match_id, chosen)  # pragma: no cover
            if request.request_id:  # pragma: no cover - 36**16 ids
                await self.store.move_reservation(request.request_id, match_id, fingerprint)
        else:  # pragma: no cover - 36**16 ids
            raise _err(StatusCode.INTERNAL, "INTERNAL", "could not draw a free match id")
        structlog.contextvars.bind_contextvars(match_id=match_id)
        log.info("match_created", scenario=scenario, options=effective_options, seed_commitment=commitment,
                 seats=[s for s, _, _ in claims], ruleset=engine.RULESET)
        return api.CreateMatchResponse(match=self._match(meta), seat_tokens=tokens)

    async def _created_before(self, request: api.CreateMatchRequest, fingerprint: str, match_id: str,
                              earlier_fingerprint: str) -> api.CreateMatchResponse:
        """The answer to a repeated CreateMatch: the match the first request created, with the seat
        tokens this request chose (the first request may still be writing it: wait a little)."""
        _check_same_request(earlier_fingerprint, fingerprint, request.request_id)
        for _ in range(50):
            (meta,) = await self.store.metas([match_id])
            if meta is not None:
                break
            await asyncio.sleep(0.1)
        else:
            raise _err(StatusCode.ABORTED, "CONTENTION",
                       "the first request with this request_id is still creating the match; retry")
        await self.store.confirm_replicated()  # the first answer may never have been given (NOT_REPLICATED)
        tokens = [api.SeatToken(side=seat.side, token=seat.seat_token) for seat in request.seats
                  if seat.seat_token and _side_holding(meta, seat.seat_token) == seat.side]
        structlog.contextvars.bind_contextvars(match_id=match_id)
        log.info("request_replayed")
        return api.CreateMatchResponse(match=self._match(meta), seat_tokens=tokens)

    # --- JoinMatch ---------------------------------------------------------------------------------

    async def join_match(self, request: api.JoinMatchRequest, ctx: CallContext) -> api.JoinMatchResponse:
        match_id = self._match_id(request.match_id)
        self._check_player_name(request.player_name)
        self._check_seat_token(request.seat_token)
        seat_entropy.check_commitment(request.entropy_commitment)
        meta = await self._meta(match_id)
        sides = meta["sides"].split(",")
        if request.side:
            self._check_side(request.side, sides)
        token = request.seat_token or new_seat_token()
        held = _side_holding(meta, request.seat_token) if request.seat_token else None
        if held is not None:  # a repeat: the seat this token already holds
            if request.side and held != request.side:
                raise _err(StatusCode.INVALID_ARGUMENT, "SEAT_TOKEN_IN_USE",
                           f"this token holds the {held} seat; each seat needs a token of its own")
            log.info("request_replayed", side=held)
            meta = await self._join_commitment(match_id, held, request.entropy_commitment) or meta
            return api.JoinMatchResponse(side=held, seat_token=token, match=self._match(meta))
        if meta["status"] in ENDED:
            raise _err(StatusCode.FAILED_PRECONDITION, "MATCH_FINISHED", f"match {match_id} is over")
        chosen = [request.seat_token] if request.seat_token else []
        marked = await self.chosen_tokens.reserve(match_id, chosen)  # SEAT_TOKEN_REUSED: another match's
        try:
            return await self._claim(match_id, request, meta, token)
        except ServiceError as error:
            await self.chosen_tokens.release(match_id, marked)
            if chosen and error.reason in ("SEAT_TAKEN", "NO_FREE_SEAT"):
                # the token holds no seat here, where the one that does would have been answered: a guess
                # as much as a late join, counted by the guard's key_failures (once per token)
                error.wrong_credential = token_hash(request.seat_token)
            raise

    async def _claim(self, match_id: str, request: api.JoinMatchRequest, meta: dict[str, str],
                     token: str) -> api.JoinMatchResponse:
        """Claim the seat asked for, or the first free one, with ``token`` (JoinMatch)."""
        candidates = [request.side] if request.side else \
            [side for side in meta["sides"].split(",") if f"seat:{side}:token" not in meta]
        for side in candidates:
            claim = await self.store.claim_seat(match_id, side, token_hash(token), request.player_name,
                                                self._now_ms(), {"type": "seat_claimed", "side": side,
                                                                 "player_name": request.player_name},
                                                seat_entropy.claim_fields(meta, side, request.entropy_commitment))
            if claim.outcome in ("OK", "SAME"):  # SAME: a repeat that raced its first request
                log.info("seat_claimed" if claim.outcome == "OK" else "request_replayed", side=side)
                meta = await self._join_commitment(match_id, side, request.entropy_commitment) or await self._meta(match_id)
                return api.JoinMatchResponse(side=side, seat_token=token, match=self._match(meta))
            if claim.outcome == "NOT_FOUND":
                raise _not_found(match_id)
            if claim.outcome == "FINISHED":
                raise _err(StatusCode.FAILED_PRECONDITION, "MATCH_FINISHED", f"match {match_id} is over")
            if request.side:
                raise _err(StatusCode.ALREADY_EXISTS, "SEAT_TAKEN", f"the {side} seat of match {match_id} is taken")
        raise _err(StatusCode.ALREADY_EXISTS, "NO_FREE_SEAT", f"every seat of match {match_id} is taken")

    async def _join_commitment(self, match_id: str, side: str, commitment: str) -> dict[str, str] | None:
        """A joined seat's entropy commitment (none: "", logged only where another seat takes part), if the
        dice still take it (a join is not refused for it: its answer's seats show whether it was): the
        meta after it, or None if nothing was tried."""
        for _ in range(MAX_RETRIES):
            known, _ = await self._known(match_id, meta=True)
            if not commitment and (not known.game.seat_entropy.commitments or side in known.game.seat_entropy.commitments):
                return None  # nobody takes part, or the seat has decided (a repeat)
            try:
                answer = await seat_entropy.step(self, match_id, known, side, seat_entropy.COMMITTED, commitment)
            except ServiceError as error:  # too late (DICE_ROLLED), decided before, an older ruleset...
                log.info("join_commitment_not_taken", side=side, reason=error.reason)
                return known.meta
            if answer is not None:
                return answer[0]
        return None

    # --- ContributeEntropy -------------------------------------------------------------------------

    async def contribute_entropy(self, request: api.ContributeEntropyRequest,
                                 ctx: CallContext) -> api.ContributeEntropyResponse:
        """The caller's seat's entropy commitment or reveal (service.match.seat_entropy)."""
        match_id = self._match_id(request.match_id)
        if bool(request.entropy) == bool(request.commitment):
            raise _err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD" if not request.entropy else "MALFORMED_REQUEST",
                       "give either the entropy (the reveal) or the commitment, not both" if request.entropy
                       else "entropy (the reveal) or commitment is required")
        if request.entropy:
            seat_entropy.check(request.entropy)
            kind, value = seat_entropy.CONTRIBUTED, request.entropy
        else:
            kind, value = seat_entropy.COMMITTED, "" if request.commitment == seat_entropy.NONE else request.commitment
            seat_entropy.check_commitment(value)
        for _ in range(MAX_RETRIES):
            known, _ = await self._known(match_id, meta=True)
            side = self._seat_of(known.meta, ctx.token)
            answer = await seat_entropy.step(self, match_id, known, side, kind, value)
            if answer is not None:
                meta, stored = answer
                log.info(kind, side=side, repeated=not stored)
                return api.ContributeEntropyResponse(match=self._match(meta), events=[match_event(e) for e in stored])
        raise _err(StatusCode.ABORTED, "CONTENTION", "the match changed too often while adding the entropy; retry")

    # --- reading -----------------------------------------------------------------------------------

    async def get_match(self, request: api.GetMatchRequest, ctx: CallContext) -> api.GetMatchResponse:
        match_id = self._match_id(request.match_id)
        if self.past is not None and request.HasField("version"):
            self.past.admit(ctx.client)
        known, _ = await self._known(match_id, meta=True)
        if request.HasField("version") and request.version != known.version:
            if self.past is None:
                return await self._match_at(known, request.version)
            history.check_version(request.version, known.version)
            state = await self.past.state_at(known.meta, request.version, ctx.client)
            return api.GetMatchResponse(match=self._match(known.meta), state=state)
        return api.GetMatchResponse(match=self._match(known.meta),
                                    state=self._state(known.game, known.meta, known.state_hash))

    async def _match_at(self, known: Known, version: int) -> api.GetMatchResponse:
        """GetMatch at a past version: re-simulated from the log (service/match/history.py)."""
        history.check_version(version, known.version)
        events = await history.load_log(self.store, known.meta["id"], until_version=version)
        game, logged_hash = history.game_at(events, version, history.revealed_seed(known.meta))
        return api.GetMatchResponse(match=self._match(known.meta), state=self.past_state(game, logged_hash, known.meta))

    @classmethod
    def past_state(cls, game: engine.Game, logged_hash: str, meta: dict[str, str]) -> match_pb2.GameState:
        """The GameState of a past version: ``game`` then, with the state hash logged with it, in the
        match as ``meta`` says it is now."""
        state = cls._state(game, meta)
        state.state_hash = logged_hash
        return state

    async def verify_match(self, request: api.VerifyMatchRequest, ctx: CallContext) -> api.VerifyMatchResponse:
        match_id = self._match_id(request.match_id)
        if self.past is not None:
            self.past.admit(ctx.client)
        final = await self.get_match(api.GetMatchRequest(match_id=match_id), ctx)
        if self.past is not None:
            return await self.past.verification(final, ctx.client)
        return await history.verify_match(self.store, match_id, final)

    async def list_matches(self, request: api.ListMatchesRequest, ctx: CallContext) -> api.ListMatchesResponse:
        size = request.page_size or 20
        if not 1 <= size <= MAX_MATCHES_PAGE:
            raise _err(StatusCode.INVALID_ARGUMENT, "BAD_PAGE_SIZE", f"page_size must be from 1 to {MAX_MATCHES_PAGE}")
        token = request.page_token
        if token and not re.fullmatch(r"[0-9]{15}:[a-z0-9]{1,64}", token):
            raise _err(StatusCode.INVALID_ARGUMENT, "BAD_PAGE_TOKEN", "page_token is not one this service gave")
        if request.status and request.status not in _STATUS_NAMES:
            raise _err(StatusCode.INVALID_ARGUMENT, "UNKNOWN_STATUS",
                       f"status {request.status} is not a match status; statuses: "
                       f"{', '.join(match_pb2.MatchStatus.Name(n) for n in _STATUS_NAMES)}")
        wanted = _STATUS_NAMES.get(request.status) if request.status else None
        matches: list[match_pb2.Match] = []
        scanned, chunk = 0, size
        while True:
            if scanned:  # a filter skipped what was read: what it reads on spends the caller's history budget
                await log_pages.spend(functools.partial(self.charge, ctx.client), math.ceil(chunk / STATUSES_PER_UNIT))
            page = await self.store.list_ids(token, chunk)
            scanned += len(page.members)
            for member, meta in zip(page.members, await self._listed(page.ids, wanted)):
                if len(matches) >= size:  # the page is full before the index is: the next one starts here
                    return api.ListMatchesResponse(matches=matches, next_page_token=token)
                token = member  # the index's own place, not one rebuilt from the meta (which may differ)
                if meta and (wanted is None or meta.get("status") == wanted):
                    try:
                        matches.append(self._match(meta))
                    except (KeyError, ValueError, TypeError) as error:  # a record no service wrote: not the page's end
                        log.warning("list_skipped_match", match_id=meta.get("id"), error=repr(error))
            if not page.next_token:
                return api.ListMatchesResponse(matches=matches)
            if len(matches) >= size or scanned >= MAX_LIST_SCAN:  # full, or short: the next call goes on from here
                return api.ListMatchesResponse(matches=matches, next_page_token=token)
            chunk = min(max(size, LIST_CHUNK), MAX_LIST_SCAN - scanned)

    async def _listed(self, match_ids: list[str], status: str | None) -> list[dict[str, str] | None]:
        """The meta hashes of the matches of ``match_ids`` that have ``status`` (all if None), None for the
        others: a status filter reads one field of each first (a meta hash is ~25)."""
        if status is None:
            return await self.store.metas(match_ids)
        wanted = [match_id for match_id, each in zip(match_ids, await self.store.statuses(match_ids)) if each == status]
        metas = dict(zip(wanted, await self.store.metas(wanted)))
        return [metas.get(match_id) for match_id in match_ids]

    async def list_scenarios(self, request: api.ListScenariosRequest, ctx: CallContext) -> api.ListScenariosResponse:
        return catalog.scenarios_response()

    async def get_scenario(self, request: api.GetScenarioRequest, ctx: CallContext) -> api.GetScenarioResponse:
        if request.scenario_id not in engine.scenario_ids():
            raise _err(StatusCode.NOT_FOUND, "UNKNOWN_SCENARIO",
                       f"there is no scenario {request.scenario_id!r}; scenarios: {', '.join(engine.scenario_ids())}")
        return api.GetScenarioResponse(scenario=catalog.scenario_message(request.scenario_id))

    async def list_legal_actions(self, request: api.ListLegalActionsRequest,
                                 ctx: CallContext) -> api.ListLegalActionsResponse:
        return (await self.legal_answer(request, ctx)).legal_actions()

    async def list_legal_actions_encoded(self, request: api.ListLegalActionsRequest, ctx: CallContext) -> bytes:
        """ListLegalActions's answer serialized, as the gRPC transport sends it (see service.api.grpc_api)."""
        return (await self.legal_answer(request, ctx)).legal_bytes()

    async def legal_answer(self, request: api.ListLegalActionsRequest, ctx: CallContext) -> Known:
        """The state whose legal actions ListLegalActions answers (each transport encodes them its way)."""
        match_id = self._match_id(request.match_id)
        known, _ = await self._known(match_id)
        rulesets.check_playable(match_id, known.ruleset, known.aborted or known.game.is_terminal())
        return known

    async def preview_battle(self, request: api.PreviewBattleRequest, ctx: CallContext) -> api.PreviewBattleResponse:
        """The battle a declaration would make now (service.match.battles.preview); changes nothing."""
        match_id = self._match_id(request.match_id)
        if not request.defender or not request.attackers:
            raise _err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "a preview needs a defender and one or more attackers")
        if len(request.attackers) > MAX_PREVIEW_ATTACKERS:
            raise _err(StatusCode.INVALID_ARGUMENT, "TOO_MANY_ATTACKERS",
                       f"a preview takes at most {MAX_PREVIEW_ATTACKERS} attackers")
        known, _ = await self._known(match_id)
        if known.aborted:
            raise _err(StatusCode.FAILED_PRECONDITION, "MATCH_ABORTED", f"match {match_id} was aborted")
        rulesets.check_playable(match_id, known.ruleset, known.game.is_terminal())
        try:
            return battle_module.preview(known.game, known.version, request.defender, list(request.attackers))
        except engine.IllegalAction as error:
            raise _illegal(error) from None

    async def get_event_log(self, request: api.GetEventLogRequest, ctx: CallContext) -> api.GetEventLogResponse:
        return api.GetEventLogResponse.FromString((await self.event_log_page(request, ctx)).proto_bytes())

    async def get_event_log_encoded(self, request: api.GetEventLogRequest, ctx: CallContext) -> bytes:
        """GetEventLog's answer serialized, as the gRPC transport sends it (see service.api.grpc_api)."""
        return (await self.event_log_page(request, ctx)).proto_bytes()

    async def event_log_page(self, request: api.GetEventLogRequest, ctx: CallContext,
                             form: log_pages.Form = log_pages.PROTO) -> log_pages.LogPage:
        """GetEventLog's entries, each encoded in ``form`` (each transport its way), once their cost is
        admitted: kept encoded for a match that is over (service.match.log_pages)."""
        match_id = self._match_id(request.match_id)
        size = request.page_size or 100
        if not 1 <= size <= MAX_EVENTS_PAGE:
            raise _err(StatusCode.INVALID_ARGUMENT, "BAD_PAGE_SIZE", f"page_size must be from 1 to {MAX_EVENTS_PAGE}")
        if request.after_sequence < 0:
            raise _err(StatusCode.INVALID_ARGUMENT, "BAD_CURSOR", "after_sequence cannot be negative")
        meta = await self._meta(match_id)
        _check_cursor(request.after_sequence, meta)
        return await log_pages.read_page(self.store, self.log_cache, meta, request.after_sequence, size, form,
                                         functools.partial(self.charge, ctx.client))

    async def charge(self, client: str, cost: int) -> None:
        """Spend ``cost`` (log entries) from ``client``'s ``history`` budget, where there is one (``past``)."""
        if self.past is not None:
            await self.past.charge(client, cost)

    # --- WatchMatch --------------------------------------------------------------------------------

    async def watch_match_encoded(self, request: api.WatchMatchRequest, ctx: CallContext) -> AsyncIterator[bytes]:
        """:meth:`watch_match`, each message serialized (the gRPC transport sends the bytes as they are):
        an event's and an update's bytes are made once per process for all the watchers it reaches."""
        return await self.watch_match(request, ctx, encoded=True)

    async def watch_match(self, request: api.WatchMatchRequest, ctx: CallContext, form: log_pages.Form | None = None,
                          encoded: bool = False) -> AsyncIterator[api.WatchMatchResponse | log_pages.Encoded | bytes]:
        """Check the request, then return the stream (so a refusal comes before anything is sent). Its
        catch-up (the entries after the cursor already in the log) is counted against the caller's
        ``history`` budget; that of a match that is over is sent from the entries kept encoded, as
        :class:`~service.match.log_pages.Encoded` entries in ``form`` if given (the REST transport's),
        else as messages."""
        match_id = self._match_id(request.match_id)
        heartbeat = request.heartbeat_seconds or 15
        if not 1 <= heartbeat <= MAX_HEARTBEAT_SECONDS:
            raise _err(StatusCode.INVALID_ARGUMENT, "BAD_HEARTBEAT",
                       f"heartbeat_seconds must be from 1 to {MAX_HEARTBEAT_SECONDS}")
        if request.after_sequence < 0:
            raise _err(StatusCode.INVALID_ARGUMENT, "BAD_CURSOR", "after_sequence cannot be negative")
        meta = await self._meta(match_id)
        _check_cursor(request.after_sequence, meta)
        seat = self._seat_of(meta, ctx.token) if request.include_legal_actions else None
        finished = meta["status"] in ENDED and request.after_sequence >= int(meta["last_sequence"])
        # updates only: the entries are read to follow the match, never sent, so there is no catch-up to pay for
        catch_up = None if request.updates_only else log_pages.CatchUp(self.log_cache, meta, request.after_sequence,
                                                                       form)
        seat_release = self.seat_watches.acquire(match_id, seat) if seat else None
        try:
            lease = self.watch_limits.acquire(ctx.client)
        except ServiceError:
            if seat_release:
                seat_release()
            raise
        try:  # admitted: its catch-up's cost is spent
            await log_pages.spend(functools.partial(self.charge, ctx.client), catch_up.cost() if catch_up else 0)
        except BaseException:
            lease.release()
            if seat_release:
                seat_release()
            raise
        stream = self._watch(match_id, request.after_sequence, heartbeat, MatchState(meta) if finished else None,
                             lease, seat, seat_release, catch_up if catch_up and catch_up.kept else None, encoded,
                             request.updates_only)
        weakref.finalize(stream, lease.release)  # also when a transport drops the stream unstarted
        if seat_release:
            weakref.finalize(stream, seat_release)
        return stream

    async def _watch(self, match_id: str, after: int, heartbeat: float, finished: MatchState | None,
                     lease: WatchLease, seat: str | None, seat_release: Callable[[], None] | None,
                     catch_up: log_pages.CatchUp | None, encoded: bool = False, updates_only: bool = False
                     ) -> AsyncIterator[api.WatchMatchResponse | log_pages.Encoded | bytes]:
        sent, last, ended = 0, after, "shutdown"
        final = False  # the log's last entry was sent: its update ends the stream
        try:
            if catch_up is not None:  # a match that is over: its log from the entries kept encoded, then its end
                async for entry in catch_up.entries(self.store):  # PROTO form: a whole WatchMatchResponse
                    if catch_up.form is not None:
                        yield entry
                    else:
                        yield entry.data if encoded else api.WatchMatchResponse.FromString(entry.data)
                    sent, last = sent + 1, entry.sequence
                finished = MatchState(catch_up.meta)
            if finished is not None:
                ended = "finished"
                yield await self._update_response(finished, seat, encoded)
                return
            async for item in self.hub.follow(match_id, after, heartbeat):
                if isinstance(item, StoredEvent):
                    if updates_only:  # read all the same: the updates follow them
                        pass
                    elif not encoded:
                        yield api.WatchMatchResponse(event=match_event(item))
                    else:  # the hub hands one object to every local watcher of the match: encoded once
                        if item.wire is None:
                            item.wire = api.WatchMatchResponse(event=match_event(item)).SerializeToString()
                        yield item.wire
                    sent, last = sent + 1, item.seq
                    final = final or (item.data.get("type") == FINAL_EVENT and item.source == "service")
                elif isinstance(item, MatchState):
                    yield await self._update_response(item, seat, encoded)
                    if final:
                        ended = "finished"
                        return
                elif final:  # the last update is not coming (the match was deleted): end anyway
                    ended = "finished"
                    return
                else:
                    heartbeat_message = api.WatchMatchResponse(heartbeat=api.Heartbeat(
                        last_sequence=item, time=convert.timestamp(self._now_ms())))
                    yield heartbeat_message.SerializeToString() if encoded else heartbeat_message
        except (GeneratorExit, asyncio.CancelledError):
            ended = "client_gone"
            raise
        finally:
            lease.release()
            if seat_release:
                seat_release()
            log.info("watch_ended", match_id=match_id, reason=ended, events=sent, after_sequence=after,
                     last_sequence=last)

    async def _update_response(self, state: MatchState, seat: str | None,
                               encoded: bool) -> api.WatchMatchResponse | bytes:
        """The WatchMatch message of ``state`` for ``seat``'s view; ``encoded``: serialized, once per
        state and view for all the watchers of this process."""
        view = await self.seat_view(state, seat)
        if not encoded:
            return api.WatchMatchResponse(update=view)
        key = ("wire", seat if view.HasField("legal_actions") else None)
        wire = state.cached.get(key)
        if wire is None:
            wire = state.cached[key] = api.WatchMatchResponse(update=view).SerializeToString()
        return wire

    async def seat_view(self, state: MatchState, seat: str | None) -> api.MatchUpdate:
        """The update of ``state`` (service.match.updates), with the legal actions and the game state if
        ``seat`` is the side to act at its version (what a bot needs to choose; nothing when the match
        has moved on since, or is of another ruleset: a later update carries them). Made once per state
        and seat, whoever asks (shared: never change it)."""
        update = updates.update_of(state)
        if seat is None or update.side_to_act != seat:
            return update
        if seat not in state.cached:
            held = self.cache.get(update.match_id)
            if held is not None and (held.version, held.seq) == (update.version, state.last_sequence):
                known = held  # this very state (a commit of this process, or a read since): no read
            else:
                known, _ = await self._known(update.match_id)
            view = update
            if known.version == update.version and not known.aborted and known.ruleset == engine.RULESET:
                view = api.MatchUpdate()
                view.CopyFrom(update)
                view.legal_actions.MergeFrom(known.legal_actions())
                view.state.CopyFrom(self._state(known.game, state.meta, known.state_hash))
            state.cached[seat] = view
        return state.cached[seat]

    async def match_updates(self, match_id: str, seat: str | None,
                            heartbeat: float = 15.0) -> AsyncIterator[api.MatchUpdate]:
        """Where the match stands now, then after each change, until it is over (the updates WatchMatch
        sends, without the log entries): what the ladder's Seek sends of a player's matches. ``seat``:
        add the legal actions and the state whenever that side is to act. Ends when the hub closes."""
        meta = await self._meta(match_id)
        if meta["status"] in ENDED:
            yield await self.seat_view(MatchState(meta), seat)
            return
        async for item in self.hub.follow(match_id, int(meta["last_sequence"]), heartbeat):
            if isinstance(item, MatchState):
                update = await self.seat_view(item, seat)
                yield update
                if item.meta.get("status") in ENDED:
                    return

    # --- acting ------------------------------------------------------------------------------------

    async def submit_action(self, request: api.SubmitActionRequest, ctx: CallContext) -> api.SubmitActionResponse:
        match_id = self._match_id(request.match_id)
        if not request.HasField("action") or request.action.WhichOneof("kind") is None:
            raise _err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "the request has no action")
        try:
            action = engine.action_from_json(convert.action_from_proto(request.action))
        except engine.IllegalAction as error:
            raise _illegal(error) from None
        if isinstance(action, engine.TimeForfeit):
            raise _err(StatusCode.INVALID_ARGUMENT, "SERVICE_ACTION",
                       "time_forfeit is applied by the service when a clock runs out; to give up, resign")
        expected = request.expected_version if request.HasField("expected_version") else None
        if expected is not None and expected < 0:
            raise _err(StatusCode.OUT_OF_RANGE, "BAD_VERSION",
                       f"expected_version is a version of the match (0 or more), not {expected}")
        return await self._act(match_id, ctx, action, expected, request.request_id, "SubmitAction",
                               api.SubmitActionResponse)

    async def resign(self, request: api.ResignRequest, ctx: CallContext) -> api.ResignResponse:
        match_id = self._match_id(request.match_id)
        return await self._act(match_id, ctx, None, None, request.request_id, "Resign", api.ResignResponse)

    async def forfeit_on_time(self, match_id: str, ctx: CallContext) -> api.SubmitActionResponse:
        """The clock sweeper's TimeForfeit for ``ctx.service_side`` (see service.match.clock)."""
        return await self._act(match_id, ctx, engine.TimeForfeit(ctx.service_side), None, "", "TimeForfeit",
                               api.SubmitActionResponse)

    async def forfeit_side_on_time(self, match_id: str, side: str) -> api.SubmitActionResponse:
        """:meth:`forfeit_on_time` as the clocks call it (service.match.clock.Forfeit)."""
        return await self.forfeit_on_time(match_id, CallContext(service_side=side))

    async def _act(self, match_id: str, ctx: CallContext, action: engine.Action | None, expected: int | None,
                   request_id: str, rpc: str, response_type: type) -> Any:
        self._check_request_id(request_id)
        guess = self.cache.get(match_id)
        if guess is not None and guess.meta is not None and expected in (None, guess.version):
            # on what this process last knew, without reading: the commit refuses it if it is out of date
            try:
                answer = await self._try(match_id, guess, ctx, action, expected, request_id, rpc, response_type)
                if answer is not None:
                    return answer
            except ServiceError as error:  # a refusal found on a guess is decided again on a read
                if error.reason == "RATE_LIMITED":  # by the commit's own checks: final
                    raise
        for _ in range(MAX_RETRIES):
            known, record = await self._known(match_id, meta=True, request_id=request_id)
            if request_id and record:
                side = ctx.service_side or self._seat_of(known.meta, ctx.token)
                fingerprint = _fingerprint(rpc, side, action or engine.Resign(side), expected)
                return await self._answer(match_id, record, fingerprint, request_id, response_type, ctx.client)
            if expected is not None and expected != known.version:
                raise _stale(known.version, expected)
            answer = await self._try(match_id, known, ctx, action, expected, request_id, rpc, response_type)
            if answer is not None:
                return answer
        raise _err(StatusCode.ABORTED, "CONTENTION", "the match changed too often while applying the action; retry")

    async def _try(self, match_id: str, known: Known, ctx: CallContext, action: engine.Action | None,
                   expected: int | None, request_id: str, rpc: str, response_type: type) -> Any:
        """Apply the action to ``known`` and commit it: the response, or None if the match had moved on."""
        side = ctx.service_side or self._seat_of(known.meta, ctx.token)
        self.clocks.check_not_aborted(known.meta)
        rulesets.check_playable(match_id, known.ruleset, known.game.is_terminal())
        if action is None:  # Resign: the caller's own side
            action = engine.Resign(side)
        fingerprint = _fingerprint(rpc, side, action, expected)
        game = known.game.clone()
        self._check_turn(game, action, side)
        try:
            game_events = game.apply(action)
        except engine.IllegalAction as error:
            raise _illegal(error) from None

        version, seq, now = known.version + 1, known.seq, self._now_ms()
        state_json = game.canonical_json()
        state_hash = store_module.state_hash(state_json)  # = game.state_hash()
        stored = [StoredEvent(seq + 1, version, now, "service", {
            "type": "action_submitted", "side": side, "action": action.to_json(), "state_hash": state_hash})]
        stored += [StoredEvent(seq + 2 + i, version, now, "game", e.to_json()) for i, e in enumerate(game_events)]
        result = game.result()
        if result:
            stored.append(StoredEvent(seq + len(stored) + 1, version, now, "service", {
                "type": FINAL_EVENT, "seed": game.seed, "seed_commitment": known.meta["seed_commitment"]}))
        meta_update = {
            "version": str(version), "last_sequence": str(stored[-1].seq), "turn": str(game.turn),
            "phase": game.phase.name, "side_to_act": game.current_player() or "", "updated_at": str(now),
            "result": json.dumps(result.to_json()) if result else ""}
        if result:
            meta_update["status"] = "finished"
        if game.rolls and not known.game.rolls:  # the first die: the entropy drawn for the seats that gave none
            meta_update |= seat_entropy.drawn_fields(game_events)
        deadline = await self.clocks.settle(known.meta, side, action, game, stored, meta_update)
        meta_update["updated_at"] = str(stored[0].time_ms)  # a change's time is its events' (service.match.answers)
        meta = known.meta | meta_update
        response = response_type(version=version, events=[match_event(e) for e in stored], match=self._match(meta))
        record = RequestRecord(version, stored[0].seq, stored[-1].seq, fingerprint[:16]) if request_id else None
        outcome = await self.store.commit(match_id, known.version, known.seq, version, state_json, meta_update,
                                          stored, request_id, record, deadline,
                                          expected_hash=known.state_hash, new_hash=state_hash,
                                          precheck=ctx.admission.take() if ctx.admission else None)
        if outcome.outcome == "REFUSED":
            raise await ctx.admission.refusal(outcome.refused_by)
        if outcome.outcome == "OK":
            self.cache.put(match_id, Known(version, stored[-1].seq, state_hash, game, meta))
            log.info("action_applied", side=side, action=action.type, version=version,
                     events=len(stored), finished=bool(result))
            return response
        if outcome.outcome == "DUPLICATE":
            return await self._answer(match_id, outcome.record, fingerprint, request_id, response_type, ctx.client)
        if outcome.outcome == "NOT_FOUND":
            raise _not_found(match_id)
        if outcome.outcome == "STALE" and expected is not None:
            raise _stale(outcome.current_version, expected)
        if outcome.outcome == "FLAG":  # the clock ran out before this commit: the flag wins
            await self.clocks.too_late(self.forfeit_side_on_time, match_id)
        if outcome.outcome == "EARLY":
            raise _err(StatusCode.FAILED_PRECONDITION, "CLOCK_RUNNING", "the clock has not run out")
        self.cache.forget(match_id)
        log.debug("commit_retry", outcome=outcome.outcome)  # lost a race: read again and retry
        metrics.COMMIT_RETRIES.inc()
        return None

    async def _answer(self, match_id: str, record: RequestRecord, fingerprint: str, request_id: str,
                      response_type: type, client: str = "") -> Any:
        """The first answer to a request id, rebuilt from the log (service.match.answers): a replay of the
        match up to it, in ``past`` when there is one (``client`` is the caller's address)."""
        _check_same_request(record.fingerprint, fingerprint[:len(record.fingerprint)], request_id)
        if self.past is not None:
            answer = response_type.FromString(
                await self.past.answer(await self._meta(match_id), record, response_type.DESCRIPTOR.name, client))
        else:
            events = await answers.events_through(self.store, match_id, record.last_seq)
            answer = self.replayed_answer(await self._meta(match_id), events, record, response_type)
        log.info("request_replayed", request_id=request_id)
        return answer

    @classmethod
    def replayed_answer(cls, meta: dict[str, str], events: list[StoredEvent], record: RequestRecord,
                        response_type: type) -> Any:
        """The answer of the request ``record`` tells of, from the match's ``meta`` now and its log ``events``
        through the request's last."""
        past = answers.meta_at(meta, events, record.version, record.last_seq)
        return response_type(version=record.version, match=cls._match(past),
                             events=[match_event(e) for e in events if record.first_seq <= e.seq <= record.last_seq])

    def _check_turn(self, game: engine.Game, action: engine.Action, side: str) -> None:
        """Whose action this is: the side an action names (Resign), else the side to act."""
        waiting = game.entropy_wait() if game.seat_entropy.commitments and \
            not isinstance(action, (engine.Resign, engine.TimeForfeit)) else None
        if waiting:
            raise _err(StatusCode.FAILED_PRECONDITION, engine.Reason.ENTROPY_AWAITED,
                       f"the game waits for the {waiting[0]} seat's entropy "
                       f"{'commitment' if waiting[1] == 'entropy_commitment' else 'reveal'} before any action "
                       f"(ContributeEntropy; engine/seat_entropy.py)", side=waiting[0], awaiting=waiting[1], seat=side)
        to_act = game.current_player()
        if to_act is None:
            result = game.result()
            raise _err(StatusCode.FAILED_PRECONDITION, "GAME_OVER",
                       f"the game is over: {result.winner} won ({result.reason})" if result else "the game is over")
        named = getattr(action, "side", None)
        if isinstance(named, str):
            self._check_side(named)
            if named != side:
                raise _err(StatusCode.PERMISSION_DENIED, "WRONG_SIDE",
                           f"your seat is {side}; you cannot act for {named}", seat=side)
            return
        if to_act != side:
            raise _err(StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN",
                       f"it is the {to_act} player's turn ({game.phase.name} phase); your seat is {side}",
                       side_to_act=to_act, seat=side)

    async def check_seat(self, match_id: str, token: str | None) -> str:
        """The side ``token`` acts for in the match (UNAUTHENTICATED if none): what acting checks first.
        A seat keeps its token once claimed, so a token this process already saw hold a seat is
        answered without reading; any other is looked up in Redis."""
        match_id = self._match_id(match_id)
        held = self.cache.get(match_id)
        side = _side_holding(held.meta, token) if token and held is not None and held.meta is not None else None
        return side or self._seat_of(await self._meta(match_id), token)

    # --- helpers -----------------------------------------------------------------------------------

    @staticmethod
    def _match_id(match_id: str) -> str:
        if not match_id:
            raise _err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "match_id is required")
        if not _MATCH_ID.match(match_id):
            raise _not_found(match_id)
        structlog.contextvars.bind_contextvars(match_id=match_id)
        return match_id

    @staticmethod
    def _check_side(side: str, sides: list[str] | tuple[str, ...] = SIDES) -> None:
        if side not in sides:
            raise _err(StatusCode.INVALID_ARGUMENT, "UNKNOWN_SIDE",
                       f"{side!r} is not a side; sides: {', '.join(sides)}")

    @staticmethod
    def _check_seat_token(token: str) -> None:
        if token and not SEAT_TOKEN.fullmatch(token):
            raise _err(StatusCode.INVALID_ARGUMENT, "BAD_SEAT_TOKEN",
                       "a seat token chosen by the caller must have 32 to 128 characters from A-Z, a-z, 0-9, - and _")
        if token:
            check_strength(token)  # at least 128 bits, no pattern (service.match.seat_tokens)

    @staticmethod
    def _check_request_id(request_id: str) -> None:
        check_request_id(request_id)

    @staticmethod
    def _check_player_name(name: str) -> None:
        if len(name) > MAX_PLAYER_NAME:
            raise _err(StatusCode.INVALID_ARGUMENT, "NAME_TOO_LONG",
                       f"player_name has {len(name)} characters; at most {MAX_PLAYER_NAME} are allowed")
        check_name("player_name", name)

    async def _meta(self, match_id: str) -> dict[str, str]:
        (meta,) = await self.store.metas([match_id])
        if meta is None:
            raise _not_found(match_id)
        return meta

    async def _known(self, match_id: str, meta: bool = False,
                     request_id: str = "") -> tuple[Known, tuple[str, bytes] | None]:
        """Read the match from Redis (its meta hash too if ``meta``, the record of ``request_id`` if
        given); its Game is rebuilt only if this process does not already hold that state's."""
        held = self.cache.get(match_id)
        snapshot = await self.store.load(match_id, request_id, meta=meta,
                                         known_hash=held.state_hash if held else "")
        if snapshot is None:
            raise _not_found(match_id)
        if held is not None and held.same_state(snapshot.version, snapshot.seq, snapshot.state_hash):
            known = held
            if meta:
                known.meta = snapshot.meta
        else:
            game = held.game if held is not None and snapshot.state_json is None else \
                engine.game_from_position(json.loads(snapshot.state_json),
                                          rulesets.for_engine(rulesets.number(snapshot.ruleset)))
            known = Known(snapshot.version, snapshot.seq, snapshot.state_hash, game, snapshot.meta if meta else None,
                          aborted=snapshot.status == "aborted", ruleset=rulesets.number(snapshot.ruleset))
            if snapshot.state_hash:  # matches written before the store kept hashes are not remembered
                self.cache.put(match_id, known)
        return known, snapshot.request

    @staticmethod
    def _seat_of(meta: dict[str, str], token: str | None) -> str:
        if not token:
            raise _err(StatusCode.UNAUTHENTICATED, "TOKEN_MISSING",
                       "acting needs a seat token: send 'authorization: Bearer <token>'")
        side = _side_holding(meta, token)
        if side is None:
            raise _err(StatusCode.UNAUTHENTICATED, "TOKEN_INVALID", "the token is not a seat token of this match")
        return side

    @staticmethod
    def _match(meta: dict[str, str]) -> match_pb2.Match:
        sides = meta["sides"].split(",")
        status = meta.get("status", "open")
        match = match_pb2.Match(
            match_id=meta["id"], scenario=meta["scenario"], options=convert.options_struct(meta["options"]),
            status=_STATUS[status], version=int(meta["version"]), last_sequence=int(meta["last_sequence"]),
            turn=int(meta["turn"]), phase=meta["phase"], side_to_act=meta["side_to_act"],
            seed_commitment=meta["seed_commitment"], seed=meta["seed"] if status in ENDED else "",
            created_at=convert.timestamp(meta["created_at"]), updated_at=convert.timestamp(meta["updated_at"]),
            ruleset=rulesets.of_meta(meta))
        for side in sides:
            claimed = f"seat:{side}:token" in meta
            seat = match.seats.add(side=side, claimed=claimed, player_name=meta.get(f"seat:{side}:player", ""))
            if claimed:
                seat.claimed_at.CopyFrom(convert.timestamp(meta.get(f"seat:{side}:claimed_at")))
            seat_entropy.describe(meta, seat)
        clock_module.describe(meta, match)
        result = convert.result_to_proto(json.loads(meta["result"]) if meta.get("result") else None)
        if result:
            match.result.CopyFrom(result)
        return match

    @staticmethod
    def _state(game: engine.Game, meta: dict[str, str], state_hash: str = "") -> match_pb2.GameState:
        """The GameState of ``game``; ``state_hash``: its hash if known already (the store keeps it)."""
        position = game.to_json()
        state = match_pb2.GameState(
            turn=game.turn, phase=game.phase.name, side_to_act=game.current_player() or "",
            weather=game.weather().id,
            units=[match_pb2.Unit(id=u["id"], hex=u["hex"], strength=u["strength"]) for u in position["units"]],
            pool=[match_pb2.PoolUnit(id=p["id"], available_from=p["available_from"]) for p in position["pool"]],
            city_control=position["city_control"], victory_points=game.victory_points(),
            elimination_points=position["elimination_points"], capital_bonus=position["capital_bonus"],
            rolls=position["rolls"], state_hash=state_hash or game.state_hash())
        if meta.get("status") == "aborted":
            state.side_to_act = ""
        pending = convert.pending_to_proto(game.pending_decision())
        if pending:
            state.pending_decision.CopyFrom(pending)
        state.battles.extend(battles_of(game))
        result = convert.result_to_proto(position.get("result"))
        if result:
            state.result.CopyFrom(result)
        if meta.get("status") not in ENDED:
            position.pop("seed", None)
        state.position_json = json.dumps(position, sort_keys=True, separators=(",", ":"))
        return state


class _InFlight:
    """The calls in flight (:meth:`MatchService.admit`): a context manager entered by each, a class
    rather than a generator (~0.3 µs a call instead of ~1.2)."""

    __slots__ = ("count", "idle")

    def __init__(self) -> None:
        self.count = 0
        self.idle = asyncio.Event()
        self.idle.set()

    def __enter__(self) -> None:
        self.count += 1
        self.idle.clear()

    def __exit__(self, *exc_info: object) -> None:
        self.count -= 1
        if not self.count:
            self.idle.set()


_NOT_COUNTED = contextlib.nullcontext()


def _fingerprint(rpc: str, side: str, action: engine.Action, expected: int | None) -> str:
    """What identifies a SubmitAction/Resign request: a repeat of its request id must match it."""
    return hashlib.sha256(json.dumps([rpc, side, action.to_json(), expected], sort_keys=True).encode()).hexdigest()


def _check_cursor(after_sequence: int, meta: dict[str, str]) -> None:
    """A cursor past the end of the log is not one this service gave (another match's, a typo)."""
    last = int(meta["last_sequence"])
    if after_sequence > last:
        raise _err(StatusCode.OUT_OF_RANGE, "CURSOR_PAST_END",
                   f"after_sequence {after_sequence} is past the end of the log (its last sequence is {last})",
                   last_sequence=last)


def _stale(current: int, expected: int) -> ServiceError:
    return _err(StatusCode.ABORTED, "STALE_VERSION",
                f"the match is at version {current}, not {expected}: read it again and choose anew",
                current_version=current, expected_version=expected)


__all__ = ["CallContext", "MatchService", "token_hash"]
