"""An engine game played by action numbers: the mask, the observation, and picks that become engine actions.

What the PettingZoo, Gymnasium and OpenSpiel environments share. A pick is one number of the action space
(:mod:`.encoding`); most spell an engine action at once, an exchange loss or a retreat takes a few, the
same player picking each in turn.

>>> import engine
>>> play = NumberedGame(engine.new_game("standard", seed="doc"))
>>> play.to_act(), play.legal_ids()[-2:], play.encoding.describe(6126)
('german', [2559, 6126], 'standard_setup')
>>> [event.type for event in play.play(6126)][-1]
'phase_started'
>>> mask = play.mask()
>>> mask.shape, int(mask.sum()) == len(play.game.legal_actions())
((6133,), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

import engine
from engine import Action, Event

from .encoding import ActionEncoding, Choices
from .observation import Array, Observer


class IllegalNumber(ValueError):
    """A pick the mask does not offer."""


class NumberedGame:
    """``game`` (an :class:`engine.Game`, changed only through this object) with the numbers picked so far
    of the decision under way. Pass the encoding and observer of an earlier one to share their tables."""

    def __init__(self, game: engine.Game, encoding: ActionEncoding | None = None,
                 observer: Observer | None = None) -> None:
        self.encoding = encoding or ActionEncoding(game.scenario)
        self.observer = observer or Observer(game.scenario, self.encoding)
        self.game = game
        self.picked: tuple[int, ...] = ()
        self._choices: Choices | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> "NumberedGame":
        """What OpenSpiel's clone of a state does to it: :meth:`copy` (the tables are shared, never changed)."""
        return self.copy()

    def copy(self) -> "NumberedGame":
        twin = NumberedGame(self.game.clone(), self.encoding, self.observer)
        twin.picked = self.picked
        twin._choices = self._choices  # never changed in place: replaced when the game moves on
        return twin

    # --- queries -----------------------------------------------------------------------------------

    def to_act(self) -> str | None:
        """The side to pick, or None when the game is over."""
        return self.game.current_player()

    def choices(self) -> Choices:
        if self._choices is None:
            self._choices = self.encoding.choices(self.game)
        return self._choices

    def legal_ids(self) -> list[int]:
        """The numbers the player to act may pick now, ascending (none when the game is over)."""
        if self.game.is_terminal():
            return []
        return self.choices().next_ids(self.picked)

    def mask(self) -> npt.NDArray[np.int8]:
        """1 for each number :meth:`legal_ids` offers, 0 elsewhere."""
        mask = np.zeros(self.encoding.size, np.int8)
        mask[self.legal_ids()] = 1
        return mask

    def observe(self, side: str) -> Array:
        return self.observer.observe(self.game, side, self.picked)

    def numbers_of(self, action: Action) -> tuple[int, ...]:
        """The numbers that play the engine ``action`` (legal now) from a decision not yet begun."""
        return self.encoding.encode(self.game, action)

    # --- picking -----------------------------------------------------------------------------------

    def pick(self, number: int) -> Action | None:
        """Take ``number``: the engine action it completes (for the caller to apply, then :meth:`moved_to`
        or :meth:`play`), or None when the decision needs more numbers. IllegalNumber when the mask does
        not offer it; nothing changes then."""
        number = int(number)
        picked = (*self.picked, number)
        choices = self.choices()
        action = choices.action(picked)
        if action is None and number not in choices.next_ids(self.picked):
            raise IllegalNumber(self.refusal(number))
        self.picked = picked if action is None else ()
        return action

    def play(self, number: int) -> list[Event]:
        """Pick ``number`` and, when it completes an action, apply it with the game's own dice; the events
        (none while the decision goes on)."""
        action = self.pick(number)
        if action is None:
            return []
        events = self.game.apply(action)
        self.moved_to(self.game)
        return events

    def moved_to(self, game: engine.Game) -> None:
        """The game after the action the last pick completed (the same object, or a copy that applied it)."""
        self.game = game
        self.picked = ()
        self._choices = None

    def refusal(self, number: int) -> str:
        if not 0 <= number < self.encoding.size:
            return f"{number} is not an action number (0 to {self.encoding.size - 1})"
        if self.game.is_terminal():
            return "the game is over"
        offered = self.legal_ids()
        return (f"action {number} ({self.encoding.describe(number)}) is not legal now; the mask offers "
                f"{len(offered)}: {', '.join(self.encoding.describe(n) for n in offered[:5])}"
                + (", ..." if len(offered) > 5 else ""))

    def play_action(self, action: Action) -> list[Event]:
        """Play an engine action (legal now) by its numbers: how a built-in strategy's choice goes in."""
        if self.picked:
            raise IllegalNumber("a decision is under way: finish it by numbers")
        events: list[Event] = []
        for number in self.numbers_of(action):
            events = self.play(number)
        return events


def masked_argmax(scores: Sequence[float] | npt.NDArray[np.floating], mask: npt.NDArray[np.int8]) -> int:
    """The legal number with the highest score (the lowest such number on a tie).

    >>> masked_argmax([0.1, 0.9, 0.5], np.array([1, 0, 1], np.int8))
    2
    """
    values = np.where(mask.astype(bool), np.asarray(scores, np.float64), -np.inf)
    return int(np.argmax(values))


__all__ = ["IllegalNumber", "NumberedGame", "masked_argmax"]
