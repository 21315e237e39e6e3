"""Die rolls chosen from outside: what search and game-theory tools need to treat the dice as chance nodes.

A game's dice come from its seed (:mod:`engine.dice`), so a search that wants to try each face of a roll,
weighted by its probability (OpenSpiel's chance nodes, expectimax), cannot ask the game for it. Here the
caller names the rolls: :func:`apply_rolling` applies an action to a copy of the game whose next die
rolls are the ones given, and says when the action needs one more. The seed's dice are never consulted
for a roll the caller names, whatever formula derives them, and the game passed in is not changed: a
service that plays its matches from the seed never comes here.

It uses the engine's own fixed dice (``Game.fixed_dice``: roll ``i`` is ``fixed_dice[i]`` while there is
one), so the game it returns holds every roll made so far in ``fixed_dice`` and its position (see
POSITION.md) replays with ``new_game(..., fixed_dice=...)``. A game whose earlier rolls came from its
seed cannot be continued this way: start from a game that has rolled nothing.

>>> from engine import CloseDeclarations, DeclareAttack, EndPhase, ResolveBattle, StandardSetup, new_game
>>> game = new_game("standard")
>>> for action in (StandardSetup(), EndPhase(), DeclareAttack(("XLI",), "10th"), CloseDeclarations()):
...     game, _ = apply_rolling(game, action, ())
>>> apply_rolling(game, ResolveBattle("10th"), ()) is None
True
>>> after, events = apply_rolling(game, ResolveBattle("10th"), (6,))
>>> [(e.value, e.purpose) for e in events if e.type == "die_rolled"], after.fixed_dice, game.rolls
([(6, 'combat against 10th')], (6,), 0)
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Action
from .events import Event
from .game import Game

FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)


def apply_rolling(game: Game, action: Action, rolls: Sequence[int]) -> tuple[Game, list[Event]] | None:
    """A copy of ``game`` after ``action``, its next die rolls being ``rolls`` (in order), and the events;
    None when the action rolls more dice than ``rolls`` names (name one more and call again). An illegal
    action raises IllegalAction, as :meth:`Game.apply` does; ``game`` is never changed.

    ValueError for a face that is not 1-6, or a game that made rolls it does not hold in ``fixed_dice``.
    """
    if any(face not in FACES for face in rolls):
        raise ValueError(f"die rolls are 1 to 6, not {list(rolls)}")
    made = game.rolls
    if len(game.fixed_dice) < made:
        raise ValueError("the game made die rolls from its seed: only a game whose every roll was named can "
                         "go on with named rolls")
    twin = game.clone()
    twin.fixed_dice = tuple(game.fixed_dice[:made]) + tuple(rolls)
    events = twin.apply(action)
    if twin.rolls > len(twin.fixed_dice):
        return None
    twin.fixed_dice = twin.fixed_dice[:twin.rolls]  # the rolls named and not used are not kept for later
    return twin, events


__all__ = ["FACES", "apply_rolling"]
