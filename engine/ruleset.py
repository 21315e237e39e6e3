"""The ruleset: which rules a game plays, as a number every game and match records.

A match is checked by replaying its actions with the engine, so a change of the rules could make an
older match's log stop replaying. Any change that can alter a game (a different legal action, event,
die roll or state) is made under a new ruleset number, and the rules that differ are kept for the
older rulesets the engine still plays (:data:`RULESETS`): a game records its ruleset (``Game.ruleset``;
in every position it writes; the canonical form of a ruleset-2 state leaves it out, see POSITION.md), new games play :data:`RULESET`, and a game of an
older ruleset plays and replays exactly as it did. A match records the ruleset it was started under (the
service's ``match_created`` log entry and ``Match.ruleset``). engine/RULINGS.md says since which ruleset
each ruling holds.

>>> RULESET, RULESETS
(4, (2, 3, 4))
>>> UNVERSIONED
1
"""

from __future__ import annotations

from typing import TypeGuard

#: The ruleset new games play.
RULESET = 4

#: The rulesets this engine plays: a game of any of them plays, replays and verifies under its own rules.
RULESETS: tuple[int, ...] = (2, 3, 4)

#: The first ruleset whose dice mix each seat's entropy into the seed (engine/dice.py).
MIXED_DICE = 4

#: The ruleset of a match recorded without one: the rules before rulesets were recorded.
UNVERSIONED = 1

#: What each ruleset changed.
CHANGES = {
    1: "the rules until rulesets were recorded (every match stored without a ruleset)",
    2: "issue 10: a named path that leaves a start hex in an enemy zone of control and comes back into it "
       "stops there (ruling 6); a move named by its destination may pass back through its start hex to take "
       "a city (ruling 3); a unit that must move away from under another may not end back in its own hex "
       "(ruling 1); Stronger Soviet Defensive Line and Improved 1st Shock are judged when the battle is "
       "declared (rulings 34, 35); the time_forfeit action",
    3: "issue 30: a retreat that must go further than two hexes to reach an empty hex goes on through "
       "friendly units to any empty hex at least two hexes from its start (ruling 49; was: every hex one "
       "farther than the one before, rulings 12 and 13); in mud a unit has 1 MA and cannot enter a forest "
       "hex, which costs 2 (ruling 50; was: one hex whatever its terrain, ruling 5); a replacement may not "
       "enter an edge hex that is a city the enemy controls (ruling 51; was: every edge hex, ruling 19)",
    4: "issue 37: the dice mix each seat's entropy into the committed seed with HMAC-SHA-256; each seat commits "
       "to its entropy's SHA-256, then reveals it once every seat has committed, and the game waits for them before "
       "any action (a seat that gave none gets one drawn from the seed); was: the seed alone (engine/dice.py, "
       "engine/seat_entropy.py)",
}


def played() -> str:
    """The rulesets this engine plays, for sentences.

    >>> played()
    'rulesets 2, 3 and 4'
    """
    numbers = [str(n) for n in RULESETS]
    return f"ruleset {numbers[0]}" if len(numbers) == 1 else f"rulesets {', '.join(numbers[:-1])} and {numbers[-1]}"


def known(ruleset: object) -> TypeGuard[int]:
    """Whether this engine plays ``ruleset``."""
    return isinstance(ruleset, int) and not isinstance(ruleset, bool) and ruleset in RULESETS
