"""Standard reinforcement-learning and search environments for Battle for Moscow (docs/RL.md).

- :class:`TyphoonAEC` (:mod:`.aec`): a PettingZoo AEC environment, agents ``german`` and ``soviet``;
  :func:`env` is it wrapped as PettingZoo's classic games are.
- :class:`TyphoonSingle` (:mod:`.single`): one side as a Gymnasium environment against a built-in
  strategy, also registered as ``gymnasium.make("typhoon/BattleForMoscow-v0")``.
- ``import clients.rl.spiel`` registers the OpenSpiel game ``python_typhoon_bfm`` (:mod:`.spiel`): the
  dice as chance nodes.
- :func:`as_strategy` (:mod:`.strategy`): a policy trained on them as a strategy for ``typhoon bot``,
  the arena and the ladder.

All share one fixed action space (:mod:`.encoding`) and one observation (:mod:`.observation`). They need
the optional dependencies ``pip install -e '.[rl]'`` (``make install`` has them).

>>> import gymnasium
>>> env = gymnasium.make("typhoon/BattleForMoscow-v0", side="german", opponent="random")
>>> observation, info = env.reset(seed=1)
>>> observation["action_mask"].shape
(6133,)
"""

from __future__ import annotations

import gymnasium

from .aec import AGENTS, TyphoonAEC, env
from .encoding import ActionEncoding, Choices, UnencodableAction
from .numbered import IllegalNumber, NumberedGame, masked_argmax
from .observation import PLANE_INDEX, PLANES, Observer
from .single import TyphoonSingle
from .strategy import PolicyStrategy, as_strategy

GYMNASIUM_ID = "typhoon/BattleForMoscow-v0"

if GYMNASIUM_ID not in gymnasium.registry:
    gymnasium.register(id=GYMNASIUM_ID, entry_point="clients.rl.single:TyphoonSingle")

__all__ = ["AGENTS", "ActionEncoding", "Choices", "GYMNASIUM_ID", "IllegalNumber", "NumberedGame", "Observer",
           "PLANES", "PLANE_INDEX", "PolicyStrategy", "TyphoonAEC", "TyphoonSingle", "UnencodableAction",
           "as_strategy", "env", "masked_argmax"]
