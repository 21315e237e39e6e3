"""A match's past, from its event log: the game at any version (GetMatch with ``version``) and the
audit of the whole log (VerifyMatch).

Both re-simulate with the engine: ``engine.new_game(scenario, options, seed)``, then the seats' logged
commitments and entropy and the actions in order. While a match runs its seed is secret, so the dice are then the ones its log reports
(``fixed_dice``) and the state hash the one logged with the action.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from grpc import StatusCode

import engine
from service.errors import ServiceError
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import convert, entropy_log, rulesets
from service.match.audit import CHECKS, Report, verify_log
from service.match.log_entries import match_event
from service.store.match_store import ENDED, RequestRecord

#: Events read from the store per round trip while loading a whole log.
_PAGE = 1000


async def load_log(store, match_id: str, until_version: int | None = None) -> list[match_pb2.MatchEvent]:
    """Every entry of a match's log, in order; with ``until_version``, those up to that version (and a
    few after it: the rest of the last page read)."""
    events: list[match_pb2.MatchEvent] = []
    while True:
        page = await store.read_events(match_id, events[-1].sequence if events else 0, _PAGE)
        events.extend(match_event(e) for e in page)
        if len(page) < _PAGE or (until_version is not None and page[-1].version > until_version):
            return events


def game_at(events: list[match_pb2.MatchEvent], version: int, seed: str | None = None) -> tuple[engine.Game, str]:
    """The game after the first ``version`` actions of the log, and the state hash logged with the
    last of them ("" at version 0 while the seed is secret). ``seed``: see :func:`games_at`."""
    for _, game, logged_hash in games_at(events, version, version, seed):
        return game, logged_hash
    raise AssertionError("games_at yields every version asked")  # pragma: no cover


def games_at(events: list[match_pb2.MatchEvent], first: int, last: int,
             seed: str | None = None) -> Iterator[tuple[int, engine.Game, str]]:
    """The game after each version from ``first`` to ``last``, with the state hash logged with it, in
    one pass over the log: the same game each time, changed after (use it before asking for the next).

    ``seed``: the match's seed if it is over (its meta says it; the log may be read only up to ``last``),
    else it is looked for in the log. While the seed is secret the dice are the ones the log reports,
    and the game at each version holds only those rolled by then (a position never shows a later roll).
    """
    created = events[0].match_created
    options = convert.struct_to_dict(created.options)
    ruleset = rulesets.for_engine(rulesets.number(created.ruleset))
    if seed is None:
        seed = next((e.seed_revealed.seed for e in events if e.WhichOneof("kind") == "seed_revealed"), None)
    rolled: list[tuple[int, int]] = []  # (version, value) of each die rolled up to ``last``
    if seed is None:
        rolled = [(e.version, e.game_event.die_rolled.value) for e in events
                  if e.version <= last and e.WhichOneof("kind") == "game_event"
                  and e.game_event.WhichOneof("kind") == "die_rolled"]
        game = engine.new_game(created.scenario, options, seed="", fixed_dice=[value for _, value in rolled],
                               ruleset=ruleset)
    else:
        game = engine.new_game(created.scenario, options, seed=seed, ruleset=ruleset)
    drawn = entropy_log.drawn_in_log(events) if seed is None else {}
    dice = game.fixed_dice
    logged_hash = game.state_hash() if seed is not None else ""
    steps = [e for e in events if e.version <= last and e.WhichOneof("kind") in _STEPS]
    done = 0
    for version in range(first, last + 1):
        while done < len(steps) and steps[done].version <= version:
            event, done = steps[done], done + 1
            if entropy_log.replay_event(game, event):
                continue
            entropy_log.restore_drawn(game, drawn.get(event.version, []))
            game.apply(engine.action_from_json(convert.action_from_proto(event.action_submitted.action)))
            logged_hash = event.action_submitted.state_hash
        if seed is None:
            game.fixed_dice = tuple(value for at, value in rolled if at <= version)
        yield version, game, logged_hash
        game.fixed_dice = dice


#: The log entries a re-simulation takes: the actions, and the seats' part in the dice.
_STEPS = ("action_submitted", "entropy_awaited", "entropy_committed", "entropy_contributed")


def revealed_seed(meta: dict[str, str]) -> str | None:
    """The seed of a match that is over (what its log's last entry reveals), None while it is secret."""
    return meta["seed"] if meta.get("status") in ENDED else None


def check_version(version: int, current: int) -> None:
    if not 0 <= version <= current:
        raise ServiceError(StatusCode.OUT_OF_RANGE, "BAD_VERSION",
                           f"version {version} is not in this match's history: it runs from 0 to {current}",
                           current_version=current)


def verification(report: Report) -> api.VerifyMatchResponse:
    """The audit as the API's message."""
    response = api.VerifyMatchResponse(
        verified=report.ok, finished=report.finished, seed_commitment=report.commitment, seed=report.seed,
        actions=report.actions, game_events=report.game_events, final_state_hash=report.final_hash if report.finished
        else "", summary=report.text(max_problems=20), verdict=report.verdict, ruleset=report.ruleset)
    failing = {p.check for p in report.problems}
    for name, description in CHECKS.items():
        problems = [p for p in report.problems if p.check == name]
        if problems:
            outcome, detail = "failed", f"{len(problems)} problem(s); the first: {problems[0].describe()}"
        elif name not in failing and (name in report.skipped or (not report.finished and name != "log")):
            outcome, detail = "not_checked", ("the seed is secret until the match ends" if not report.finished
                                              else report.ruleset_sentence() if report.other_ruleset
                                              else "not checkable after a failed check")
        else:
            outcome, detail = "passed", ""
        response.checks.add(name=name, description=description, outcome=outcome, detail=detail)
    for sequence, side, entropy, drawn, commitment in report.entropy:
        response.entropy.add(sequence=sequence, side=side, entropy=entropy, drawn=drawn, commitment=commitment)
    for sequence, index, logged, recomputed, purpose in report.roll_checks:
        response.rolls.add(sequence=sequence, index=index if isinstance(index, int) else -1,
                           logged=logged if isinstance(logged, int) else 0, recomputed=recomputed, purpose=purpose)
    for problem in sorted(report.problems, key=lambda p: (p.sequence is None, p.sequence or 0)):
        response.problems.add(sequence=problem.sequence or 0, check=problem.check, what=problem.what)
    return response


class Past(Protocol):
    """Where a match's past is computed when not on the event loop of the call (``typhoon serve``: a
    pool of processes, service.guard.history_pool); ``client`` is the caller's address."""

    def admit(self, client: str) -> None:
        """Before anything is read for such a call: raises its refusal when ``client`` asks too often."""

    async def state_at(self, meta: dict[str, str], version: int, client: str) -> match_pb2.GameState:
        """GetMatch's state at a past ``version`` of the match whose meta hash is ``meta``."""

    async def verification(self, final: api.GetMatchResponse, client: str) -> api.VerifyMatchResponse:
        """VerifyMatch's answer for the match as ``final`` shows it now."""

    async def answer(self, meta: dict[str, str], record: RequestRecord, response: str, client: str) -> bytes:
        """The first answer (serialized, a ``response`` message: SubmitActionResponse, ResignResponse) to the
        request ``record`` tells of, in the match whose meta hash is ``meta`` now."""


async def verify_match(store, match_id: str, final: api.GetMatchResponse) -> api.VerifyMatchResponse:
    events = await load_log(store, match_id)
    return verification(verify_log(events, match_id=match_id, final=final, origin="the service"))
