"""The sybil farm: one client registers a farmer and four players it controls, which resign every
ladder match they are paired into against the farmer, beside two honest heuristic bots.

The farmer itself plays at random (a weak bot wanting a rating it does not earn). Each of the four
sybils gives up at once against the farmer (the attack as reported in issue 26) and plays at random
against anyone else. Every player is registered under an owner of its own, as an attacker does once
the ladder never pairs two players of one owner, and all five owners from the attacker's one address
(the most ``register_owner`` lets one address register in an hour); each honest bot registers from a
network (a /24: a client counts by it) of its own. The addresses are ``X-Forwarded-For`` in 198.18.0.0/15 (kept for benchmarks),
which ``loadtests.abuse`` has the service trust from 127.0.0.1, as behind the documented proxy; each
attack uses addresses of its own. What it got: the farmer's rank, rating and rated games against the
best honest bot's, and how many of the farm's matches were rated (and why not).
``sybil-patient`` (:mod:`loadtests.attacks.sybil_patient`) is the same farm with sybils that first play
on, into the second turn and past the ladder's ``min_actions`` of their own (read from ``GetLadder``),
so that a resignation is not an early end.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from typing import TYPE_CHECKING, Any

from clients.client import TyphoonClient, TyphoonError
from clients.ladder import LadderBot, LadderClient, LadderMatch

if TYPE_CHECKING:
    from loadtests.attacks import Target

NAME = "sybil"
SUMMARY = ("a farmer and four players of the same client that resign every match against it, beside two honest "
           "heuristic bots: the farmer's rank and rating against the honest bots'")
SYBILS = 4


class Sybil:
    """A random player that gives up against the farmer: at once, or after ``patience`` actions of its own."""

    name = "sybil"

    def __init__(self, target: str, farmer_id: str, match: LadderMatch, patience: int | None, seed: str) -> None:
        self.target = target
        self.match = match
        self.farming = match.opponent_id == farmer_id
        self.patience = patience  # None: resigns at once; else after this many actions of its own, from turn 2
        self.rng = random.Random(seed)
        self.actions = 0

    def resign(self) -> None:
        with TyphoonClient(self.target, retries=2) as client:
            try:
                client.resign(self.match.match_id, self.match.seat_token, request_id=uuid.uuid4().hex)
            except TyphoonError:
                pass  # over already

    def choose(self, state: Any, legal_actions: list) -> Any:
        if self.farming and (self.patience is None or (state.turn >= 2 and self.actions >= self.patience)):
            self.resign()
        self.actions += 1
        return self.rng.choice(legal_actions)


def _register(target: Target, address: str, name: str, role: str) -> tuple[str, str]:
    """A player under an owner of its own, registered from ``address``."""
    with LadderClient(target.grpc, retries=2, metadata=[("x-forwarded-for", address)]) as ladder:
        registered = ladder.register_with_owner(f"{name}-{uuid.uuid4().hex[:6]}",
                                                f"loadtests/attacks/sybil.py: {role}")
    return registered.player.player_id, registered.api_key


def farm(target: Target, seconds: float, network: int, patient: bool = False, spread: bool = False) -> dict[str, Any]:
    """Run the farm for ``seconds``, the farmer registered from 198.18.``network``.1 and the sybils from the
    same address, unless ``spread``: each from a /24 of its own (198.18.``16 network + i``.2, an attacker with
    many networks), the honest bots each from a /24 of its own too; the figures of the farmer and of the
    best honest bot."""
    attacker = f"198.18.{network}.1"
    with LadderClient(target.grpc, retries=2) as ladder:
        patience = ladder.ladder().fair_play.min_actions if patient else None
        farmer_id, farmer_key = _register(target, attacker, "farmer", "the farmer")
        sybils = [_register(target, f"198.18.{16 * network + i}.2" if spread else attacker, f"sybil{i}", "a sybil")
                  for i in range(SYBILS)]
        honest = [_register(target, f"198.19.{16 * network + i}.100", f"honest{i}", "an honest heuristic bot")
                  for i in range(2)]

        def sybil_factory(index: int):
            def factory(match: LadderMatch) -> Sybil:
                sybil = Sybil(target.grpc, farmer_id, match, patience, f"{index}-{match.match_id}")
                if sybil.farming and patience is None:
                    sybil.resign()
                return sybil
            return factory

        bots = [LadderBot("random", target.grpc, farmer_key, concurrency=4, seed="farmer", retry_seconds=30)]
        bots += [LadderBot(None, target.grpc, key, concurrency=2, factory=sybil_factory(i), retry_seconds=30)
                 for i, (_, key) in enumerate(sybils)]
        bots += [LadderBot("heuristic", target.grpc, key, concurrency=2, seed=f"honest{i}", retry_seconds=30)
                 for i, (_, key) in enumerate(honest)]
        threads = [threading.Thread(target=bot.run, daemon=True, name=f"sybil-bot-{i}") for i, bot in enumerate(bots)]
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        for bot in bots:
            bot.stop()  # their matches go on without them: the clocks end them
        for thread in threads:
            thread.join(10)
        time.sleep(2)  # the results round rates what just ended
        board = {p.player_id: p for p in ladder.standings()}
        farm_games = [g for g in ladder.matches(farmer_id) if g.opponent_id in {pid for pid, _ in sybils}]
    farmer = board[farmer_id]
    best = max((board[pid] for pid, _ in honest), key=lambda p: p.rating)
    rated = [g for g in farm_games if g.outcome != "aborted" and getattr(g, "rated", True)]
    unrated = Counter(getattr(g, "unrated_reason", "aborted") for g in farm_games if g not in rated)
    # a rated farm win raises the farmer's rating only against an established sybil (service.ladder.fairness)
    raised = [g for g in rated if g.outcome == "win" and not getattr(g, "opponent_provisional", False)]
    return {"players": len(board), "farm matches": len(farm_games), "farm matches rated": len(rated),
            "farm matches not rated": dict(unrated), "farm wins that could raise the rating": len(raised),
            "farmer provisional": getattr(farmer, "provisional", False),
            "farmer rank": farmer.rank, "farmer rating": round(farmer.rating, 2), "farmer rated games": farmer.games,
            "best honest rank": best.rank, "best honest rating": round(best.rating, 2),
            "best honest rated games": best.games,
            "farmer no higher than honest": farmer.rating <= best.rating}


def run(target: Target, seconds: float) -> dict[str, Any]:
    return farm(target, seconds, network=1)
