"""Battle for Moscow as an OpenSpiel game, registered from Python: ``pyspiel.load_game("python_typhoon_bfm")``.

Sequential, perfect information, zero-sum, terminal rewards (+1 / -1, 0 for a draw); player 0 is the
German player, 1 the Soviet. Player actions are the numbers of the fixed action space (:mod:`.encoding`),
observations the planes of :mod:`.observation` (``observation_tensor`` is their flattening). Every die roll
is a chance node of six outcomes of probability 1/6 (outcome ``k`` is the face ``k + 1``): when an action
rolls, the state becomes a chance node until the faces it needs are chosen, which the engine applies
through :func:`engine.chance.apply_rolling`. Parameters: ``scenario`` (``standard``, ``campaign``) and
``options`` (as for ``typhoon selfplay --options``: ``all``, a preset, ``name`` or ``name=value``, comma
separated).

``max_game_length`` is an upper bound from the rules' own limits (every unit moves once a phase and
attacks at most once, a battle takes a few decisions, the turns are counted), far above any real game: a
random game of the standard scenario takes about 1,000 moves.

>>> import pyspiel
>>> game = pyspiel.load_game("python_typhoon_bfm")
>>> state = game.new_initial_state()
>>> state.current_player(), game.num_distinct_actions(), game.observation_tensor_shape()
(0, 6133, [82, 10, 14])
>>> state.apply_action(6126)  # standard_setup
>>> state.apply_action(6127)  # end_phase: the panzers do not move
>>> attack = next(a for a in state.legal_actions() if state.action_to_string(a) == "attack XLI NE")
>>> state.apply_action(attack)
>>> state.apply_action(6128)  # close_declarations; then resolve the battle against 10th
>>> [state.action_to_string(a) for a in state.legal_actions()]
['resolve 10th']
>>> state.apply_action(state.legal_actions()[0])
>>> state.is_chance_node(), state.chance_outcomes()[0]
(True, (0, 0.16666666666666666))
>>> state.apply_action(5)  # a 6
>>> state.current_player(), state.engine_game().rolls, state.engine_game().fixed_dice
(0, 1, (6,))
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.observation import IIGObserverForPublicInfoGame

import engine
from engine import Action
from engine.chance import FACES, apply_rolling

from .numbered import NumberedGame

SHORT_NAME = "python_typhoon_bfm"
PLAYERS: tuple[str, str] = ("german", "soviet")
#: numbers one game turn may take at the most (see the module's text)
MOVES_PER_TURN_BOUND = 20_000

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Battle for Moscow (Typhoon)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"scenario": "standard", "options": ""},
)


class TyphoonGame(pyspiel.Game):  # type: ignore[misc]
    """The game of a scenario and options (see the module's text)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**GAME_TYPE.parameter_specification, **(params or {})}
        self.scenario_id = str(params["scenario"])
        self.engine_options = engine.Options.parse(str(params["options"])).to_json()
        first = engine.new_game(self.scenario_id, self.engine_options)
        self.template = NumberedGame(first)
        turns = first.scenario.last_turn - first.scenario.first_turn + 1
        info = pyspiel.GameInfo(
            num_distinct_actions=self.template.encoding.size,
            max_chance_outcomes=len(FACES),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MOVES_PER_TURN_BOUND * (turns + 1),
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> "TyphoonState":
        """A game at its start, the German player to set up. Its dice are all chance nodes: the engine
        game inside has no seed of its own."""
        return TyphoonState(self, self.template.copy())

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return PlanesObserver(self.template, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class TyphoonState(pyspiel.State):  # type: ignore[misc]
    """A position: the engine game played by numbers, and an action waiting for its dice, if any."""

    def __init__(self, game: TyphoonGame, play: NumberedGame) -> None:
        super().__init__(game)
        self.play = play  # copied by OpenSpiel's clone (a deep copy of the state: NumberedGame.__deepcopy__)
        self.rolling: Action | None = None  # the action whose dice are being chosen
        self.rolls: tuple[int, ...] = ()  # the faces chosen for it so far

    def engine_game(self) -> engine.Game:
        """The engine game (read it; change it only through apply_action)."""
        return self.play.game

    def current_player(self) -> int:
        if self.rolling is not None:
            return int(pyspiel.PlayerId.CHANCE)
        side = self.play.to_act()
        if side is None:
            return int(pyspiel.PlayerId.TERMINAL)
        return PLAYERS.index(side)

    def _legal_actions(self, player: int) -> list[int]:
        return self.play.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(face - 1, 1.0 / len(FACES)) for face in FACES]

    def _apply_action(self, action: int) -> None:
        if self.rolling is not None:
            self._roll((*self.rolls, FACES[action]))
            return
        chosen = self.play.pick(action)
        if chosen is not None:
            self.rolling = chosen
            self._roll(())

    def _roll(self, rolls: tuple[int, ...]) -> None:
        assert self.rolling is not None
        done = apply_rolling(self.play.game, self.rolling, rolls)
        if done is None:
            self.rolls = rolls  # one more face to choose
            return
        self.play.moved_to(done[0])
        self.rolling, self.rolls = None, ()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"roll {FACES[action]}"
        return self.play.encoding.describe(action)

    def is_terminal(self) -> bool:
        return self.rolling is None and self.play.game.is_terminal()

    def returns(self) -> list[float]:
        returns = self.play.game.returns() if self.is_terminal() else {side: 0.0 for side in PLAYERS}
        return [returns[side] for side in PLAYERS]

    def __str__(self) -> str:
        game = self.play.game
        text = f"turn {game.turn} {game.phase.name}, {game.current_player() or 'game over'} to act"
        if self.rolling is not None:
            text += f", rolling for {self.rolling.to_json()} ({len(self.rolls)} chosen)"
        if self.play.picked:
            text += f", picked {[self.play.encoding.describe(n) for n in self.play.picked]}"
        return text + f", {game.fixed_dice!r}, {sorted(game.to_json()['units'], key=lambda u: u['id'])}"


class PlanesObserver:
    """OpenSpiel's observer interface over :class:`.observation.Observer`: ``tensor`` is the planes,
    flattened; ``dict["observation"]`` the same memory as (planes, rows, columns)."""

    def __init__(self, template: NumberedGame, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; given {params}")
        shape = template.observer.shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: TyphoonState, player: int) -> None:
        self.dict["observation"][...] = state.play.observe(PLAYERS[player])

    def string_from(self, state: TyphoonState, player: int) -> str:
        return str(state)


class PointsRolloutEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """An MCTS evaluator for long games: ``depth`` random moves from the leaf (chance by the dice's
    probabilities), then the game's result if it ended, else ``tanh(lead / scale)`` of the German lead in
    victory points (positive for player 0). Priors are uniform, as in OpenSpiel's random rollouts."""

    def __init__(self, depth: int = 30, scale: float = 20.0, random_state: np.random.RandomState | None = None) -> None:
        self.depth, self.scale = depth, scale
        self._random = random_state or np.random.RandomState()

    def evaluate(self, state: TyphoonState) -> np.ndarray:
        working = state.clone()
        for _ in range(self.depth):
            if working.is_terminal():
                break
            if working.is_chance_node():
                outcomes, probabilities = zip(*working.chance_outcomes())
                working.apply_action(int(self._random.choice(outcomes, p=probabilities)))
            else:
                working.apply_action(int(self._random.choice(working.legal_actions())))
        if working.is_terminal():
            return np.array(working.returns())
        points = working.engine_game().victory_points()
        lead = float(np.tanh((points["german"] - points["soviet"]) / self.scale))
        return np.array([lead, -lead])

    def prior(self, state: TyphoonState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


pyspiel.register_game(GAME_TYPE, TyphoonGame)

__all__ = ["GAME_TYPE", "PLAYERS", "PlanesObserver", "PointsRolloutEvaluator", "SHORT_NAME", "TyphoonGame",
           "TyphoonState"]
