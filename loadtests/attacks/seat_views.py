"""Many watches of one's own seat, each asking for the legal actions and the state (issue 27's stream):
does each watcher cost the service a position and a list of actions per change?

The attacker holds both seats of a match of its own, opens ``WATCHERS`` WatchMatch streams with the
German seat token and ``include_legal_actions``, and plays random actions. Measured: the service's
CPU per action with one such watcher, then with all of them (the view of a state is built once per
process and shared; each watcher costs the sending of it), the updates each watcher got, and memory.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import TYPE_CHECKING, Any

import grpc
import psutil

from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc

if TYPE_CHECKING:
    from loadtests.attacks import Target

NAME = "seat-views"
SUMMARY = "hundreds of watches of one's own seat with include_legal_actions, while playing"
WATCHERS = 200


def _cpu(target: "Target") -> float:
    root = psutil.Process(target.service.process.pid)
    processes = [p for p in [root, *root.children(recursive=True)] if "redis" not in p.name()]
    return sum(p.cpu_times().user + p.cpu_times().system for p in processes)


async def _phase(stub, target: "Target", watchers: int, seconds: float) -> dict[str, Any]:
    """A match of the attacker's own, ``watchers`` watches of its German seat, random play for ``seconds``."""
    created = await stub.CreateMatch(api.CreateMatchRequest(seats=[api.SeatClaim(side="german"),
                                                                      api.SeatClaim(side="soviet")]))
    match_id = created.match.match_id
    tokens = {t.side: t.token for t in created.seat_tokens}
    seen = {"updates": 0, "with_actions": 0}
    refused: dict[str, int] = {}

    async def watch() -> None:
        call = stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, include_legal_actions=True,
                                                     after_sequence=created.match.last_sequence),
                               metadata=[("authorization", f"Bearer {tokens['german']}")])
        try:
            async for response in call:
                if response.WhichOneof("kind") == "update":
                    seen["updates"] += 1
                    seen["with_actions"] += response.update.HasField("legal_actions")
        except grpc.aio.AioRpcError as error:
            refused[error.code().name] = refused.get(error.code().name, 0) + 1

    tasks = [asyncio.create_task(watch()) for _ in range(watchers)]
    await asyncio.sleep(1.0)  # the streams are open
    chooser, played, before = random.Random(NAME), 0, _cpu(target)
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        legal = await stub.ListLegalActions(api.ListLegalActionsRequest(match_id=match_id))
        if not legal.side_to_act:
            break
        await stub.SubmitAction(api.SubmitActionRequest(match_id=match_id, action=chooser.choice(legal.actions),
                                                        expected_version=legal.version),
                                metadata=[("authorization", f"Bearer {tokens[legal.side_to_act]}")])
        played += 1
    cpu = _cpu(target) - before
    await asyncio.sleep(0.5)  # the last updates
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"actions": played, "server CPU ms/action": round(1000 * cpu / max(played, 1), 2),
            "updates per watcher": round(seen["updates"] / watchers, 1),
            "with legal actions per watcher": round(seen["with_actions"] / watchers, 1), "refused": refused or "none"}


async def _attack(target: "Target", seconds: float) -> dict[str, Any]:
    async with grpc.aio.insecure_channel(target.grpc) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        figures: dict[str, Any] = {}
        for watchers in (1, WATCHERS):
            for name, value in (await _phase(stub, target, watchers, seconds / 2)).items():
                figures[f"{name} ({watchers} watcher{'s' if watchers > 1 else ''})"] = value
        figures["memory MB"] = target.memory_mb()
        return figures


def run(target: "Target", seconds: float) -> dict[str, Any]:
    return asyncio.run(_attack(target, seconds))
