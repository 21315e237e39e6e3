"""The fixed discrete action space: every action of the game as a number, the same in every position.

Units are numbered in the scenario's counter order (``0 .. U-1``; both scenarios list the same 40
counters), hexes by the engine's board index (``(column - 1) * rows + (row - 1)``, ``0 .. H-1``; 140 hexes)
and directions ``N, NE, SE, S, SW, NW`` as ``0 .. 5``. The space is a row of blocks:

====================  ===========  =================================================================
block                 size         actions
====================  ===========  =================================================================
``to_hex``            U × H        unit ``u`` to hex ``h`` (``u * H + h``): place_unit, move, replace,
                                   and advance (into the hex the defender left)
``attack``            U × 6        unit ``u`` attacks the enemy unit in direction ``d`` (``u * 6 + d``)
``resolve``           U            resolve the battle against defender ``u``
``attacker_loss``     U            unit ``u`` takes the attacker's step loss
``lose_step``         U            one step of an exchange loss from unit ``u`` (see below)
``restore``           U            restore unit ``u`` to full strength
``frostbite``         U            unit ``u`` takes a Frostbite loss
``designate_tank``    U            unit ``u`` becomes the Tank unit
``assault``           U            one Assault point for attacker ``u``
``retreat_step``      6            the retreating unit's next hex is in direction ``d`` (see below)
singletons            7            standard_setup, end_phase, close_declarations, decline_advance,
                                   buy_winter_gear, roll_attrition, buy_extra_supply
====================  ===========  =================================================================

Two decisions are made one number at a time, because the engine offers a combination: the exchange
losses (``choose_losses``) are picked a step at a time, in the attackers' order, and a retreat path
(``choose_retreat``) a hex at a time from the defender's hex; the action mask offers only the numbers
that continue some legal choice, and the engine action is played when the numbers picked spell one. Every
other action is one number. ``resign`` and ``time_forfeit`` are the match's, not moves: they have none.

>>> import engine
>>> game = engine.new_game("standard", seed="doc")
>>> encoding = ActionEncoding(game.scenario)
>>> encoding.size
6133
>>> encoding.encode(game, engine.StandardSetup()), encoding.describe(6126)
((6126,), 'standard_setup')
>>> game.apply(engine.StandardSetup())[-1].type
'phase_started'
>>> move = game.legal_actions()[0]
>>> move, encoding.encode(game, move), encoding.describe(encoding.encode(game, move)[0])
(Move(unit='XL', to='0404', path=None), (4513,), 'to_hex XL 0404')
>>> choices = encoding.choices(game)
>>> choices.action((4513,)) == move, len(choices.next_ids(())) == len(game.legal_actions())
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import engine
from engine import (
    Action, Advance, Assault, BuyExtraSupply, BuyWinterGear, ChooseAttackerLoss, ChooseFrostbite, ChooseLosses,
    ChooseRetreat, CloseDeclarations, DeclareAttack, DeclineAdvance, DesignateTank, EndPhase, Move, PlaceUnit,
    Replace, ResolveBattle, Restore, RollAttrition, StandardSetup,
)

DIRECTIONS: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")

#: The blocks of one number per unit, in the order they follow the ``attack`` block.
UNIT_BLOCKS: tuple[str, ...] = ("resolve", "attacker_loss", "lose_step", "restore", "frostbite",
                                "designate_tank", "assault")

#: The actions that take no parameter, in the order of the last block.
SINGLETONS: tuple[Action, ...] = (StandardSetup(), EndPhase(), CloseDeclarations(), DeclineAdvance(),
                                  BuyWinterGear(), RollAttrition(), BuyExtraSupply())


class UnencodableAction(ValueError):
    """An engine action the action space has no number for (``resign``, a move with a named path...)."""


class ActionEncoding:
    """The action numbers of a scenario (its counters and map): :meth:`encode` turns an engine action into
    its number (or, for the two decisions taken a number at a time, its numbers), :meth:`choices` lists
    the legal ones of a position, and :meth:`describe` names a number."""

    def __init__(self, scenario: engine.Scenario) -> None:
        board = scenario.board
        self.units: tuple[str, ...] = tuple(scenario.counters)
        self.unit_index: dict[str, int] = {unit: i for i, unit in enumerate(self.units)}
        self.hexes: tuple[str, ...] = board.ids
        self.hex_index: dict[str, int] = dict(board.index)
        units, hexes = len(self.units), len(self.hexes)
        self.blocks: dict[str, tuple[int, int]] = {}
        start = 0
        for name, size in (("to_hex", units * hexes), ("attack", units * 6),
                           *((block, units) for block in UNIT_BLOCKS), ("retreat_step", 6),
                           ("singleton", len(SINGLETONS))):
            self.blocks[name] = (start, size)
            start += size
        self.size = start
        self._singleton_ids: dict[Action, int] = {action: self.blocks["singleton"][0] + i
                                                  for i, action in enumerate(SINGLETONS)}
        self._unit_block: dict[type, int] = {
            ChooseAttackerLoss: self.blocks["attacker_loss"][0],
            Restore: self.blocks["restore"][0], ChooseFrostbite: self.blocks["frostbite"][0],
            DesignateTank: self.blocks["designate_tank"][0],
        }
        #: direction number from hex ``a`` to its neighbour ``b``: ``self._toward[a][b]``
        self._toward: tuple[dict[int, int], ...] = tuple(
            {neighbour: DIRECTIONS.index(direction) for direction, neighbour in ways.items()}
            for ways in board.direction_to)
        self._step: tuple[dict[int, int], ...] = tuple(
            {DIRECTIONS.index(direction): neighbour for direction, neighbour in ways.items()}
            for ways in board.direction_to)
        self._board = board
        self._known: dict[Action, tuple[int, ...]] = {}  # the numbers of the actions that need no position

    # --- engine action → numbers -------------------------------------------------------------------

    def encode(self, game: engine.Game, action: Action) -> tuple[int, ...]:
        """The numbers of ``action`` in ``game``'s position (one, except for exchange losses and retreats).

        UnencodableAction for an action the space does not hold."""
        known = self._known.get(action)
        if known is not None:
            return known
        numbers = self._encode(game, action)
        if not isinstance(action, (DeclareAttack, Advance, ChooseRetreat)):  # the same in every position
            self._known[action] = numbers
        return numbers

    def _encode(self, game: engine.Game, action: Action) -> tuple[int, ...]:
        if isinstance(action, Move):
            if action.path is not None:
                raise UnencodableAction(f"a move is numbered by its destination, not its path: {action}")
            return (self._unit(action.unit) * len(self.hexes) + self._hex(action.to),)
        if isinstance(action, (PlaceUnit, Replace)):
            return (self._unit(action.unit) * len(self.hexes) + self._hex(action.hex),)
        if isinstance(action, DeclareAttack):
            if len(action.attackers) != 1:
                raise UnencodableAction(f"an attack is numbered one attacker at a time: {action}")
            attacker = action.attackers[0]
            direction = self._direction(game, attacker, action.defender)
            return (self.blocks["attack"][0] + self._unit(attacker) * 6 + direction,)
        if isinstance(action, ResolveBattle):
            return (self.blocks["resolve"][0] + self._unit(action.defender),)
        if isinstance(action, (ChooseAttackerLoss, Restore, ChooseFrostbite, DesignateTank)):
            return (self._unit_block[type(action)] + self._unit(action.unit),)
        if isinstance(action, Assault):
            if action.points != 1:
                raise UnencodableAction(f"Assault is numbered a point at a time: {action}")
            return (self.blocks["assault"][0] + self._unit(action.unit),)
        if isinstance(action, Advance):
            return (self._unit(action.unit) * len(self.hexes) + self._hex(self._pending_hex(game, "advance", action)),)
        if isinstance(action, ChooseLosses):
            if not action.units:
                raise UnencodableAction("an exchange loss of no step")
            start = self.blocks["lose_step"][0]
            return tuple(start + self._unit(unit) for unit in action.units)
        if isinstance(action, ChooseRetreat):
            here = self._hex(self._pending_hex(game, "retreat", action))
            start, steps = self.blocks["retreat_step"][0], []
            for hex_id in action.path:
                nxt = self._hex(hex_id)
                if nxt not in self._toward[here]:
                    raise UnencodableAction(f"{action}: {hex_id} is not next to {self.hexes[here]}")
                steps.append(start + self._toward[here][nxt])
                here = nxt
            return tuple(steps)
        number = self._singleton_ids.get(action)
        if number is None:
            raise UnencodableAction(f"the action space has no number for {action}")
        return (number,)

    def choices(self, game: engine.Game) -> "Choices":
        """The legal actions of ``game`` by their numbers."""
        encode = self.encode
        return Choices((encode(game, action), action) for action in game.legal_actions())

    # --- numbers → words ---------------------------------------------------------------------------

    def block_of(self, number: int) -> tuple[str, int]:
        """The block of ``number`` and its offset in it.

        >>> encoding = ActionEncoding(engine.load_scenario("standard"))
        >>> encoding.block_of(5600), encoding.block_of(6132)
        (('attack', 0), ('singleton', 6))
        """
        for name, (start, size) in self.blocks.items():
            if start <= number < start + size:
                return name, number - start
        raise ValueError(f"{number} is not an action number (0 to {self.size - 1})")

    def describe(self, number: int) -> str:
        """A short text for an action number (the same whatever the position).

        >>> encoding = ActionEncoding(engine.load_scenario("standard"))
        >>> [encoding.describe(n) for n in (0, 5600 + 6 * 34 + 1, 6120, 6127)]
        ['to_hex 3rd 0101', 'attack XLVII NE', 'retreat_step N', 'end_phase']
        """
        block, offset = self.block_of(number)
        hexes = len(self.hexes)
        if block == "to_hex":
            return f"to_hex {self.units[offset // hexes]} {self.hexes[offset % hexes]}"
        if block == "attack":
            return f"attack {self.units[offset // 6]} {DIRECTIONS[offset % 6]}"
        if block == "retreat_step":
            return f"retreat_step {DIRECTIONS[offset]}"
        if block == "singleton":
            return SINGLETONS[offset].type
        return f"{block} {self.units[offset]}"

    def neighbour(self, hex_index: int, direction: int) -> int | None:
        """The hex next to ``hex_index`` in ``direction`` (0-5), None off the map."""
        return self._step[hex_index].get(direction)

    # --- helpers -----------------------------------------------------------------------------------

    def _unit(self, unit: str) -> int:
        try:
            return self.unit_index[unit]
        except KeyError:
            raise UnencodableAction(f"unknown unit {unit!r}") from None

    def _hex(self, hex_id: str) -> int:
        try:
            return self.hex_index[hex_id]
        except KeyError:
            raise UnencodableAction(f"unknown hex {hex_id!r}") from None

    @staticmethod
    def _pending_hex(game: engine.Game, stage: str, action: Action) -> str:
        pending = game.pending_decision()
        if not pending or pending.get("stage") != stage:
            raise UnencodableAction(f"{action} answers no {stage} decision")
        return str(pending["hex"])

    def _direction(self, game: engine.Game, unit: str, target: str) -> int:
        here, there = game.hex_of.get(unit), game.hex_of.get(target)
        if here is None or there is None or there not in self._toward[here]:
            raise UnencodableAction(f"{unit} and {target} are not on neighbouring hexes")
        return self._toward[here][there]


class Choices:
    """The legal actions of a position by their numbers: what the mask offers after the numbers picked
    so far (``prefix``), and the action a complete pick spells. No action's numbers begin another's (the
    engine's exchange choices are minimal and its retreat paths of one length), so a pick is complete
    exactly when it spells an action.

    >>> choices = Choices([((1,), EndPhase()), ((7, 8), ChooseLosses(("a", "b"))), ((7, 9), ChooseLosses(("a", "c")))])
    >>> choices.next_ids(()), choices.next_ids((7,)), choices.action((7,)), choices.action((7, 9))
    ([1, 7], [8, 9], None, ChooseLosses(units=('a', 'c')))
    """

    __slots__ = ("single", "multi")

    def __init__(self, encoded: Iterable[tuple[tuple[int, ...], Action]]) -> None:
        self.single: dict[int, Action] = {}
        self.multi: dict[tuple[int, ...], Action] = {}
        for numbers, action in encoded:
            if len(numbers) == 1:
                self.single[numbers[0]] = action
            else:
                self.multi[numbers] = action

    def next_ids(self, prefix: Sequence[int]) -> list[int]:
        """The numbers that continue ``prefix`` toward a legal action, ascending."""
        depth = len(prefix)
        if not depth:
            ids = set(self.single)
            ids.update(numbers[0] for numbers in self.multi)
            return sorted(ids)
        prefix = tuple(prefix)
        return sorted({numbers[depth] for numbers in self.multi if numbers[:depth] == prefix})

    def action(self, numbers: Sequence[int]) -> Action | None:
        """The legal action ``numbers`` spell, None when they only begin one (or none)."""
        if len(numbers) == 1:
            return self.single.get(numbers[0])
        return self.multi.get(tuple(numbers))

    def __len__(self) -> int:
        return len(self.single) + len(self.multi)


__all__ = ["ActionEncoding", "Choices", "DIRECTIONS", "SINGLETONS", "UNIT_BLOCKS", "UnencodableAction"]
