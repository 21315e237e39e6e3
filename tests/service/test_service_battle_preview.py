"""PreviewBattle over gRPC and REST: the odds a declaration would give, before it is made, equal to the
battle the declaration then makes; each shift with its cause; the result of each die roll from the
scenario's table; refusals with the engine's reason, changing nothing."""

from __future__ import annotations

import random

import pytest
from clients.client import TyphoonError

from service.gen.typhoon.v1 import match_service_pb2 as api
from service_helpers import play_random


def to_declarations(client, seed: str):
    """A match played at random until battles can be declared; its id, tokens and legal actions."""
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    chooser = random.Random(seed)
    for _ in range(3000):
        legal = client.legal_actions(match.match_id)
        if any(a.WhichOneof("kind") == "declare_attack" for a in legal.actions):
            return match.match_id, tokens, legal
        client.submit(match.match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                      expected_version=legal.version)
    pytest.fail("no declaration within 3000 random actions")


def test_the_preview_is_the_battle_the_declaration_makes(client, http):
    match_id, tokens, legal = to_declarations(client, "preview")
    scenario = client.get_scenario("standard").scenario
    attack = next(a.declare_attack for a in legal.actions if a.WhichOneof("kind") == "declare_attack")
    request = api.PreviewBattleRequest(match_id=match_id, defender=attack.defender, attackers=attack.attackers)
    preview = client._call("PreviewBattle", request)
    rest = http.get(f"/v1/matches/{match_id}/battle-preview",
                    params=[("defender", attack.defender)] + [("attackers", a) for a in attack.attackers])
    assert rest.status_code == 200, rest.text
    body = rest.json()
    assert body["battle"]["column"] == preview.battle.column and body["version"] == legal.version
    assert preview.battle.shifts == sum(s.columns for s in preview.shift_causes)
    assert all(s.description for s in preview.shift_causes)
    assert [o.roll for o in preview.outcomes] == [1, 2, 3, 4, 5, 6]
    if preview.battle.column != "below":
        column = list(scenario.crt.columns).index(preview.battle.column)
        assert [o.result for o in preview.outcomes] == [row.results[column] for row in scenario.crt.rows]
    else:
        assert {o.result for o in preview.outcomes} == {"NE"}
    assert client.get_match(match_id).match.version == legal.version, "a preview changes nothing"

    declare = next(a for a in legal.actions if a.WhichOneof("kind") == "declare_attack")
    client.submit(match_id, tokens[legal.side_to_act], declare, expected_version=legal.version)
    declared = next(b for b in client.get_match(match_id).state.battles if b.defender == attack.defender)
    assert declared == preview.battle


def test_a_preview_that_is_not_a_legal_declaration_is_refused_in_the_engines_words(client, http):
    match_id, _, legal = to_declarations(client, "preview-refused")
    attack = next(a.declare_attack for a in legal.actions if a.WhichOneof("kind") == "declare_attack")
    far = next(u.id for u in client.get_match(match_id).state.units
               if u.id not in attack.attackers and u.id != attack.defender
               and all(not (a.WhichOneof("kind") == "declare_attack" and u.id in a.declare_attack.attackers
                            and a.declare_attack.defender == attack.defender) for a in legal.actions))
    with pytest.raises(TyphoonError) as refused:
        client._call("PreviewBattle", api.PreviewBattleRequest(match_id=match_id, defender=attack.defender,
                                                               attackers=[far]))
    assert refused.value.reason in {"NOT_ADJACENT", "NOT_YOUR_UNIT", "ALREADY_ATTACKING"}, refused.value
    for params, reason in (
            ({"defender": attack.defender}, "MISSING_FIELD"),
            ([("defender", attack.defender)] + [("attackers", "V")] * 7, "TOO_MANY_ATTACKERS"),
            ({"defender": attack.defender, "attackers": "nobody"}, "UNKNOWN_UNIT")):
        reply = http.get(f"/v1/matches/{match_id}/battle-preview", params=params)
        assert reply.status_code == 400 and reply.json()["error"]["reason"] == reason, reply.text
    reply = http.get("/v1/matches/nosuchmatch/battle-preview", params={"defender": "x", "attackers": "y"})
    assert reply.status_code == 404
    assert client.get_match(match_id).match.version == legal.version


def test_no_preview_once_the_game_is_over(client):
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    play_random(client, match.match_id, tokens, seed="over", max_actions=3)
    client.resign(match.match_id, tokens["soviet"])
    with pytest.raises(TyphoonError) as refused:
        client._call("PreviewBattle", api.PreviewBattleRequest(match_id=match.match_id, defender="16th",
                                                               attackers=["XXIV"]))
    assert refused.value.reason == "GAME_OVER"
