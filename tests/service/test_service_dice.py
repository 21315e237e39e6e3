"""The seats' entropy through the service (issue 37, ruleset 4): given in the seat claim or with
ContributeEntropy after the commitment, once and before the first die; drawn from the seed for a seat
that gave none; logged in order between the commitment and the reveal; recomputed by VerifyMatch and
`typhoon replay verify`; every roll given by the log alone."""

from __future__ import annotations

import json
import secrets
import threading

import grpc
import pytest

import engine
from clients.client import TyphoonError
from clients.ladder import LadderBot, LadderClient
from clients.replay import Replay, verify_log
from clients.sdk import start_bot
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import history
from service.match.audit import recompute_drawn, recompute_mixed_die
from service.processes import ROOT
from service_helpers import wait_for

GERMAN = "g" * 40
SOVIET = "S0v1et-entropy_" + "7" * 20


def kinds(log) -> list[str]:
    """Each log entry's kind, game events by their own kind."""
    return [e.game_event.WhichOneof("kind") if e.WhichOneof("kind") == "game_event" else e.WhichOneof("kind")
            for e in log]


def seat(match, side: str):
    return next(s for s in match.seats if s.side == side)


def refused(call) -> TyphoonError:
    with pytest.raises(TyphoonError) as caught:
        call()
    return caught.value


def to_first_die(client, match_id: str, token: str) -> list:
    """Play the German side (first choices, attacking when it can) until the match's first die: the
    answers' events."""
    events = []
    while not any(e.game_event.WhichOneof("kind") == "die_rolled" for e in events):
        legal = client.legal_actions(match_id)
        assert legal.side_to_act == "german", "no battle on turn 1"
        actions = [a for a in legal.actions if a.WhichOneof("kind") in ("declare_attack", "resolve_battle",
                                                                         "close_declarations")] or legal.actions
        events += client.submit(match_id, token, actions[0], expected_version=legal.version).events
    return events


def test_entropy_in_the_seat_claims_comes_after_the_commitment_in_the_log(client):
    match, tokens = client.create_match(seats=["german"])
    created = client._call("CreateMatch", api.CreateMatchRequest(seats=[api.SeatClaim(side="german", entropy=GERMAN)]))
    log = list(client.event_log(created.match.match_id))
    assert kinds(log) == ["match_created", "seat_claimed", "entropy_contributed"]
    assert (log[2].entropy_contributed.side, log[2].entropy_contributed.entropy, log[2].version) == ("german", GERMAN, 0)
    assert seat(created.match, "german").entropy == GERMAN and not seat(created.match, "german").entropy_drawn
    # JoinMatch: the seat, then its entropy
    joined = client.join_match(match.match_id, "soviet", entropy=SOVIET)
    log = list(client.event_log(match.match_id))
    assert kinds(log) == ["match_created", "seat_claimed", "seat_claimed", "entropy_contributed"]
    assert log[3].entropy_contributed.side == joined.side == "soviet"
    shown = client.get_match(match.match_id)
    assert seat(shown.match, "soviet").entropy == SOVIET and seat(shown.match, "german").entropy == ""
    position = json.loads(shown.state.position_json)
    assert position["entropy"] == {"soviet": SOVIET} and "seed" not in position


def test_contribute_entropy_once_before_the_first_die(client, http):
    match, tokens = client.create_match(seats=["german", "soviet"])
    answer = client.contribute_entropy(match.match_id, tokens["german"], GERMAN)
    assert [e.entropy_contributed.entropy for e in answer.events] == [GERMAN]
    assert seat(answer.match, "german").entropy == GERMAN and answer.match.version == 0
    # the same again (a retry) is answered without a change; another is refused and changes nothing
    again = client.contribute_entropy(match.match_id, tokens["german"], GERMAN)
    assert not again.events and again.match.last_sequence == answer.match.last_sequence
    error = refused(lambda: client.contribute_entropy(match.match_id, tokens["german"], SOVIET))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ENTROPY_GIVEN")
    error = refused(lambda: client.contribute_entropy(match.match_id, tokens["soviet"], "too short"))
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_ENTROPY") and "32 to 128" in error.message
    error = refused(lambda: client._call("ContributeEntropy",
                                         api.ContributeEntropyRequest(match_id=match.match_id, entropy=SOVIET)))
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    # over REST too
    url = f"/v1/matches/{match.match_id}/entropy"
    response = http.post(url, json={"entropy": "bad|entropy"}, headers={"Authorization": f"Bearer {tokens['soviet']}"})
    assert response.status_code == 400 and response.json()["error"]["reason"] == "BAD_ENTROPY"
    response = http.post(url, json={"entropy": SOVIET}, headers={"Authorization": f"Bearer {tokens['soviet']}"})
    assert response.status_code == 200
    assert response.json()["events"][0]["entropy_contributed"] == {"side": "soviet", "entropy": SOVIET}
    assert client.get_match(match.match_id).match.last_sequence == answer.match.last_sequence + 1
    # once the first die is rolled, no more: both sides gave theirs, nothing is drawn
    events = to_first_die(client, match.match_id, tokens["german"])
    assert "entropy_drawn" not in kinds(events)
    error = refused(lambda: client.contribute_entropy(match.match_id, tokens["soviet"], SOVIET + "x"))
    assert error.reason == "ENTROPY_GIVEN"


def test_a_seat_that_gives_none_before_the_first_die_gets_one_drawn_and_a_late_join_brings_none(client):
    match, tokens = client.create_match(seats=["german"])
    client.contribute_entropy(match.match_id, tokens["german"], GERMAN)
    events = to_first_die(client, match.match_id, tokens["german"])
    drawn = [e.game_event.entropy_drawn for e in events if e.game_event.WhichOneof("kind") == "entropy_drawn"]
    assert [d.side for d in drawn] == ["soviet"] and len(drawn[0].entropy) == 64
    assert kinds(events).index("entropy_drawn") == kinds(events).index("die_rolled") - 1
    shown = client.get_match(match.match_id).match
    assert seat(shown, "soviet").entropy == drawn[0].entropy and seat(shown, "soviet").entropy_drawn
    first_die, first_die_hash = shown.version, client.get_match(match.match_id).state.state_hash
    # the Soviet player joins now, bringing entropy: the seat is claimed, its entropy not taken
    joined = client.join_match(match.match_id, "soviet", entropy=SOVIET)
    shown = client.get_match(match.match_id).match
    assert joined.side == "soviet" and seat(shown, "soviet").entropy == drawn[0].entropy
    assert kinds(client.event_log(match.match_id)).count("entropy_contributed") == 1
    error = refused(lambda: client.contribute_entropy(match.match_id, joined.token, SOVIET))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ENTROPY_GIVEN")
    # the match as it was, re-simulated from the log while the seed is secret, holds the entropy too
    tokens["soviet"] = joined.token
    legal = client.legal_actions(match.match_id)
    client.submit(match.match_id, tokens[legal.side_to_act], legal.actions[0], expected_version=legal.version)
    for version, entropy in ((first_die - 1, {"german": GERMAN}),
                             (first_die, {"german": GERMAN, "soviet": drawn[0].entropy})):
        past = client._call("GetMatch", api.GetMatchRequest(match_id=match.match_id, version=version))
        assert json.loads(past.state.position_json)["entropy"] == entropy
    assert past.state.state_hash == first_die_hash
    # once over, the drawn entropy is the seed's
    client.resign(match.match_id, tokens["german"])
    seed = client.get_match(match.match_id).match.seed
    assert drawn[0].entropy == recompute_drawn(seed, "soviet") == engine.drawn_entropy(seed, "soviet")
    check_by_hand(list(client.event_log(match.match_id)))
    error = refused(lambda: client.contribute_entropy(match.match_id, joined.token, SOVIET))
    assert error.reason == "GAME_OVER"


def test_a_match_of_bots_mixes_their_fresh_entropy_and_verifies_from_its_log(service, client):
    match, _ = client.create_match()
    bots = [start_bot("random", service.target, match_id=match.match_id, side=side, seed=n)
            for n, side in enumerate(("german", "soviet"))]
    for bot, thread in bots:
        thread.join(900)
        assert bot.error is None and bot.result.finished
        assert len(bot.result.entropy) == 64 and not bot.result.entropy_refused
    log = list(client.event_log(match.match_id))
    order = kinds(log)
    # the commitment first, each seat's entropy before the first die, the reveal last
    assert order[0] == "match_created" and order[-1] == "seed_revealed"
    given = {e.entropy_contributed.side: e.entropy_contributed.entropy for e in log
             if e.WhichOneof("kind") == "entropy_contributed"}
    assert given == {bot.result.side: bot.result.entropy for bot, _ in bots}
    assert max(i for i, k in enumerate(order) if k == "entropy_contributed") < order.index("die_rolled")
    assert "entropy_drawn" not in order
    # every roll is the one the revealed seed and the seats' entropy give
    seed = log[-1].seed_revealed.seed
    rolls = [e.game_event.die_rolled for e in log if e.WhichOneof("kind") == "game_event"
             and e.game_event.WhichOneof("kind") == "die_rolled"]
    assert rolls and [r.value for r in rolls] == [recompute_mixed_die(seed, given, r.index) for r in rolls]
    # VerifyMatch and `typhoon replay verify` recompute them
    final = client.get_match(match.match_id)
    report = verify_log(log, match.match_id, final)
    assert report.ok and report.verdict == "verified", report.text()
    assert "seats' entropy" in report.text() and {side for _, side, _, _ in report.entropy} == {"german", "soviet"}
    answer = client._call("VerifyMatch", api.VerifyMatchRequest(match_id=match.match_id))
    assert answer.verified and {(e.side, e.entropy, e.drawn) for e in answer.entropy} == {
        (side, value, False) for side, value in given.items()}
    assert all(r.recomputed == r.logged for r in answer.rolls) and len(answer.rolls) == len(rolls)
    # the log alone gives every roll: a replay from it rolls the same dice at the same steps
    replay = Replay(log)
    replayed = [e.game_event.die_rolled.value for step in replay.steps for e in step.events
                if e.game_event.WhichOneof("kind") == "die_rolled"]
    assert replay.stopped_at is None and replayed == [r.value for r in rolls]
    assert replay.steps[-1].game.state_hash() == final.state.state_hash
    game, logged_hash = history.game_at(log, final.match.version)
    assert game.state_hash() == logged_hash == final.state.state_hash
    # and the few lines docs/API.md gives an auditor check it by hand
    check_by_hand(log)
    with pytest.raises(AssertionError):
        check_by_hand(log, lambda r: {"index": r.index, "value": r.value % 6 + 1})


def check_by_hand(log, as_roll=lambda r: {"index": r.index, "value": r.value}) -> None:
    """Run docs/API.md's Python lines for checking a match by hand on ``log``."""
    text = (ROOT / "docs" / "API.md").read_text()
    section = text[text.index("**Checking a match by hand.**"):]
    code = section[section.index("```python\n") + len("```python\n"):section.index("```\n", section.index("```python"))]
    assert len(code.splitlines()) <= 10, "a few lines"
    events = {"seed": log[-1].seed_revealed.seed, "commitment": log[0].match_created.seed_commitment,
              "entropy": {e.entropy_contributed.side: e.entropy_contributed.entropy for e in log
                          if e.WhichOneof("kind") == "entropy_contributed"}
              | {e.game_event.entropy_drawn.side: e.game_event.entropy_drawn.entropy for e in log
                 if e.WhichOneof("kind") == "game_event" and e.game_event.WhichOneof("kind") == "entropy_drawn"},
              "rolls": [as_roll(e.game_event.die_rolled) for e in log if e.WhichOneof("kind") == "game_event"
                        and e.game_event.WhichOneof("kind") == "die_rolled"]}
    exec(code, events)  # noqa: S102 - the document's own lines


def test_an_altered_entropy_is_found(client):
    match, tokens = client.create_match(seats=["german", "soviet"])
    client.contribute_entropy(match.match_id, tokens["soviet"], SOVIET)
    to_first_die(client, match.match_id, tokens["german"])
    client.resign(match.match_id, tokens["soviet"])
    log = list(client.event_log(match.match_id))
    assert verify_log(log).ok
    at = next(i for i, e in enumerate(log) if e.WhichOneof("kind") == "entropy_contributed")
    altered = [type(e)() for e in log]
    for copy, original in zip(altered, log):
        copy.CopyFrom(original)
    altered[at].entropy_contributed.entropy = SOVIET[::-1]
    report = verify_log(altered)
    # the entropy is in the state: the state hash logged with the next action no longer matches (and the
    # dice, recomputed with it, most likely differ too)
    first_action = next(e for e in log[at:] if e.WhichOneof("kind") == "action_submitted")
    assert not report.ok and (report.first.check, report.first.sequence) == ("hashes", first_action.sequence)
    # a drawn entropy the seed does not give
    for copy, original in zip(altered, log):
        copy.CopyFrom(original)
    drawn = next(e for e in altered if e.WhichOneof("kind") == "game_event"
                 and e.game_event.WhichOneof("kind") == "entropy_drawn")
    drawn.game_event.entropy_drawn.entropy = "0" * 64
    report = verify_log(altered)
    assert not report.ok and report.first.sequence == drawn.sequence and report.first.check == "dice"


def test_ladder_bots_give_their_entropy_once_seek_hands_them_the_match(service, client):
    # Seek takes no entropy (it comes before the match's seed is drawn): each bot gives it with
    # ContributeEntropy when its match arrives, the German one before its first action, so before any die
    bots, threads = [], []
    try:
        with LadderClient(service.target) as ladder:
            for name in ("dice-a", "dice-b"):
                key = ladder.register_with_owner(f"{name}-{secrets.token_hex(3)}").api_key
                bots.append(LadderBot("random", service.target, key, seed=name, retry_seconds=30))
        threads = [threading.Thread(target=bot.run, daemon=True) for bot in bots]
        for thread in threads:
            thread.start()
        wait_for(lambda: all(bot.record.started for bot in bots), 120)
        match_id = bots[0].record.started[0].match_id
        assert match_id == bots[1].record.started[0].match_id
        for bot in bots:
            bot.stop_seeking()
        assert all(bot.wait(300) for bot in bots)
    finally:
        for bot in bots:
            bot.stop()
        for thread in threads:
            thread.join(10)
    log = list(client.event_log(match_id))
    given = {e.entropy_contributed.side for e in log if e.WhichOneof("kind") == "entropy_contributed"}
    drawn = {e.game_event.entropy_drawn.side for e in log
             if e.WhichOneof("kind") == "game_event" and e.game_event.WhichOneof("kind") == "entropy_drawn"}
    assert "german" in given and given | drawn == {"german", "soviet"} and not given & drawn
    report = verify_log(log, match_id, client.get_match(match_id))
    assert report.ok, report.text()
