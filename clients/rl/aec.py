"""Battle for Moscow as a PettingZoo AEC environment: agents ``german`` and ``soviet``, one discrete action
space for every action of the game, an action mask in each observation.

Each observation is ``{"observation": float32 (planes, 10, 14), "action_mask": int8 (actions,)}`` (see
:mod:`.observation` and :mod:`.encoding`, and docs/RL.md); the mask offers the agent to act its legal
numbers and the other agent none. The agent to act is the engine's player to act, so one agent often
acts many times in a row (a whole movement phase). The dice are the engine's, drawn from the match seed
as the service draws them: ``reset(seed=n)`` plays the game of seed ``"n"``, ``reset(options={"engine_seed":
text})`` the game of any seed, ``reset()`` a new seed from the environment's generator. A finished match's
game, dice included: ``options={"engine_seed": seed, "entropy": {"german": ..., "soviet": ...}}`` (the seed
revealed and the seats' entropy of its log; ``"ruleset"`` for a match of an older ruleset).

Rewards: +1 to the winner and -1 to the loser when the game ends (0 each for a draw), and with
``reward="points"`` also, after every engine action, ``vp_scale`` × the change in the agent's lead in
victory points. ``max_steps`` (numbers picked) truncates a game; an engine game ends by itself (the
scenario's last turn). ``illegal="raise"`` (the default of the raw environment) refuses a number the
mask does not offer with :class:`~.numbered.IllegalNumber`; :func:`env` wraps it as PettingZoo's
classic games are (an illegal move loses, -1).

>>> game = TyphoonAEC()
>>> game.reset(seed=7)
>>> game.agent_selection, int(game.action_space("german").n)
('german', 6133)
>>> observation, reward, terminated, truncated, info = game.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((82, 10, 14), 23)
>>> game.step(6126)  # standard_setup
>>> game.game.phase.name
'german_panzer_movement'
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import engine
from engine import Event

from .numbered import IllegalNumber, NumberedGame
from .observation import Observer

AGENTS: tuple[str, str] = ("german", "soviet")


def observation_space(observer: Observer) -> gymnasium.spaces.Dict:
    return gymnasium.spaces.Dict({
        "observation": gymnasium.spaces.Box(0.0, 1.0, observer.shape, np.float32),
        "action_mask": gymnasium.spaces.Box(0, 1, (observer.encoding.size,), np.int8),
    })


def check_settings(reward: str, illegal: str, render_mode: str | None) -> None:
    """ValueError for a setting the environments do not know."""
    for name, value, allowed in (("reward", reward, ("result", "points")), ("illegal", illegal, ("raise", "lose")),
                                 ("render_mode", render_mode, (None, "ansi"))):
        if value not in allowed:
            raise ValueError(f"{name} is one of {', '.join(map(repr, allowed))}, not {value!r}")


def new_engine_game(scenario: str, options: dict[str, Any] | None, seed: int | None,
                    reset_options: dict[str, Any] | None, rng: np.random.Generator) -> engine.Game:
    """The engine game a reset starts: of the seed :func:`engine_seed` gives, with the seats' entropy of
    ``reset_options["entropy"]`` (``{"german": text, "soviet": text}``: a match's, from its log) mixed
    into its dice, and in ``reset_options["ruleset"]`` (an older match's) if given."""
    extra = reset_options or {}
    ruleset = int(extra["ruleset"]) if extra.get("ruleset") is not None else engine.RULESET
    game = engine.new_game(scenario, options, seed=engine_seed(seed, reset_options, rng), ruleset=ruleset)
    for side, entropy in sorted((extra.get("entropy") or {}).items()):
        game.contribute_entropy(side, entropy)
    return game


def engine_seed(seed: int | None, options: dict[str, Any] | None, rng: np.random.Generator) -> str:
    """The engine seed of a reset: ``options["engine_seed"]``, else the text of ``seed``, else one drawn
    from ``rng`` (the environment's generator, so that a seeded environment plays the same games)."""
    if options and options.get("engine_seed") is not None:
        return str(options["engine_seed"])
    if seed is not None:
        return str(seed)
    return f"rl-{int(rng.integers(2**63))}"


class TyphoonAEC(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """The raw environment (see the module's text). ``scenario`` and ``options`` are the engine's
    (``engine.new_game``); ``reward`` is "result" or "points"."""

    metadata = {"name": "typhoon_bfm_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, scenario: str = "standard", options: dict[str, Any] | None = None, reward: str = "result",
                 vp_scale: float = 0.01, max_steps: int | None = None, illegal: str = "raise",
                 render_mode: str | None = None) -> None:
        super().__init__()
        check_settings(reward, illegal, render_mode)
        self.scenario, self.engine_options = scenario, options
        self.reward_kind, self.vp_scale, self.max_steps, self.illegal = reward, vp_scale, max_steps, illegal
        self.render_mode = render_mode
        first = engine.new_game(scenario, options)  # refuses a bad scenario or options now
        self.play = NumberedGame(first)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        space = observation_space(self.play.observer)
        actions = gymnasium.spaces.Discrete(self.play.encoding.size)
        self.observation_spaces = {agent: space for agent in AGENTS}
        self.action_spaces = {agent: actions for agent in AGENTS}
        self.last_events: list[Event] = []
        self._rng = np.random.default_rng()
        self._start(first)

    @property
    def game(self) -> engine.Game:
        """The engine game being played (read it, clone it; change it only through :meth:`step`)."""
        return self.play.game

    def contribute_entropy(self, side: str, entropy: str) -> None:
        """Mix ``side``'s entropy into the dice, as a match's seat does before the first die (ruleset 4
        on; :meth:`engine.Game.contribute_entropy`, which refuses it after the first die): how a match's
        log replays with its entries in order. ``reset(options={"entropy": ...})`` gives both at once."""
        self.play.game.contribute_entropy(side, entropy)

    def commit_entropy(self, side: str, commitment: str) -> None:
        """``side`` commits to the SHA-256 (hex) of the entropy it reveals later, or to none (``""``), as a
        match's seat does (:meth:`engine.Game.commit_entropy`): a match's log replays its
        ``entropy_committed`` entries with this, in order."""
        self.play.game.commit_entropy(side, commitment)

    def await_entropy(self, side: str) -> None:
        """The game waits for ``side``'s commitment (its seat was taken for it: a log's ``entropy_awaited``;
        :meth:`engine.Game.await_entropy`)."""
        self.play.game.await_entropy(side)

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._start(new_engine_game(self.scenario, self.engine_options, seed, options, self._rng))

    def _start(self, game: engine.Game) -> None:
        self.play.moved_to(game)
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0.0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self.steps = 0
        self.last_events = []
        self.agent_selection = self.play.to_act() or AGENTS[0]
        self._lead = self._points_lead()

    def observe(self, agent: str) -> dict[str, Any]:
        mask = (self.play.mask() if agent == self.agent_selection and not self._done(agent)
                else np.zeros(self.play.encoding.size, np.int8))
        return {"observation": self.play.observe(agent), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self._done(agent):
            self._was_dead_step(action)
            return
        try:
            events = self.play.play(int(action))
        except IllegalNumber:
            if self.illegal == "raise":
                raise  # and nothing has changed
            events = None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if events is None:
            self._end({agent: -1.0, _other(agent): 1.0}, truncated=False)
            self._accumulate_rewards()
            return
        self.last_events = events
        self.steps += 1
        if self.reward_kind == "points" and self.last_events:
            lead = self._points_lead()
            for side in AGENTS:
                self.rewards[side] += self.vp_scale * (lead[side] - self._lead[side])
            self._lead = lead
        if self.play.game.is_terminal():
            self._end(self.play.game.returns(), truncated=False)
        elif self.max_steps is not None and self.steps >= self.max_steps:
            self._end({side: 0.0 for side in AGENTS}, truncated=True)
        else:
            self.agent_selection = self.play.to_act() or agent
        self._accumulate_rewards()

    def _end(self, returns: dict[str, float], truncated: bool) -> None:
        for side in AGENTS:
            self.rewards[side] = self.rewards.get(side, 0.0) + float(returns[side])
            if truncated:
                self.truncations[side] = True
            else:
                self.terminations[side] = True
        result = self.play.game.result()
        for side in AGENTS:
            self.infos[side] = {"result": result.to_json() if result else None}

    def _done(self, agent: str) -> bool:
        return self.terminations.get(agent, False) or self.truncations.get(agent, False)

    def _points_lead(self) -> dict[str, int]:
        points = self.play.game.victory_points()
        return {side: points[side] - points[_other(side)] for side in AGENTS}

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: create the environment with render_mode='ansi'")
            return None
        from clients.render import text_board

        return text_board(self.play.game)

    def close(self) -> None:
        pass


def _other(side: str) -> str:
    return "soviet" if side == "german" else "german"


def env(**kwargs: Any) -> AECEnv:
    """The environment as PettingZoo's classic games come: an illegal number loses the game (-1), actions
    are checked against the space, and the call order is enforced."""
    raw = TyphoonAEC(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


__all__ = ["AGENTS", "TyphoonAEC", "check_settings", "engine_seed", "env", "new_engine_game", "observation_space"]
