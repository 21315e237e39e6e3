"""One side of Battle for Moscow as a Gymnasium environment, against a built-in opponent.

The agent plays ``side``; the other side is a strategy of :mod:`clients.strategies` (``"heuristic"`` by
default, ``"random"``, ``"search"``, a ``package.module:callable`` or a strategy object), which moves
between the agent's steps. Observations and actions are those of the PettingZoo environment
(:mod:`.aec`): ``{"observation", "action_mask"}`` and one number of the action space a step. The
engine seed of a reset is ``options["engine_seed"]``, else the text of ``seed``, else drawn from the
environment's generator (``options["entropy"]`` and ``options["ruleset"]`` as in :mod:`.aec`); the
opponent's own seed is derived from it, so ``reset(seed=n)`` replays the same game for the same actions.

A number the mask does not offer ends the episode as a loss (reward -1) with ``illegal="lose"`` (the
default: Gymnasium's checker steps with unmasked samples) or raises with ``illegal="raise"``.

>>> env = TyphoonSingle(side="soviet", opponent="random")
>>> observation, info = env.reset(seed=3)
>>> env.game.current_player(), observation["observation"].shape
('soviet', (82, 10, 14))
>>> legal = int(observation["action_mask"].argmax())
>>> observation, reward, terminated, truncated, info = env.step(legal)
>>> reward, terminated
(0.0, False)
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

import engine
from clients.strategies import Strategy, make_strategy

from .aec import check_settings, new_engine_game, observation_space
from .numbered import IllegalNumber, NumberedGame

SIDES = ("german", "soviet")


class TyphoonSingle(gymnasium.Env):
    """See the module's text. ``opponent_params`` go to the opponent's strategy; ``reward``, ``vp_scale``
    and ``max_steps`` are as in :class:`.aec.TyphoonAEC`."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, side: str = "german", opponent: str | Strategy = "heuristic",
                 opponent_params: dict[str, Any] | None = None, scenario: str = "standard",
                 options: dict[str, Any] | None = None, reward: str = "result", vp_scale: float = 0.01,
                 max_steps: int | None = None, illegal: str = "lose", render_mode: str | None = None) -> None:
        if side not in SIDES:
            raise ValueError(f"side is 'german' or 'soviet', not {side!r}")
        check_settings(reward, illegal, render_mode)
        self.side, self.opponent_spec, self.opponent_params = side, opponent, dict(opponent_params or {})
        self.scenario, self.engine_options = scenario, options
        self.reward_kind, self.vp_scale, self.max_steps, self.illegal = reward, vp_scale, max_steps, illegal
        self.render_mode = render_mode
        self.play = NumberedGame(engine.new_game(scenario, options))
        self.opponent = self._opponent("check")  # refuses an unknown strategy now
        self.observation_space = observation_space(self.play.observer)
        self.action_space = gymnasium.spaces.Discrete(self.play.encoding.size)
        self.steps = 0
        self._lead = 0
        self._over = True

    @property
    def game(self) -> engine.Game:
        """The engine game being played (read it; change it only through :meth:`step`)."""
        return self.play.game

    def _opponent(self, seed: str) -> Strategy:
        if isinstance(self.opponent_spec, str):
            return make_strategy(self.opponent_spec, seed=seed, **self.opponent_params)
        return self.opponent_spec

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        game = new_engine_game(self.scenario, self.engine_options, seed, options, self.np_random)
        self.play.moved_to(game)
        self.opponent = self._opponent(f"{game.seed}-opponent")
        self.steps = 0
        self._over = False
        self._opponent_moves()
        self._lead = self._points_lead()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        try:
            self.play.play(int(action))
        except IllegalNumber as error:
            if self.illegal == "raise":
                raise
            self._over = True
            return self._observation(), -1.0, True, False, {**self._info(), "illegal": str(error)}
        self.steps += 1
        self._opponent_moves()
        reward = 0.0
        if self.reward_kind == "points":
            lead = self._points_lead()
            reward += self.vp_scale * (lead - self._lead)
            self._lead = lead
        game = self.play.game
        terminated = game.is_terminal()
        truncated = not terminated and self.max_steps is not None and self.steps >= self.max_steps
        if terminated:
            reward += game.returns()[self.side]
        self._over = terminated or truncated
        return self._observation(), float(reward), terminated, truncated, self._info()

    def _opponent_moves(self) -> None:
        play = self.play
        while not play.game.is_terminal() and play.to_act() != self.side:
            game = play.game
            play.play_action(self.opponent.choose(game, game.legal_actions()))

    def _observation(self) -> dict[str, Any]:
        mask = self.play.mask() if not self._over else np.zeros(self.play.encoding.size, np.int8)
        return {"observation": self.play.observe(self.side), "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        result = self.play.game.result()
        return {"engine_seed": self.play.game.seed, "result": result.to_json() if result else None}

    def _points_lead(self) -> int:
        points = self.play.game.victory_points()
        return points[self.side] - points["soviet" if self.side == "german" else "german"]

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        from clients.render import text_board

        return text_board(self.play.game)


__all__ = ["TyphoonSingle"]
