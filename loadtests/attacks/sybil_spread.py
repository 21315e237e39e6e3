"""The patient sybil farm from many addresses: as :mod:`loadtests.attacks.sybil_patient`, but each sybil
registers from an address of its own (an attacker with many addresses: an IPv6 /48 holds 65,536 /64s),
so no owner is related to the farmer's: what the per-pair limits and ``min_actions`` leave of the farm."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loadtests.attacks.sybil import farm

if TYPE_CHECKING:
    from loadtests.attacks import Target

NAME = "sybil-spread"
SUMMARY = "the patient sybil farm, each sybil registered from an address of its own (not related to the farmer)"


def run(target: Target, seconds: float) -> dict[str, Any]:
    return farm(target, seconds, network=3, patient=True, spread=True)
