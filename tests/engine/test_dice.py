"""The dice of ruleset 4 (issue 37): each seat's entropy, committed to and then revealed, mixed into the
committed seed with HMAC-SHA-256, recomputed from engine/dice.py's description independently of the
engine (by the audit's own implementation, service.match.audit, which `typhoon replay verify` and
VerifyMatch use).

What the tests show: the documented example and derivation; no roll can change once a seat's
commitment is in (a property over seeds, entropies and the order of the steps); a seat that sees the
other's reveal cannot change its own, nor reveal before every commitment is in; the game waits for each
reveal and a seat that withholds its own loses on time; a seat cannot predict a roll from its own
entropy; a seat that gives none gets one drawn from the seed, and the game says so; an older ruleset's
dice are the seed's alone, as before.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import DeclareAttack, Reason, ResolveBattle
from engine.dice import entropy_commitment
from engine.events import DieRolled, EntropyDrawn

from service.match.audit import recompute_drawn as my_drawn
from service.match.audit import recompute_mixed_die as my_roll

from bfm_helpers import position

GERMAN = "0123456789abcdef0123456789abcdef"
SOVIET = "fedcba9876543210fedcba9876543210"


#: Two German battles on turn 1 (a die each, at least): 16th and 19th attacked by XXIV and XLI.
BATTLES = ["16th 1207", "19th 1209", "XXIV 1107", "XLI 1110"]


def fight(game: engine.Game) -> list:
    """Declare and resolve the two battles of BATTLES (the first choice of every decision): the events."""
    events = game.apply(DeclareAttack(("XXIV",), "16th")) + game.apply(DeclareAttack(("XLI",), "19th"))
    for defender in ("16th", "19th"):
        if ResolveBattle(defender) in game.legal_actions():
            events += game.apply(ResolveBattle(defender))
        while game.pending_decision():
            events += game.apply(game.legal_actions()[0])
    return events


def rolls(events: list) -> list[tuple[int, int]]:
    return [(e.index, e.value) for e in events if isinstance(e, DieRolled)]


def give(game: engine.Game, **entropy: str) -> None:
    """Every side commits (to the entropy given for it, or to none), then each side given reveals."""
    for side in ("german", "soviet"):
        game.commit_entropy(side, entropy_commitment(entropy[side]) if side in entropy else "")
    for side, value in entropy.items():
        game.contribute_entropy(side, value)


def refused(reason: str, call, *args) -> None:
    """``call(*args)`` is refused for ``reason`` and changes nothing of the game it is a method of."""
    game = call.__self__
    before = game.state_hash()
    with pytest.raises(engine.IllegalAction) as refusal:
        call(*args)
    assert refusal.value.reason == reason, refusal.value
    assert len(refusal.value.message.split()) >= 4 and game.state_hash() == before


def test_the_documented_example():
    entropy = {"german": GERMAN, "soviet": SOVIET}
    assert [my_roll("example", entropy, i) for i in range(8)] == [4, 5, 2, 3, 4, 2, 6, 6]
    key = engine.dice_key("example", entropy)
    assert [engine.keyed_die_roll(key, i) for i in range(8)] == [4, 5, 2, 3, 4, 2, 6, 6]
    assert engine.drawn_entropy("example", "soviet") == my_drawn("example", "soviet")


@pytest.mark.parametrize("seed", ["", "a", "Москва", "x" * 300, "9f" * 32])
def test_keyed_die_roll_matches_the_documented_derivation(seed):
    entropy = {"german": GERMAN, "soviet": my_drawn(seed, "soviet")}
    key = engine.dice_key(seed, entropy)
    assert [engine.keyed_die_roll(key, i) for i in range(300)] == [my_roll(seed, entropy, i) for i in range(300)]


def test_the_die_is_fair_enough():
    key = engine.dice_key("fairness", {"german": GERMAN, "soviet": SOVIET})
    counts = Counter(engine.keyed_die_roll(key, i) for i in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6} and all(850 < c < 1150 for c in counts.values())


def test_a_game_rolls_the_mixed_dice_and_a_seat_that_gave_none_gets_one_drawn_from_the_seed():
    game = position(BATTLES, seed="mixed")
    assert game.ruleset == engine.RULESET >= 4 and game.to_json()["entropy"] == {}
    give(game, german=GERMAN)
    assert game.to_json()["entropy"] == {"german": GERMAN}
    assert game.to_json()["entropy_commitments"] == {"german": entropy_commitment(GERMAN), "soviet": ""}
    events = fight(game)
    drawn = [e for e in events if isinstance(e, EntropyDrawn)]
    assert drawn == [EntropyDrawn("soviet", my_drawn("mixed", "soviet"))]
    first_die = next(i for i, e in enumerate(events) if isinstance(e, DieRolled))
    assert events.index(drawn[0]) == first_die - 1  # said just before the first die
    entropy = {"german": GERMAN, "soviet": my_drawn("mixed", "soviet")}
    assert game.to_json()["entropy"] == entropy
    assert rolls(events) and rolls(events) == [(i, my_roll("mixed", entropy, i)) for i, _ in rolls(events)]
    # the entropy is final now, for both sides
    refused(Reason.ENTROPY_GIVEN, game.contribute_entropy, "soviet", SOVIET)


def test_a_played_game_of_ruleset_4_is_recomputed_from_its_seed_and_entropy():
    game = engine.new_game("campaign", {"preset": "all"}, seed="audit me")
    give(game, soviet=SOVIET, german=GERMAN)
    chooser, events = random.Random(5), []
    while not game.is_terminal():
        events += game.apply(chooser.choice(game.legal_actions()))
    assert not any(isinstance(e, EntropyDrawn) for e in events)
    dice = rolls(events)
    assert len(dice) > 20 and [i for i, _ in dice] == list(range(len(dice)))
    assert dice == [(i, my_roll("audit me", {"german": GERMAN, "soviet": SOVIET}, i)) for i, _ in dice]


# --- commit, then reveal: nobody can change a roll once the commitments are in --------------------------

ENTROPIES = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", min_size=32,
                    max_size=128)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.text(max_size=80), german=ENTROPIES, soviet=ENTROPIES, other=ENTROPIES,
       order=st.permutations(["commit german", "commit soviet", "reveal german", "reveal soviet"]),
       soviet_gives=st.booleans())
def test_no_roll_can_change_once_a_seats_commitment_is_in(seed, german, soviet, other, order, soviet_gives):
    game = position(BATTLES, seed=seed)
    entropy = {"german": german, "soviet": soviet}
    if not soviet_gives:
        order = [step for step in order if step != "reveal soviet"]
    pending = list(order)
    while pending:  # each step as soon as the rules allow it, in the order drawn; the others are refused
        for step in list(pending):
            verb, side = step.split()
            if verb == "reveal" and game.seat_entropy.due(side) != "entropy_reveal":
                refused(Reason.REVEAL_EARLY if side in game.seat_entropy.commitments else Reason.NOT_COMMITTED,
                        game.contribute_entropy, side, entropy[side])
                continue
            if verb == "commit":
                game.commit_entropy(side, entropy_commitment(entropy[side]) if side == "german" or soviet_gives else "")
                # the side cannot take it back nor commit to another
                refused(Reason.ENTROPY_COMMITTED, game.commit_entropy, side, entropy_commitment(other))
            else:
                if other != entropy[side]:  # another entropy than the one committed to is refused
                    refused(Reason.ENTROPY_MISMATCH, game.contribute_entropy, side, other)
                game.contribute_entropy(side, entropy[side])
                refused(Reason.ENTROPY_GIVEN, game.contribute_entropy, side, other)
            pending.remove(step)
            break
    assert game.entropy_wait() is None
    events = fight(game)
    used = {"german": german, "soviet": soviet if soviet_gives else my_drawn(seed, "soviet")}
    # every roll is the one the seed and the entropy committed to give, whatever order the steps came in
    assert rolls(events) == [(i, my_roll(seed, used, i)) for i, _ in rolls(events)]
    assert [e.side for e in events if isinstance(e, EntropyDrawn)] == ([] if soviet_gives else ["soviet"])
    # once the first die is rolled, no side's entropy nor commitment comes in any more
    for side in ("german", "soviet"):
        refused(Reason.ENTROPY_GIVEN, game.contribute_entropy, side, other)
        refused(Reason.DICE_ROLLED, game.commit_entropy, side, entropy_commitment(other))


def test_a_seat_that_sees_the_others_reveal_cannot_change_its_own():
    game = position(BATTLES, seed="operator")
    game.commit_entropy("german", entropy_commitment(GERMAN))
    game.commit_entropy("soviet", entropy_commitment(SOVIET))
    game.contribute_entropy("soviet", SOVIET)
    # the German seat now knows the Soviet entropy (and, were it the operator's, the seed): every other
    # entropy it might like better is refused, and so is a second commitment
    for better in ("0" * 32, SOVIET, GERMAN.upper()):
        refused(Reason.ENTROPY_MISMATCH, game.contribute_entropy, "german", better)
    refused(Reason.ENTROPY_COMMITTED, game.commit_entropy, "german", entropy_commitment("0" * 32))
    refused(Reason.ENTROPY_COMMITTED, game.commit_entropy, "german", "")
    game.contribute_entropy("german", GERMAN)
    dice = rolls(fight(game))
    assert dice and dice == [(i, my_roll("operator", {"german": GERMAN, "soviet": SOVIET}, i)) for i, _ in dice]


def test_a_reveal_before_every_commitment_is_refused():
    game = position(BATTLES, seed="early")
    refused(Reason.NOT_COMMITTED, game.contribute_entropy, "german", GERMAN)
    game.await_entropy("soviet")  # taken for a player who commits later
    game.commit_entropy("german", entropy_commitment(GERMAN))
    refused(Reason.REVEAL_EARLY, game.contribute_entropy, "german", GERMAN)
    assert game.entropy_wait() == ("soviet", "entropy_commitment") and game.current_player() == "soviet"
    game.commit_entropy("soviet", "")  # it gives none: the German reveal is due
    refused(Reason.NOT_COMMITTED, game.contribute_entropy, "soviet", SOVIET)
    assert game.entropy_wait() == ("german", "entropy_reveal")
    game.contribute_entropy("german", GERMAN)
    assert game.entropy_wait() is None and game.current_player() == "german"


def test_the_game_waits_for_each_reveal_and_a_seat_that_withholds_it_loses_on_time():
    game = position(BATTLES, seed="withheld")
    game.commit_entropy("german", entropy_commitment(GERMAN))
    game.commit_entropy("soviet", entropy_commitment(SOVIET))
    # both reveals are due: the game waits for them, the German first, before any action
    assert game.current_player() == "german" and game.legal_actions() == []
    assert game.pending_decision() == {"stage": "entropy_reveal", "side": "german"}
    refused(Reason.ENTROPY_AWAITED, game.apply, DeclareAttack(("XXIV",), "16th"))
    game.contribute_entropy("german", GERMAN)
    assert game.current_player() == "soviet" and game.legal_actions() == []
    refused(Reason.ENTROPY_AWAITED, game.apply, DeclareAttack(("XXIV",), "16th"))
    # the Soviet seat, having seen the German entropy, keeps its reveal back: no die is rolled without it,
    # and its clock runs out (the service's TimeForfeit of the side to act): it loses
    events = game.clone().apply(engine.TimeForfeit("soviet"))
    assert events[-1].type == "game_ended" and events[-1].winner == "german" and not rolls(events)
    # either side may resign meanwhile
    assert game.clone().apply(engine.Resign("german"))[-1].winner == "soviet"
    game.contribute_entropy("soviet", SOVIET)
    assert game.current_player() == "german" and game.legal_actions()


def test_once_a_side_commits_the_game_waits_for_the_other_before_any_action():
    # a side that plays alone (its opponent's seat free) would roll dice that are the seed's alone, which
    # the operator chose and a late opponent could not change: the game waits for the other side instead
    game = position(BATTLES, seed="alone")
    game.commit_entropy("german", entropy_commitment(GERMAN))
    assert game.entropy_wait() == ("soviet", "entropy_commitment") and game.current_player() == "soviet"
    assert game.legal_actions() == [] and game.pending_decision() == {"stage": "entropy_commitment", "side": "soviet"}
    refused(Reason.ENTROPY_AWAITED, game.apply, DeclareAttack(("XXIV",), "16th"))
    game.commit_entropy("soviet", "")  # whoever took it gives none: the German reveal is due, then play
    assert game.entropy_wait() == ("german", "entropy_reveal")
    game.contribute_entropy("german", GERMAN)
    events = fight(game)
    assert [e.side for e in events if isinstance(e, EntropyDrawn)] == ["soviet"]
    used = {"german": GERMAN, "soviet": my_drawn("alone", "soviet")}
    assert rolls(events) == [(i, my_roll("alone", used, i)) for i, _ in rolls(events)]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.text(max_size=80), german=ENTROPIES)
def test_the_dice_stay_closed_after_a_first_roll_even_with_a_side_missing(seed, german):
    # fixed dice (tests) are rolls too: after one, nobody's entropy comes in; the missing side's is drawn
    # at the first roll the seed gives
    game = position(BATTLES, seed=seed, fixed_dice=[6])
    events = fight(game)
    refused(Reason.DICE_ROLLED, game.commit_entropy, "german", entropy_commitment(german))
    refused(Reason.DICE_ROLLED, game.await_entropy, "soviet")
    assert rolls(events)[0] == (0, 6)


# --- a seat cannot predict a roll from its own entropy ------------------------------------------------

def test_a_seat_cannot_predict_a_roll_from_its_own_entropy():
    # a seat knows its own entropy (even the other's, here) but not the seed: over the seeds the service
    # might have drawn, each roll is any face alike, and the seat's entropy fixes none of them
    entropy = {"german": GERMAN, "soviet": SOVIET}
    seeds = [hashlib.sha256(str(n).encode()).hexdigest() for n in range(1800)]
    for index in (0, 1, 7):
        faces = Counter(my_roll(seed, entropy, index) for seed in seeds)
        assert set(faces) == {1, 2, 3, 4, 5, 6} and all(230 < n < 370 for n in faces.values()), faces
    # and the service, which knows its seed but not the seat's entropy, cannot predict them either
    seed = seeds[0]
    faces = Counter(my_roll(seed, {"german": hashlib.sha256(str(n).encode()).hexdigest(), "soviet": SOVIET}, 0)
                    for n in range(1800))
    assert set(faces) == {1, 2, 3, 4, 5, 6} and all(230 < n < 370 for n in faces.values()), faces


def test_the_engine_gives_the_same_seat_entropy_different_dice_under_different_seeds():
    sequences = set()
    for seed in ("one", "two", "three"):
        game = position(BATTLES, seed=seed)
        give(game, german=GERMAN, soviet=SOVIET)
        sequences.add(tuple(engine.keyed_die_roll(engine.dice_key(seed, game.entropy), i) for i in range(20)))
    assert len(sequences) == 3


# --- refusals, positions, older rulesets --------------------------------------------------------------

@pytest.mark.parametrize("side, entropy, reason", [
    ("german", "short", Reason.BAD_ENTROPY), ("german", "x" * 129, Reason.BAD_ENTROPY),
    ("german", "a|german=" + "b" * 30, Reason.BAD_ENTROPY), ("german", 7, Reason.BAD_ENTROPY),
    ("russian", GERMAN, Reason.UNKNOWN_SIDE)])
def test_bad_entropy_is_refused_and_changes_nothing(side, entropy, reason):
    game = position(BATTLES, seed="bad")
    game.commit_entropy("german", entropy_commitment(GERMAN))
    game.commit_entropy("soviet", entropy_commitment(SOVIET))
    refused(reason, game.contribute_entropy, side, entropy)
    assert game.entropy == {}


@pytest.mark.parametrize("side, commitment, reason", [
    ("german", GERMAN, Reason.BAD_COMMITMENT), ("german", entropy_commitment(GERMAN).upper(), Reason.BAD_COMMITMENT),
    ("german", 7, Reason.BAD_COMMITMENT), ("russian", "", Reason.UNKNOWN_SIDE)])
def test_a_bad_commitment_is_refused_and_changes_nothing(side, commitment, reason):
    game = position(BATTLES, seed="bad")
    refused(reason, game.commit_entropy, side, commitment)
    assert "entropy_commitments" not in game.to_json()


def test_an_older_rulesets_dice_are_the_seeds_alone():
    game = position(BATTLES, seed="older", ruleset=3)
    for step, value in ((game.commit_entropy, ""), (game.contribute_entropy, GERMAN), (game.await_entropy, None)):
        with pytest.raises(engine.IllegalAction) as refusal:
            step("german", *([] if value is None else [value]))
        assert refusal.value.reason == Reason.ENTROPY_NOT_USED and "ruleset 3" in refusal.value.message
    assert "entropy" not in game.to_json() and game.entropy_wait() is None
    events = fight(game)
    assert not any(isinstance(e, EntropyDrawn) for e in events)
    assert rolls(events) == [(i, engine.die_roll("older", i)) for i, _ in rolls(events)]


def test_the_entropy_goes_through_the_position():
    game = position(BATTLES, seed="kept")
    game.commit_entropy("german", entropy_commitment(GERMAN))
    game.await_entropy("soviet")
    again = engine.game_from_position(game.to_json())
    assert again.to_json()["entropy_commitments"] == {"german": entropy_commitment(GERMAN), "soviet": None}
    assert again.state_hash() == game.state_hash() and again.current_player() == "soviet"
    for each in (game, again):
        each.commit_entropy("soviet", entropy_commitment(SOVIET))
        each.contribute_entropy("soviet", SOVIET)
    again = engine.game_from_position(game.to_json())
    assert again.entropy == {"soviet": SOVIET} and again.state_hash() == game.state_hash()
    assert again.entropy_wait() == game.entropy_wait() == ("german", "entropy_reveal")
    again.contribute_entropy("german", GERMAN)
    game.contribute_entropy("german", GERMAN)
    assert fight(again) == fight(game)
    with pytest.raises(engine.PositionError, match="entropy.soviet does not match"):
        engine.game_from_position(again.to_json() | {"entropy": {"soviet": GERMAN}, "rolls": 0})
    with pytest.raises(engine.PositionError, match="entropy_commitments.german: a commitment is"):
        engine.game_from_position(game.to_json() | {"entropy_commitments": {"german": "abc"}})
    with pytest.raises(engine.PositionError, match="ruleset 3"):
        engine.game_from_position(game.to_json() | {"ruleset": 3})
    with pytest.raises(engine.PositionError, match="entropy.german: entropy must be 32 to 128"):
        engine.game_from_position(game.to_json() | {"entropy": {"german": "short"}})
    with pytest.raises(engine.PositionError, match="'red' is not a side"):
        engine.game_from_position(game.to_json() | {"entropy": {"red": GERMAN}})
