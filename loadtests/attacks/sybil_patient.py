"""The sybil farm with patient sybils: as :mod:`loadtests.attacks.sybil`, but each sybil plays on against
the farmer into the second turn and past the ladder's ``min_actions`` of its own (``GetLadder``) before
it resigns: what is left of the farm once early ends are not rated."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loadtests.attacks.sybil import farm

if TYPE_CHECKING:
    from loadtests.attacks import Target

NAME = "sybil-patient"
SUMMARY = ("the sybil farm with sybils that play into the second turn, past the ladder's min_actions, before they "
           "resign to the farmer")


def run(target: Target, seconds: float) -> dict[str, Any]:
    return farm(target, seconds, network=2, patient=True)
