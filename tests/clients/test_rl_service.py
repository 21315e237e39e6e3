"""The environments and the live service agree (issue 36, part 3): a policy written against the environment
plays both seats of a match on a real service through ``typhoon bot --strategy module:callable``, and the
same seeded game played through the PettingZoo environment (the seed the service reveals at the end and
the seats' entropy, the actions of its log picked as the environment's numbers) gives the service's log back: every game event,
every state hash, the result."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import engine
from clients.client import TyphoonClient
from clients.replay import fetch_log, verify_log
from clients.rl import TyphoonAEC
from service.match import convert
from service.match.entropy_log import replay_event

POLICY = textwrap.dedent('''
    """A policy written against the environment: attacks when the mask offers an attack, else a number of
    its own random generator (seeded: the bot's games are the same each run)."""
    import numpy as np

    import engine
    from clients.rl import ActionEncoding, as_strategy

    ATTACKS = ActionEncoding(engine.load_scenario("standard")).blocks["attack"]
    rng = np.random.default_rng(36)

    def policy(observation):
        legal = np.flatnonzero(observation["action_mask"])
        attacks = legal[(legal >= ATTACKS[0]) & (legal < ATTACKS[0] + ATTACKS[1])]
        return int(attacks[0] if len(attacks) and rng.random() < 0.7 else rng.choice(legal))

    strategy = as_strategy(policy, name="attacker")
''')


def test_a_policy_plays_on_the_service_and_the_environment_replays_its_match(typhoon_target, tmp_path):
    (tmp_path / "my_policy.py").write_text(POLICY)
    with TyphoonClient(typhoon_target) as client:
        match, _ = client.create_match("standard")
    commands = [[sys.executable, "-m", "clients.cli", "bot", "--match", match.match_id, "--side", side,
                 "--strategy", "my_policy:strategy", "--server", typhoon_target, "--quiet"]
                for side in ("german", "soviet")]
    # run from the policy's folder, as its author would: `typhoon bot` imports module:callable from there
    processes = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for command in commands]
    outputs = [process.communicate(timeout=300)[0] for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    with TyphoonClient(typhoon_target) as client:
        log = fetch_log(client, match.match_id)
        final = client.get_match(match.match_id)
    assert verify_log(log, match_id=match.match_id, final=final).ok
    assert [seat.player_name for seat in final.match.seats] == ["attacker bot", "attacker bot"]

    seed = next(entry.seed_revealed.seed for entry in log if entry.WhichOneof("kind") == "seed_revealed")
    aec = TyphoonAEC()
    aec.reset(options={"engine_seed": seed, "ruleset": log[0].match_created.ruleset})
    logged_events, replayed_events, actions, rolls, entropy = [], [], 0, 0, []
    for entry in log:
        kind = entry.WhichOneof("kind")
        # in log order: the state hashes hold the commitments and the entropy given so far (the AEC takes them as
        # a game does)
        if replay_event(aec, entry):
            entropy += [entry.entropy_contributed.side] if kind == "entropy_contributed" else []
        elif kind == "game_event":
            logged_events.append(convert.event_from_proto(entry.game_event))
        elif kind == "action_submitted":
            submitted = entry.action_submitted
            action = engine.action_from_json(convert.action_from_proto(submitted.action))
            assert aec.agent_selection == submitted.side
            for number in aec.play.numbers_of(action):
                observation, *_ = aec.last()
                assert observation["action_mask"][number] == 1
                aec.step(number)
            replayed_events += [convert.event_from_proto(convert.event_to_proto(e.to_json())) for e in aec.last_events]
            assert aec.game.state_hash() == submitted.state_hash
            actions += 1
            rolls += sum(e.type == "die_rolled" for e in aec.last_events)
    assert replayed_events == logged_events and actions > 100 and rolls > 0
    # typhoon bot gives its seat's entropy; a seat's that comes after the first die is refused and one is
    # drawn from the seed for it (an entropy_drawn game event, which the environment draws the same)
    assert "german" in entropy
    result = final.match.result
    assert all(aec.terminations.values())
    assert aec.game.result().winner == result.winner
    expected = {"german": 0.0, "soviet": 0.0} if result.winner == "draw" else {
        side: 1.0 if side == result.winner else -1.0 for side in ("german", "soviet")}
    assert aec.rewards == expected
    for side, output in zip(("german", "soviet"), outputs):
        assert output.strip().splitlines()[-1].startswith(f"{side} (")
