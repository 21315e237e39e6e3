"""TimeForfeit: the action a game service applies when a side's clock runs out (the engine has no clock)."""

from __future__ import annotations

import pytest

import engine
from engine import Reason, StandardSetup, TimeForfeit
from engine.events import GameEnded


@pytest.mark.parametrize("side,winner", [("german", "soviet"), ("soviet", "german")])
def test_the_side_whose_flag_fell_loses_on_time(side, winner):
    game = engine.new_game("standard", seed="flag")
    game.apply(StandardSetup())
    (ended,) = [e for e in game.apply(TimeForfeit(side)) if isinstance(e, GameEnded)]  # whoever is to act
    assert (ended.winner, ended.reason) == (winner, "time")
    assert game.result().winner == winner and game.result().reason == "time"
    assert game.is_terminal() and game.current_player() is None


def test_time_forfeit_is_never_a_legal_action_and_ends_nothing_twice():
    game = engine.new_game("standard", seed="flag")
    assert not any(isinstance(a, TimeForfeit) for a in game.legal_actions())
    game.apply(TimeForfeit("german"))
    with pytest.raises(engine.IllegalAction) as refused:
        game.apply(TimeForfeit("soviet"))
    assert refused.value.reason == Reason.GAME_OVER


def test_time_forfeit_round_trips_and_refuses_a_bad_side():
    assert engine.action_from_json({"type": "time_forfeit", "side": "soviet"}) == TimeForfeit("soviet")
    with pytest.raises(engine.IllegalAction) as refused:
        engine.new_game("standard", seed="flag").apply(TimeForfeit("french"))
    assert refused.value.reason == Reason.MALFORMED_ACTION
