"""The battles declared in the current combat phase, with the odds the engine would fight them at now
(``Game.battle_odds``: strengths, weather, terrain, rivers and the special shifts in force), for
GameState.battles: a player sees the odds while declaring, a spectator before the die is rolled.

>>> import engine
>>> battles(engine.new_game("standard", seed="doc"))
[]
"""

from __future__ import annotations

import engine
from service.gen.typhoon.v1 import match_pb2


def battles(game: engine.Game) -> list[match_pb2.Battle]:
    declared = getattr(game.ps, "battles", None) or {}
    out = []
    for defender, attackers in declared.items():
        if defender not in game.hex_of:
            continue
        odds = game.battle_odds(defender, attackers)
        out.append(match_pb2.Battle(
            defender=defender, hex=game.board.ids[game.hex_of[defender]], attackers=list(attackers),
            attack=str(odds.attack), defence=odds.defence, odds=odds.raw_label(game.crt), shifts=odds.shifts,
            column=odds.label(game.crt)))
    return out
