"""The REST routes: each RPC's HTTP method and path, what it reads its request from, and whether it
needs a bearer token. The REST transport (``service.api.http_api``) serves them and the OpenAPI
document (``service.api.openapi``) describes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.api.grpc_api import LADDER_SERVICE, SERVICE
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.gen.typhoon.v1 import match_service_pb2 as api


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    rpc: str
    summary: str
    body: bool = False
    authenticated: bool = False
    service: str = SERVICE.full_name
    #: A bearer token is read when sent, for more in the answer (WatchMatch's include_legal_actions).
    token_optional: bool = False
    #: The bearer keys it takes, any of them (OpenAPI security schemes), where they are not what
    #: ``authenticated`` implies (a seat token; a ladder player's API key)
    keys: tuple[str, ...] = ()

    @property
    def path_params(self) -> list[str]:
        return [part[1:-1] for part in self.path.split("/") if part.startswith("{")]


ROUTES: tuple[Route, ...] = (
    Route("POST", "/v1/matches", "CreateMatch", "Create a match (optionally claiming seats)", body=True),
    Route("GET", "/v1/matches", "ListMatches", "List matches, newest first"),
    Route("GET", "/v1/matches/{match_id}", "GetMatch", "A match and its game state"),
    Route("POST", "/v1/matches/{match_id}/join", "JoinMatch", "Claim a seat; returns its token once", body=True),
    Route("GET", "/v1/matches/{match_id}/legal-actions", "ListLegalActions", "The legal actions of the side to act"),
    Route("POST", "/v1/matches/{match_id}/actions", "SubmitAction", "Apply an action for your seat", body=True,
          authenticated=True),
    Route("POST", "/v1/matches/{match_id}/resign", "Resign", "Resign your side", body=True, authenticated=True),
    Route("POST", "/v1/matches/{match_id}/entropy", "ContributeEntropy",
          "Your seat's part in the dice (ruleset 4 on): its entropy commitment, then, once every seat has "
          "committed, its entropy", body=True, authenticated=True),
    Route("GET", "/v1/matches/{match_id}/events", "GetEventLog", "The event log, a page at a time"),
    Route("GET", "/v1/matches/{match_id}/watch", "WatchMatch",
          "Server-sent events: every event after the cursor, then live (Last-Event-ID resumes), and where the match "
          "stands after each change (with the seat token and include_legal_actions, its legal actions)",
          token_optional=True),
    Route("GET", "/v1/scenarios", "ListScenarios", "The scenarios, and every match option with its rule"),
    Route("GET", "/v1/scenarios/{scenario_id}", "GetScenario",
          "A scenario in full: map, counters, combat table, weather, turn track, sequence of play, set-up, "
          "victory points"),
    Route("GET", "/v1/matches/{match_id}/verification", "VerifyMatch",
          "The audit of the match's log: seed commitment, every die roll recomputed, the log re-simulated"),
    Route("GET", "/v1/matches/{match_id}/battle-preview", "PreviewBattle",
          "The battle a declaration would make, before it is made: odds, each column shift with its cause, "
          "the result of each die roll"),
    Route("POST", "/v1/ladder/owners", "RegisterOwner", "Register a ladder owner; returns its owner key once",
          body=True, service=LADDER_SERVICE.full_name),
    Route("GET", "/v1/ladder/owners/{owner_id}", "GetOwner", "A ladder owner and its players",
          service=LADDER_SERVICE.full_name),
    Route("POST", "/v1/ladder/owners/{owner_id}/rotate-key", "RotateOwnerKey",
          "A new owner key; the old one stops working", body=True, service=LADDER_SERVICE.full_name,
          keys=("ownerKey",)),  # not checked first: a retried rotation comes with the old key
    Route("POST", "/v1/ladder/owners/{owner_id}/revoke-key", "RevokeOwnerKey",
          "Close an owner: its key and its players' keys stop working", body=True, authenticated=True,
          service=LADDER_SERVICE.full_name, keys=("ownerKey",)),
    Route("POST", "/v1/ladder/players", "RegisterPlayer",
          "Register a ladder player under the owner of the key; returns its API key once", body=True,
          authenticated=True, service=LADDER_SERVICE.full_name, keys=("ownerKey",)),
    Route("POST", "/v1/ladder/players/{player_id}/rotate-key", "RotatePlayerKey",
          "A new API key for a player; the old one stops working", body=True, service=LADDER_SERVICE.full_name,
          keys=("apiKey", "ownerKey")),
    Route("POST", "/v1/ladder/players/{player_id}/revoke-key", "RevokePlayerKey",
          "Revoke a player's API key", body=True, authenticated=True, service=LADDER_SERVICE.full_name,
          keys=("apiKey", "ownerKey")),
    Route("GET", "/v1/ladder", "GetLadder", "The ladder's time control, scenario and options",
          service=LADDER_SERVICE.full_name),
    Route("GET", "/v1/ladder/seek", "Seek", "Server-sent events: each ladder match the player is paired into, "
          "with its seat token, and heartbeats", authenticated=True, service=LADDER_SERVICE.full_name),
    Route("GET", "/v1/ladder/leaderboard", "GetLeaderboard", "The ladder's players by rating, best first",
          service=LADDER_SERVICE.full_name),
    Route("GET", "/v1/ladder/players/{player_id}", "GetPlayer", "A ladder player", service=LADDER_SERVICE.full_name),
    Route("GET", "/v1/ladder/players/{player_id}/matches", "ListPlayerMatches",
          "A ladder player's matches, newest first, with its rating after each", service=LADDER_SERVICE.full_name),
)

#: service full name -> (descriptor, module of its messages)
SERVICES = {SERVICE.full_name: (SERVICE, api), LADDER_SERVICE.full_name: (LADDER_SERVICE, lapi)}


__all__ = ["ROUTES", "SERVICES", "Route"]
