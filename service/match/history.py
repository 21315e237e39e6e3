"""A match's past, from its event log: the game at any version (GetMatch with ``version``) and the
audit of the whole log (VerifyMatch).

Both re-simulate with the engine: ``engine.new_game(scenario, options, seed)``, then the logged entropy
and actions in order. While a match runs its seed is secret, so the dice are then the ones its log reports
(``fixed_dice``) and the state hash the one logged with the action.
"""

from __future__ import annotations

from grpc import StatusCode

import engine
from service.errors import ServiceError
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import convert, rulesets, seat_entropy
from service.match.audit import CHECKS, Report, verify_log
from service.match.log_entries import match_event

#: Events read from the store per round trip while loading a whole log.
_PAGE = 1000


async def load_log(store, match_id: str) -> list[match_pb2.MatchEvent]:
    """Every entry of a match's log, in order."""
    events: list[match_pb2.MatchEvent] = []
    while True:
        page = await store.read_events(match_id, events[-1].sequence if events else 0, _PAGE)
        events.extend(match_event(e) for e in page)
        if len(page) < _PAGE:
            return events


def game_at(events: list[match_pb2.MatchEvent], version: int) -> tuple[engine.Game, str]:
    """The game after the first ``version`` actions of the log, and the state hash logged with the
    last of them ("" at version 0 while the seed is secret)."""
    created = events[0].match_created
    options = convert.struct_to_dict(created.options)
    ruleset = rulesets.for_engine(rulesets.number(created.ruleset))
    seed = next((e.seed_revealed.seed for e in events if e.WhichOneof("kind") == "seed_revealed"), None)
    if seed is None:
        rolls = [e.game_event.die_rolled.value for e in events
                 if e.version <= version and e.WhichOneof("kind") == "game_event"
                 and e.game_event.WhichOneof("kind") == "die_rolled"]
        game = engine.new_game(created.scenario, options, seed="", fixed_dice=rolls, ruleset=ruleset)
    else:
        game = engine.new_game(created.scenario, options, seed=seed, ruleset=ruleset)
    drawn = seat_entropy.drawn_in_log(events) if seed is None else {}
    logged_hash = game.state_hash() if seed is not None else ""
    for event in events:
        kind = event.WhichOneof("kind")
        if event.version > version or kind not in ("action_submitted", "entropy_contributed"):
            continue
        if kind == "entropy_contributed":
            game.contribute_entropy(event.entropy_contributed.side, event.entropy_contributed.entropy)
            continue
        for side, entropy in drawn.get(event.version, ()):
            game.contribute_entropy(side, entropy)
        action = engine.action_from_json(convert.action_from_proto(event.action_submitted.action))
        game.apply(action)
        logged_hash = event.action_submitted.state_hash
    return game, logged_hash


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
    for sequence, side, entropy, drawn in report.entropy:
        response.entropy.add(sequence=sequence, side=side, entropy=entropy, drawn=drawn)
    for sequence, index, logged, recomputed, purpose in report.roll_checks:
        response.rolls.add(sequence=sequence, index=index if isinstance(index, int) else -1,
                           logged=logged if isinstance(logged, int) else 0, recomputed=recomputed, purpose=purpose)
    for problem in sorted(report.problems, key=lambda p: (p.sequence is None, p.sequence or 0)):
        response.problems.add(sequence=problem.sequence or 0, check=problem.check, what=problem.what)
    return response


async def verify_match(store, match_id: str, final: api.GetMatchResponse) -> api.VerifyMatchResponse:
    events = await load_log(store, match_id)
    return verification(verify_log(events, match_id=match_id, final=final, origin="the service"))
