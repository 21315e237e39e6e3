"""``Game.communication_of``: every unit of a side at once, as ``in_communication`` answers one by one."""

from __future__ import annotations

import random

import pytest

import engine

from bfm_helpers import play_random


@pytest.mark.parametrize("options", [{}, {"soviet_replacement_edge": True}], ids=["standard", "replacement-edge"])
def test_communication_of_a_side_is_each_units_in_communication(options):
    seen: set[bool] = set()

    def compare(game: engine.Game, action, events) -> None:
        for side in ("german", "soviet"):
            on_map = {unit for unit in game.hex_of if game.side_of(unit) == side}
            linked = game.communication_of(side)
            assert set(linked) == on_map
            assert linked == {unit: game.in_communication(unit) for unit in on_map}
            seen.update(linked.values())

    for seed in range(3):
        play_random(engine.new_game("campaign", options, seed=f"links-{seed}"), random.Random(seed),
                    max_actions=1500, on_step=compare)
    assert seen == {True, False}  # units cut off and units linked were both met
