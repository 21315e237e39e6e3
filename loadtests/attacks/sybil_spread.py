"""The patient sybil farm from many networks: as :mod:`loadtests.attacks.sybil_patient`, but each sybil
registers from a /24 of its own (an attacker with many networks: an IPv6 /48 holds 65,536 /64s), so no
owner is related to the farmer's: what the per-pair limits, ``min_actions`` and the provisional players
(fresh sybils are worth nothing to beat: ``farm wins that could raise the rating``) leave of the farm.
Before issue 34 (sybils from 127.0.5.2-5, addresses counted one by one): the farmer #1 at 15.49, the best
honest bot 2.47, 8 of 8 farm wins rated."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loadtests.attacks.sybil import farm

if TYPE_CHECKING:
    from loadtests.attacks import Target

NAME = "sybil-spread"
SUMMARY = "the patient sybil farm, each sybil registered from a /24 of its own (not related to the farmer)"


def run(target: Target, seconds: float) -> dict[str, Any]:
    return farm(target, seconds, network=3, patient=True, spread=True)
