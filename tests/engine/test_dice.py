"""The dice of ruleset 4 (issue 37): each seat's entropy mixed into the committed seed with HMAC-SHA-256,
recomputed from engine/dice.py's description independently of the engine (by the audit's own
implementation, service.match.audit, which `typhoon replay verify` and VerifyMatch use).

What the tests show: the documented example and derivation; no roll can change once a seat's entropy
is in (a property over seeds and entropies); a seat cannot predict a roll from its own entropy; a seat
that gives none gets one drawn from the seed, and the game says so; an older ruleset's dice are the
seed's alone, as before.
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
    game.contribute_entropy("german", GERMAN)
    assert game.to_json()["entropy"] == {"german": GERMAN}
    events = fight(game)
    drawn = [e for e in events if isinstance(e, EntropyDrawn)]
    assert drawn == [EntropyDrawn("soviet", my_drawn("mixed", "soviet"))]
    first_die = next(i for i, e in enumerate(events) if isinstance(e, DieRolled))
    assert events.index(drawn[0]) == first_die - 1  # said just before the first die
    entropy = {"german": GERMAN, "soviet": my_drawn("mixed", "soviet")}
    assert game.to_json()["entropy"] == entropy
    assert rolls(events) and rolls(events) == [(i, my_roll("mixed", entropy, i)) for i, _ in rolls(events)]
    # the entropy is final now, for both sides
    with pytest.raises(engine.IllegalAction) as late:
        game.clone().contribute_entropy("soviet", SOVIET)
    assert late.value.reason == Reason.ENTROPY_GIVEN


def test_a_played_game_of_ruleset_4_is_recomputed_from_its_seed_and_entropy():
    game = engine.new_game("campaign", {"preset": "all"}, seed="audit me")
    game.contribute_entropy("soviet", SOVIET)
    game.contribute_entropy("german", GERMAN)
    chooser, events = random.Random(5), []
    while not game.is_terminal():
        events += game.apply(chooser.choice(game.legal_actions()))
    assert not any(isinstance(e, EntropyDrawn) for e in events)
    dice = rolls(events)
    assert len(dice) > 20 and [i for i, _ in dice] == list(range(len(dice)))
    assert dice == [(i, my_roll("audit me", {"german": GERMAN, "soviet": SOVIET}, i)) for i, _ in dice]


# --- no roll can change once a seat's entropy is in --------------------------------------------------

ENTROPIES = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", min_size=32,
                    max_size=128)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.text(max_size=80), german=ENTROPIES, soviet=ENTROPIES, other=ENTROPIES,
       soviet_first=st.booleans(), soviet_gives=st.booleans())
def test_no_roll_can_change_once_a_seats_entropy_is_in(seed, german, soviet, other, soviet_first, soviet_gives):
    game = position(BATTLES, seed=seed)
    given_entropy = [("german", german)] + ([("soviet", soviet)] if soviet_gives else [])
    for side, value in (reversed(given_entropy) if soviet_first else given_entropy):
        game.contribute_entropy(side, value)
        # the side cannot take it back nor give another: refused, nothing changed
        before = game.state_hash()
        with pytest.raises(engine.IllegalAction) as again:
            game.contribute_entropy(side, other)
        assert again.value.reason == Reason.ENTROPY_GIVEN and game.state_hash() == before
    events = fight(game)
    entropy = {"german": german, "soviet": soviet if soviet_gives else my_drawn(seed, "soviet")}
    # every roll is the one the seed and the entropy given give, whatever order it came in
    assert rolls(events) == [(i, my_roll(seed, entropy, i)) for i, _ in rolls(events)]
    assert [e.side for e in events if isinstance(e, EntropyDrawn)] == ([] if soviet_gives else ["soviet"])
    # once the first die is rolled, no side's entropy can come in any more
    before = game.state_hash()
    for side in ("german", "soviet"):
        with pytest.raises(engine.IllegalAction) as late:
            game.contribute_entropy(side, other)
        assert late.value.reason == Reason.ENTROPY_GIVEN and game.state_hash() == before


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.text(max_size=80), german=ENTROPIES, other=ENTROPIES)
def test_the_dice_stay_closed_after_a_first_roll_even_with_a_side_missing(seed, german, other):
    # fixed dice (tests) are rolls too: after one, nobody's entropy comes in; the missing side's is drawn
    # at the first roll the seed gives
    game = position(BATTLES, seed=seed, fixed_dice=[6])
    events = fight(game)
    refused = game.clone()
    with pytest.raises(engine.IllegalAction) as late:
        refused.contribute_entropy("german", german)
    assert late.value.reason in (Reason.DICE_ROLLED, Reason.ENTROPY_GIVEN)
    assert refused.state_hash() == game.state_hash()
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
        game.contribute_entropy("german", GERMAN)
        game.contribute_entropy("soviet", SOVIET)
        sequences.add(tuple(engine.keyed_die_roll(engine.dice_key(seed, game.entropy), i) for i in range(20)))
    assert len(sequences) == 3


# --- refusals, positions, older rulesets --------------------------------------------------------------

@pytest.mark.parametrize("side, entropy, reason", [
    ("german", "short", Reason.BAD_ENTROPY), ("german", "x" * 129, Reason.BAD_ENTROPY),
    ("german", "a|german=" + "b" * 30, Reason.BAD_ENTROPY), ("german", 7, Reason.BAD_ENTROPY),
    ("russian", GERMAN, Reason.UNKNOWN_SIDE)])
def test_bad_entropy_is_refused_and_changes_nothing(side, entropy, reason):
    game = position(BATTLES, seed="bad")
    before = game.state_hash()
    with pytest.raises(engine.IllegalAction) as refused:
        game.contribute_entropy(side, entropy)
    assert refused.value.reason == reason and len(refused.value.message.split()) >= 4
    assert game.state_hash() == before and game.entropy == {}


def test_an_older_rulesets_dice_are_the_seeds_alone():
    game = position(BATTLES, seed="older", ruleset=3)
    with pytest.raises(engine.IllegalAction) as refused:
        game.contribute_entropy("german", GERMAN)
    assert refused.value.reason == Reason.ENTROPY_NOT_USED and "ruleset 3" in refused.value.message
    assert "entropy" not in game.to_json()
    events = fight(game)
    assert not any(isinstance(e, EntropyDrawn) for e in events)
    assert rolls(events) == [(i, engine.die_roll("older", i)) for i, _ in rolls(events)]


def test_the_entropy_goes_through_the_position():
    game = position(BATTLES, seed="kept")
    game.contribute_entropy("soviet", SOVIET)
    again = engine.game_from_position(game.to_json())
    assert again.entropy == {"soviet": SOVIET} and again.state_hash() == game.state_hash()
    again.contribute_entropy("german", GERMAN)
    game.contribute_entropy("german", GERMAN)
    assert fight(again) == fight(game)
    with pytest.raises(engine.PositionError, match="ruleset 3"):
        engine.game_from_position(game.to_json() | {"ruleset": 3})
    with pytest.raises(engine.PositionError, match="entropy.german: entropy must be 32 to 128"):
        engine.game_from_position(game.to_json() | {"entropy": {"german": "short"}})
    with pytest.raises(engine.PositionError, match="'red' is not a side"):
        engine.game_from_position(game.to_json() | {"entropy": {"red": GERMAN}})
