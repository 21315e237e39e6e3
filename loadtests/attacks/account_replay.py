"""Retries replayed from another address (issue 34, point 2): does any replay of a call that hands out a
key get a working key, and does the first caller keep its own?

The victim (198.18.200.1) registers an owner, a player under it, and rotates the player's key and the
owner's, each with a request id. The attacker (198.18.201.1, another network) has seen every request, as
a proxy's log or a shared machine would show it (everything but the answers), and sends each again, over
gRPC and over REST, within the request ids' 15 minutes. Reported: the replays sent, the keys they got
(before issue 34: a new owner key for the replayed RegisterOwner, the victim's then dead), whether the
victim's keys still work, and whether a weak request id (with a space) is refused.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import TYPE_CHECKING, Any

import httpx

from clients.client import TyphoonError
from clients.ladder import LadderClient
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi

if TYPE_CHECKING:
    from loadtests.attacks import Target

NAME = "account-replay"
SUMMARY = "every key-handing call replayed from another network, over gRPC and REST: keys the replays got"
VICTIM, ATTACKER = "198.18.200.1", "198.18.201.1"


def run(target: Target, seconds: float) -> dict[str, Any]:
    with LadderClient(target.grpc, retries=0, metadata=[("x-forwarded-for", VICTIM)]) as victim, \
            LadderClient(target.grpc, retries=0, metadata=[("x-forwarded-for", ATTACKER)]) as attacker, \
            httpx.Client(base_url=target.http, timeout=20, headers={"X-Forwarded-For": ATTACKER}) as rest:
        register = lapi.RegisterOwnerRequest(name=f"victim-{uuid.uuid4().hex[:8]}", request_id=str(uuid.uuid4()))
        owner = victim._call("RegisterOwner", register)
        owner_key = owner.owner_key
        player_request = lapi.RegisterPlayerRequest(name=f"victim-bot-{uuid.uuid4().hex[:8]}",
                                                    request_id=str(uuid.uuid4()))
        player = victim._call("RegisterPlayer", player_request, key=owner_key)
        rotation = lapi.RotatePlayerKeyRequest(player_id=player.player.player_id, request_id=str(uuid.uuid4()))
        api_key = victim._call("RotatePlayerKey", rotation, key=player.api_key).api_key
        owner_rotation = lapi.RotateOwnerKeyRequest(owner_id=owner.owner.owner_id, request_id=str(uuid.uuid4()))
        owner_key = victim._call("RotateOwnerKey", owner_rotation, key=owner.owner_key).owner_key

        got: Counter = Counter()
        sent = 0

        def replay(name: str, call) -> None:
            nonlocal sent
            sent += 1
            try:
                answer = call()
            except (TyphoonError, httpx.HTTPError) as error:
                got[f"refused {getattr(error, 'reason', type(error).__name__)}"] += 1
                return
            if isinstance(answer, httpx.Response):
                body = answer.json()
                key = body.get("owner_key") or body.get("api_key") if answer.status_code == 200 else None
                if answer.status_code != 200:
                    got[f"refused {body['error']['reason']}"] += 1
                    return
            else:
                key = getattr(answer, "owner_key", "") or getattr(answer, "api_key", "")
            got["a key" if key else "no key (key_withheld)"] += 1
            if key:
                got[f"a key from {name}"] += 1

        replay("RegisterOwner", lambda: attacker._call("RegisterOwner", register))
        replay("RegisterOwner (REST)", lambda: rest.post("/v1/ladder/owners", json={
            "name": register.name, "request_id": register.request_id}))
        replay("RegisterPlayer", lambda: attacker._call("RegisterPlayer", player_request))  # no owner key: it has none
        replay("RotatePlayerKey", lambda: attacker._call("RotatePlayerKey", rotation, key=player.api_key))
        replay("RotatePlayerKey (REST)", lambda: rest.post(
            f"/v1/ladder/players/{rotation.player_id}/rotate-key", json={"request_id": rotation.request_id},
            headers={"Authorization": f"Bearer {player.api_key}"}))
        replay("RotateOwnerKey", lambda: attacker._call("RotateOwnerKey", owner_rotation, key=owner.owner_key))
        bad_id = rest.post("/v1/ladder/owners", json={"name": f"x-{uuid.uuid4().hex[:8]}", "request_id": "my id"})
        with httpx.Client(base_url=target.http, timeout=20, headers={"X-Forwarded-For": VICTIM}) as own:
            seek_works = own.head("/v1/ladder/seek", headers={"Authorization": f"Bearer {api_key}"}).status_code == 200
            owner_works = own.get(f"/v1/ladder/owners/{owner.owner.owner_id}").status_code == 200 and \
                victim.register(f"victim-bot2-{uuid.uuid4().hex[:6]}", owner_key=owner_key)[1] != ""
    return {"replays": sent, "replays answered": dict(got), "keys handed to replays": got["a key"],
            "victim's API key works": seek_works, "victim's owner key works": owner_works,
            "request id 'my id'": bad_id.json().get("error", {}).get("reason", "accepted")}
