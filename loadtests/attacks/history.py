"""Calls whose work grows with a match's length (issue 34, point 1): VerifyMatch and GetMatch at a version
re-simulate the match's log. Before the history pool (service.guard.history_pool) they ran on the event
loop, uncached: four anonymous loops of ``curl /v1/matches/$ID/verification`` on a long finished match
took honest play from 1,188 to 16 calls per 15 s and /healthz's median from 4 to 728 ms.

The attack makes a finished campaign match and a live one (~1,000 and ~600 actions), measures honest
play from an address of its own (random actions over gRPC, :mod:`loadtests.attacks.honest_play`) and
/healthz under three attacks, each for a sixth of its time, alone for half that before and after (the
rate alone is their mean: the machine is shared, its load drifts):

1. the issue's: four loops, one address, asking for the finished match's verification;
2. the costly one: eight loops from eight addresses asking for the live match's states at random
   versions (each a block the cache has not seen) and its verification (a live match's is not cached);
3. one seat sending its last action again with its request id, four loops: the first answer is
   rebuilt by replaying the match (~0.1 s on the event loop before the history pool took it).

Figures: honest calls/s and /healthz's median alone and under each attack (with the ratio),
the attackers' answers by HTTP status and reason, and whether /readyz said NOT_SERVING meanwhile.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from typing import TYPE_CHECKING, Any

import httpx
from google.protobuf import json_format

from clients.client import TyphoonClient
from loadtests.attacks.honest_play import HonestPlay, ServiceCpu, attacker, rate_and_health

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

NAME = "history"
SUMMARY = ("loops of VerifyMatch, GetMatch at random versions and a repeated request id on long matches, from 1 "
           "then 8 addresses")


#: One request of an attacker's loop: method, path, the number of versions to pick ``?version=`` from (0:
#: none), a JSON body and a bearer token.
Ask = tuple[str, str, int, dict[str, Any] | None, str | None]


def _long_match(client: TyphoonClient, seed: str, actions: int | None) -> tuple[str, int, Ask]:
    """A campaign match played at random (to its end, or for ``actions``): its id, its version, and its last
    action sent again with its request id (REST), an Ask whose answer is rebuilt from the log."""
    match, tokens = client.create_match(scenario="campaign", seats=["german", "soviet"])
    chooser = random.Random(seed)
    last: Ask | None = None
    while actions is None or actions > 0:
        legal = client.legal_actions(match.match_id)
        if not legal.side_to_act:
            break
        action, request_id = chooser.choice(legal.actions), uuid.uuid4().hex
        client.submit(match.match_id, tokens[legal.side_to_act], action, expected_version=legal.version,
                      request_id=request_id)
        last = ("POST", f"/v1/matches/{match.match_id}/actions", 0,
                {"action": json_format.MessageToDict(action, preserving_proto_field_name=True),
                 "expected_version": legal.version, "request_id": request_id}, tokens[legal.side_to_act])
        actions = None if actions is None else actions - 1
    assert last is not None
    return match.match_id, client.get_match(match.match_id).match.version, last


def _loops(target: Target, seconds: float, asks: list[Ask], addresses: list[str]) -> Counter[str]:
    """One loop per address, each sending one of ``asks`` at random for ``seconds``, the attacker apart
    (honest_play.attacker)."""
    return attacker(_attack, target.http, seconds, asks, addresses, seconds=seconds)


def _attack(http_base: str, seconds: float, asks: list[Ask], addresses: list[str]) -> Counter[str]:
    outcomes: Counter[str] = Counter()
    end = time.monotonic() + seconds

    def loop(address: str, chooser: random.Random) -> None:
        with httpx.Client(base_url=http_base, timeout=60, headers={"X-Forwarded-For": address}) as http:
            while time.monotonic() < end:
                method, path, versions, body, token = chooser.choice(asks)
                reply = http.request(method, path, params={"version": chooser.randrange(versions)} if versions else None,
                                     json=body, headers={"Authorization": f"Bearer {token}"} if token else None)
                reason = reply.json().get("error", {}).get("reason", "") if reply.status_code != 200 else ""
                outcomes[f"{reply.status_code} {reason}".strip()] += 1

    threads = [threading.Thread(target=loop, args=(address, random.Random(address))) for address in addresses]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def _not_ready(target: Target, seconds: float) -> dict[str, int]:
    """How many of /readyz's answers over ``seconds`` (every 0.25 s) were 503."""
    counts = {"asked": 0, "not ready": 0}
    end = time.monotonic() + seconds
    with httpx.Client(base_url=target.http, timeout=30) as http:
        while time.monotonic() < end:
            counts["asked"] += 1
            counts["not ready"] += http.get("/readyz").status_code == 503
            time.sleep(0.25)
    return counts


def run(target: Target, seconds: float) -> dict[str, Any]:
    with TyphoonClient(target.grpc, timeout=60) as client:
        finished, finished_version, _ = _long_match(client, "finished", None)
        live, live_version, retried = _long_match(client, "live", 600)
    part = seconds / 6  # each attack: honest play alone for half a part, attacked for a part, alone again
    figures: dict[str, Any] = {"finished match actions": finished_version, "live match actions": live_version}
    with HonestPlay(target) as play:
        play.rate(1.0)  # its first match made
        attacks: dict[str, tuple[list[Ask], list[str]]] = {
            "1 address, finished verification x4": (
                [("GET", f"/v1/matches/{finished}/verification", 0, None, None)], ["198.18.10.1"] * 4),
            "8 addresses, live states and verification": (
                [("GET", f"/v1/matches/{live}", live_version, None, None),
                 ("GET", f"/v1/matches/{live}/verification", 0, None, None)],
                [f"198.18.11.{n}" for n in range(1, 9)]),
            "1 seat, its last action's request id again x4": ([retried], ["198.18.12.1"] * 4),
        }
        for name, (asks, addresses) in attacks.items():
            before, health_before = rate_and_health(play, target, part / 2)
            found: dict[str, Any] = {}
            attackers = threading.Thread(target=lambda: found.update(outcomes=_loops(target, part, asks, addresses)))
            readiness = threading.Thread(target=lambda: found.update(ready=_not_ready(target, part)))
            attackers.start()
            readiness.start()
            with ServiceCpu(target) as cpu:
                rate, health = rate_and_health(play, target, part)
            attackers.join()
            readiness.join()
            after, health_after = rate_and_health(play, target, part / 2)
            alone = (before + after) / 2
            figures |= {f"{name}: honest calls/s alone, attacked": f"{alone:.1f}, {rate} ({rate / alone:.0%})"
                        if alone else rate,
                        f"{name}: healthz ms alone, attacked": f"{(health_before + health_after) / 2:.1f}, {health}",
                        f"{name}: attacker answers": dict(found["outcomes"].most_common()),
                        f"{name}: readyz 503 of asked": f"{found['ready']['not ready']}/{found['ready']['asked']}",
                        f"{name}: CPU attacked": cpu.shares}
        figures["honest calls refused"] = play.refused
    return figures
