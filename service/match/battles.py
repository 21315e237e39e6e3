"""The battles declared in the current combat phase, with the odds the engine would fight them at now
(``Game.battle_odds``: strengths, weather, terrain, rivers and the special shifts in force), for
GameState.battles: a player sees the odds while declaring, a spectator before the die is rolled.

>>> import engine
>>> battles(engine.new_game("standard", seed="doc"))
[]

and the battle a declaration would make, before it is made (PreviewBattle): its odds, each shift with
its cause, and the result of each die roll.
"""

from __future__ import annotations

import engine
from engine import combat
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api


def battles(game: engine.Game) -> list[match_pb2.Battle]:
    declared = getattr(game.ps, "battles", None) or {}
    return [_battle(game, defender, list(attackers), game.battle_odds(defender, attackers))
            for defender, attackers in declared.items() if defender in game.hex_of]


def _battle(game: engine.Game, defender: str, attackers: list[str], odds: combat.Odds) -> match_pb2.Battle:
    return match_pb2.Battle(
        defender=defender, hex=game.board.ids[game.hex_of[defender]], attackers=attackers,
        attack=str(odds.attack), defence=odds.defence, odds=odds.raw_label(game.crt), shifts=odds.shifts,
        column=odds.label(game.crt))


def preview(game: engine.Game, version: int, defender: str, attackers: list[str]) -> api.PreviewBattleResponse:
    """The PreviewBattle answer; raises :class:`engine.IllegalAction` when the declaration is not legal.

    >>> try:
    ...     preview(engine.new_game("standard", seed="doc"), 0, "16th", ["XXIV"])
    ... except engine.IllegalAction as refused:
    ...     print(refused.reason)
    WRONG_PHASE
    """
    every, odds, shifts = game.preview_battle(defender, attackers)
    crt = game.crt
    weather = game.weather()
    below = odds.final < 0
    outcomes = [api.BattleOutcome(roll=roll, result="NE" if below else crt.result(odds.final, roll))
                for roll in range(1, 7)]
    for outcome in outcomes:
        outcome.description = combat.RESULT_NAMES.get(outcome.result, outcome.result)
    return api.PreviewBattleResponse(
        version=version, battle=_battle(game, defender, every, odds),
        strength=str(odds.attack / weather.attack_factor), weather=weather.id,
        attack_factor=str(weather.attack_factor),
        shift_causes=[api.ColumnShift(columns=s.columns, cause=s.cause, description=combat.SHIFT_CAUSES[s.cause])
                      for s in shifts],
        outcomes=outcomes, allowed=not (below and crt.below_lowest == "not_allowed"))
