"""The seats' entropy through the service (issue 37, ruleset 4): each seat commits to the SHA-256 of its
entropy when it takes its seat (or, taken for it, when the match waits for it), and reveals it once every
seat has committed; the game waits for each reveal and a seat that keeps its own back loses on time;
drawn from the seed for a seat that gave none; logged in order; recomputed and checked against the
commitments by VerifyMatch and `typhoon replay verify`; every roll given by the log alone."""

from __future__ import annotations

import json
import secrets
import threading

import grpc
import pytest

import engine
from clients.client import TyphoonError, as_time_control
from clients.ladder import LadderBot, LadderClient
from clients.replay import Replay, verify_log
from clients.sdk import start_bot
from engine.dice import entropy_commitment
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


def create(client, time_control=None, **commitments: str) -> tuple[str, dict[str, str]]:
    """A match whose seats (the sides named) are claimed with these commitments ("later": awaited)."""
    request = api.CreateMatchRequest(seats=[
        api.SeatClaim(side=side, seat_token=secrets.token_hex(16), commit_entropy_later=value == "later",
                      entropy_commitment="" if value == "later" else value) for side, value in commitments.items()])
    if time_control is not None:
        request.time_control.CopyFrom(as_time_control(time_control))
    created = client._call("CreateMatch", request)
    return created.match.match_id, {t.side: t.token for t in created.seat_tokens}


def join(client, match_id: str, side: str, commitment: str = "") -> str:
    """JoinMatch with this commitment, nothing more (client.join_match also reveals): the token."""
    return client._call("JoinMatch", api.JoinMatchRequest(match_id=match_id, side=side, seat_token=secrets.token_hex(16),
                                                          entropy_commitment=commitment)).seat_token


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


def test_each_seat_commits_when_it_takes_its_seat_and_reveals_once_both_are_in(client, http):
    match_id, tokens = create(client, german=entropy_commitment(GERMAN))
    log = list(client.event_log(match_id))
    assert kinds(log) == ["match_created", "seat_claimed", "entropy_committed"]
    assert (log[2].entropy_committed.side, log[2].entropy_committed.commitment) == ("german", entropy_commitment(GERMAN))
    shown = client.get_match(match_id)
    assert seat(shown.match, "german").entropy_commitment == entropy_commitment(GERMAN)
    # the game waits for the other seat's commitment (whoever takes it) before any action: the German
    # cannot roll dice alone that would be the seed's only; and no reveal comes before every commitment
    assert seat(shown.match, "german").entropy_due == "" and seat(shown.match, "soviet").entropy_due == "entropy_commitment"
    assert shown.match.side_to_act == "soviet" and shown.state.pending_decision.stage == "entropy_commitment"
    error = refused(lambda: client.submit(match_id, tokens["german"], engine.StandardSetup()))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ENTROPY_AWAITED")
    error = refused(lambda: client.reveal_entropy(match_id, tokens["german"], GERMAN))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REVEAL_EARLY") and "soviet" in error.message
    soviet = join(client, match_id, "soviet", entropy_commitment(SOVIET))
    assert kinds(client.event_log(match_id))[3:] == ["seat_claimed", "entropy_committed"]
    shown = client.get_match(match_id)
    # both reveals are due: the game waits for them, the German first, before any action
    assert [seat(shown.match, side).entropy_due for side in ("german", "soviet")] == ["entropy_reveal"] * 2
    assert shown.match.side_to_act == "german" and shown.state.pending_decision.stage == "entropy_reveal"
    legal = client.legal_actions(match_id)
    assert legal.side_to_act == "german" and not legal.actions
    error = refused(lambda: client.submit(match_id, tokens["german"], engine.StandardSetup()))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ENTROPY_AWAITED")
    # the Soviet reveals first; the German, having seen it, can change nothing: another entropy is refused
    answer = client.reveal_entropy(match_id, soviet, SOVIET)
    assert [(e.entropy_contributed.side, e.entropy_contributed.entropy) for e in answer.events] == [("soviet", SOVIET)]
    assert answer.match.version == 0 and seat(answer.match, "soviet").entropy == SOVIET
    for better in ("0" * 40, SOVIET):
        error = refused(lambda: client.reveal_entropy(match_id, tokens["german"], better))
        assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "ENTROPY_MISMATCH")
    error = refused(lambda: client.commit_entropy(match_id, tokens["german"], "0" * 40))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ENTROPY_COMMITTED")
    assert client.get_match(match_id).match.last_sequence == answer.match.last_sequence
    # over REST: a malformed reveal, then the right one; a repeat is answered without a change
    url = f"/v1/matches/{match_id}/entropy"
    headers = {"Authorization": f"Bearer {tokens['german']}"}
    response = http.post(url, json={"entropy": "bad|entropy"}, headers=headers)
    assert response.status_code == 400 and response.json()["error"]["reason"] == "BAD_ENTROPY"
    response = http.post(url, json={"commitment": "not a hash"}, headers=headers)
    assert response.status_code == 400 and response.json()["error"]["reason"] == "BAD_COMMITMENT"
    response = http.post(url, json={"entropy": GERMAN}, headers=headers)
    assert response.status_code == 200
    assert response.json()["events"][0]["entropy_contributed"] == {"side": "german", "entropy": GERMAN}
    again = client.reveal_entropy(match_id, tokens["german"], GERMAN)
    assert not again.events and again.match.side_to_act == "german" and not seat(again.match, "german").entropy_due
    error = refused(lambda: client._call("ContributeEntropy", api.ContributeEntropyRequest(match_id=match_id, entropy=SOVIET)))
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    # play on: both sides gave theirs, nothing is drawn
    events = to_first_die(client, match_id, tokens["german"])
    assert "entropy_drawn" not in kinds(events)
    error = refused(lambda: client.reveal_entropy(match_id, soviet, SOVIET + "x"))
    assert error.reason == "ENTROPY_GIVEN"
    position = json.loads(client.get_match(match_id).state.position_json)
    assert position["entropy"] == {"german": GERMAN, "soviet": SOVIET} and "seed" not in position
    assert position["entropy_commitments"] == {"german": entropy_commitment(GERMAN), "soviet": entropy_commitment(SOVIET)}


def test_a_seat_claimed_without_a_commitment_gives_none_and_the_other_reveals(client):
    # the German seat took no part when it was claimed: when the Soviet commitment comes in, the log says
    # so first (it cannot hold the Soviet reveal back by staying silent), and the client reveals at once
    match, tokens = client.create_match(seats=["german"])
    assert kinds(client.event_log(match.match_id)) == ["match_created", "seat_claimed"]
    joined = client.join_match(match.match_id, "soviet", entropy=SOVIET)
    log = list(client.event_log(match.match_id))
    assert kinds(log)[2:] == ["seat_claimed", "entropy_committed", "entropy_committed", "entropy_contributed"]
    assert [(e.entropy_committed.side, e.entropy_committed.commitment) for e in log[3:5]] == [
        ("german", ""), ("soviet", entropy_commitment(SOVIET))]
    assert joined.entropy == SOVIET and log[5].entropy_contributed.entropy == SOVIET
    error = refused(lambda: client.commit_entropy(match.match_id, tokens["german"], GERMAN))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ENTROPY_COMMITTED")
    assert client.get_match(match.match_id).match.side_to_act == "german"
    events = to_first_die(client, match.match_id, tokens["german"])
    assert [e.game_event.entropy_drawn.side for e in events if e.game_event.WhichOneof("kind") == "entropy_drawn"] == ["german"]


def test_seats_that_give_none_before_the_first_die_get_one_drawn_and_a_late_join_brings_none(client):
    # nobody takes part (a client of before, or one that wants none): the German plays alone to the first
    # die, and both seats get an entropy drawn from the seed
    match_id, tokens = create(client, german="")
    events = to_first_die(client, match_id, tokens["german"])
    drawn = {e.game_event.entropy_drawn.side: e.game_event.entropy_drawn.entropy for e in events
             if e.game_event.WhichOneof("kind") == "entropy_drawn"}
    assert sorted(drawn) == ["german", "soviet"] and all(len(d) == 64 for d in drawn.values())
    assert kinds(events).index("entropy_drawn") == kinds(events).index("die_rolled") - 2
    shown = client.get_match(match_id).match
    assert seat(shown, "soviet").entropy == drawn["soviet"] and seat(shown, "soviet").entropy_drawn
    first_die, first_die_hash = shown.version, client.get_match(match_id).state.state_hash
    # the Soviet player joins now, bringing a commitment: the seat is claimed, its commitment not taken
    joined = client.join_match(match_id, "soviet", entropy=SOVIET)
    shown = client.get_match(match_id).match
    assert joined.side == "soviet" and not joined.entropy and seat(shown, "soviet").entropy == drawn["soviet"]
    assert "entropy_contributed" not in kinds(client.event_log(match_id)) and not seat(shown, "soviet").entropy_due
    error = refused(lambda: client.reveal_entropy(match_id, joined.token, SOVIET))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ENTROPY_GIVEN")
    # the match as it was, re-simulated from the log while the seed is secret, holds the entropy too
    tokens["soviet"] = joined.token
    legal = client.legal_actions(match_id)
    client.submit(match_id, tokens[legal.side_to_act], legal.actions[0], expected_version=legal.version)
    for version, entropy in ((first_die - 1, {}), (first_die, drawn)):
        past = client._call("GetMatch", api.GetMatchRequest(match_id=match_id, version=version))
        assert json.loads(past.state.position_json)["entropy"] == entropy
    assert past.state.state_hash == first_die_hash
    # once over, the drawn entropy is the seed's
    client.resign(match_id, tokens["german"])
    seed = client.get_match(match_id).match.seed
    assert drawn["soviet"] == recompute_drawn(seed, "soviet") == engine.drawn_entropy(seed, "soviet")
    check_by_hand(list(client.event_log(match_id)))
    assert verify_log(list(client.event_log(match_id))).ok
    error = refused(lambda: client.reveal_entropy(match_id, joined.token, SOVIET))
    assert error.reason == "GAME_OVER"


def test_a_seat_that_keeps_its_reveal_back_loses_on_time_and_one_that_never_commits_is_aborted(client):
    # a clock whose first-action time is short: the match waits for the Soviet reveal once the German has
    # revealed; the Soviet seat, having seen the German entropy, keeps its own back and loses on time
    clock = as_time_control("60+0")
    clock.first_action.FromMilliseconds(1500)
    match_id, tokens = create(client, clock, german=entropy_commitment(GERMAN), soviet=entropy_commitment(SOVIET))
    shown = client.get_match(match_id).match
    assert shown.side_to_act == "german" and shown.clock.running == "german" and shown.clock.awaiting_first_action
    answer = client.reveal_entropy(match_id, tokens["german"], GERMAN)
    assert answer.match.side_to_act == "soviet" and answer.match.clock.running == "soviet"
    wait_for(lambda: client.get_match(match_id).match.HasField("result"), 30)
    ended = client.get_match(match_id).match
    assert (ended.result.winner, ended.result.reason) == ("german", "time")
    log = list(client.event_log(match_id))
    assert [e.action_submitted.action.WhichOneof("kind") for e in log if e.WhichOneof("kind") == "action_submitted"] == [
        "time_forfeit"]
    report = verify_log(log, match_id, client.get_match(match_id))
    assert report.ok, report.text()
    # a seat taken for its player (awaited) whose player never commits has seen no entropy: the match is
    # aborted, as for a player who never made a first move, blaming it
    match_id, tokens = create(client, clock, german="later", soviet=entropy_commitment(SOVIET))
    shown = client.get_match(match_id).match
    assert shown.side_to_act == "german" and seat(shown, "german").entropy_due == "entropy_commitment"
    error = refused(lambda: client.reveal_entropy(match_id, tokens["soviet"], SOVIET))
    assert error.reason == "REVEAL_EARLY"
    wait_for(lambda: client.get_match(match_id).match.status == 4, 30)  # MATCH_STATUS_ABORTED
    log = list(client.event_log(match_id))
    aborted = next(e.match_aborted for e in log if e.WhichOneof("kind") == "match_aborted")
    assert aborted.side == "german"
    assert verify_log(log, match_id, client.get_match(match_id)).verdict == "verified"


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
    # the seed commitment first; each seat's commitment, then once both are in each reveal, all before the
    # first die; the seed last
    assert order[0] == "match_created" and order[-1] == "seed_revealed"
    committed = {e.entropy_committed.side: e.entropy_committed.commitment for e in log
                 if e.WhichOneof("kind") == "entropy_committed"}
    given = {e.entropy_contributed.side: e.entropy_contributed.entropy for e in log
             if e.WhichOneof("kind") == "entropy_contributed"}
    assert given == {bot.result.side: bot.result.entropy for bot, _ in bots}
    assert committed == {side: entropy_commitment(value) for side, value in given.items()}
    assert max(i for i, k in enumerate(order) if k == "entropy_committed") < order.index("entropy_contributed")
    assert max(i for i, k in enumerate(order) if k == "entropy_contributed") < order.index("die_rolled")
    assert "entropy_drawn" not in order
    # every roll is the one the revealed seed and the seats' entropy give
    seed = log[-1].seed_revealed.seed
    rolls = [e.game_event.die_rolled for e in log if e.WhichOneof("kind") == "game_event"
             and e.game_event.WhichOneof("kind") == "die_rolled"]
    assert rolls and [r.value for r in rolls] == [recompute_mixed_die(seed, given, r.index) for r in rolls]
    # VerifyMatch and `typhoon replay verify` recompute them, each entropy checked against its commitment
    final = client.get_match(match.match_id)
    report = verify_log(log, match.match_id, final)
    assert report.ok and report.verdict == "verified", report.text()
    assert "seats' entropy" in report.text() and {e[1] for e in report.entropy} == {"german", "soviet"}
    answer = client._call("VerifyMatch", api.VerifyMatchRequest(match_id=match.match_id))
    assert answer.verified and {(e.side, e.entropy, e.drawn, e.commitment) for e in answer.entropy} == {
        (side, value, False, committed[side]) for side, value in given.items()}
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
    tampered = dict(given, german=given["german"][::-1])
    with pytest.raises(AssertionError):
        check_by_hand(log, entropy=tampered)


def check_by_hand(log, as_roll=lambda r: {"index": r.index, "value": r.value}, entropy=None) -> None:
    """Run docs/API.md's Python lines for checking a match by hand on ``log``."""
    text = (ROOT / "docs" / "API.md").read_text()
    section = text[text.index("**Checking a match by hand.**"):]
    code = section[section.index("```python\n") + len("```python\n"):section.index("```\n", section.index("```python"))]
    assert len(code.splitlines()) <= 12, "a few lines"
    events = {"seed": log[-1].seed_revealed.seed, "commitment": log[0].match_created.seed_commitment,
              "committed": {e.entropy_committed.side: e.entropy_committed.commitment for e in log
                            if e.WhichOneof("kind") == "entropy_committed" and e.entropy_committed.commitment},
              "revealed": entropy or {e.entropy_contributed.side: e.entropy_contributed.entropy for e in log
                                      if e.WhichOneof("kind") == "entropy_contributed"},
              "drawn": {e.game_event.entropy_drawn.side: e.game_event.entropy_drawn.entropy for e in log
                        if e.WhichOneof("kind") == "game_event" and e.game_event.WhichOneof("kind") == "entropy_drawn"},
              "rolls": [as_roll(e.game_event.die_rolled) for e in log if e.WhichOneof("kind") == "game_event"
                        and e.game_event.WhichOneof("kind") == "die_rolled"]}
    exec(code, events)  # noqa: S102 - the document's own lines


def test_an_altered_entropy_or_commitment_is_found(client):
    match_id, tokens = create(client, german="", soviet=entropy_commitment(SOVIET))
    client.reveal_entropy(match_id, tokens["soviet"], SOVIET)
    to_first_die(client, match_id, tokens["german"])
    client.resign(match_id, tokens["soviet"])
    log = list(client.event_log(match_id))
    assert verify_log(log).ok

    def altered(kind: str, change) -> tuple[list, int]:
        copies = [type(e)() for e in log]
        for copy, original in zip(copies, log):
            copy.CopyFrom(original)
        at = next(i for i, e in enumerate(copies) if (e.WhichOneof("kind") == kind and kind != "entropy_committed")
                  or (kind == "entropy_committed" == e.WhichOneof("kind") and e.entropy_committed.side == "soviet")
                  or (kind == "entropy_drawn" and e.WhichOneof("kind") == "game_event"
                      and e.game_event.WhichOneof("kind") == kind))
        change(copies[at])
        return copies, copies[at].sequence

    # a revealed entropy that is not the one committed to: found where it is revealed
    copies, sequence = altered("entropy_contributed", lambda e: setattr(e.entropy_contributed, "entropy", SOVIET[::-1]))
    report = verify_log(copies)
    assert not report.ok and (report.first.check, report.first.sequence) == ("dice", sequence)
    assert "does not match its commitment" in report.first.what
    # a commitment changed: the reveal no longer matches it (nor do the state hashes, which hold it)
    copies, sequence = altered("entropy_committed", lambda e: setattr(e.entropy_committed, "commitment",
                                                                      entropy_commitment("x" * 40)))
    report = verify_log(copies)
    assert not report.ok and report.first.check == "dice" and "does not match its commitment" in report.first.what
    assert report.first.sequence > sequence
    # a drawn entropy the seed does not give
    copies, sequence = altered("entropy_drawn", lambda e: setattr(e.game_event.entropy_drawn, "entropy", "0" * 64))
    report = verify_log(copies)
    assert not report.ok and report.first.sequence == sequence and report.first.check == "dice"


def test_ladder_bots_commit_once_seek_hands_them_the_match_then_reveal(service, client):
    # Seek says the bot commits (commit_entropy): the ladder takes each seat awaiting its commitment, each
    # bot commits when its match arrives, and both reveal before any action, so before any die
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
    order = kinds(log)
    assert order[:7] == ["match_created", "seat_claimed", "seat_claimed", "entropy_awaited", "entropy_awaited",
                         "entropy_committed", "entropy_committed"]
    assert order.count("entropy_contributed") == 2 and "entropy_drawn" not in order
    assert max(i for i, k in enumerate(order) if k == "entropy_contributed") < order.index("action_submitted")
    report = verify_log(log, match_id, client.get_match(match_id))
    assert report.ok, report.text()


def test_a_seat_without_a_commitment_has_nothing_to_reveal_and_a_call_gives_one_thing(client):
    match_id, tokens = create(client, german="")
    error = refused(lambda: client.reveal_entropy(match_id, tokens["german"], GERMAN))
    assert error.reason in ("NOT_COMMITTED", "REVEAL_EARLY")
    error = refused(lambda: client._call("ContributeEntropy", api.ContributeEntropyRequest(
        match_id=match_id, entropy=GERMAN, commitment=entropy_commitment(GERMAN)), tokens["german"]))
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
