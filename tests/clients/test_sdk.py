"""The bot SDK against the real service: complete matches, seat tokens, plain-function strategies,
contention on one seat, a resignation, a service restart in the middle of a match, and `typhoon bot`."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import engine
from clients.client import TyphoonClient
from clients.replay import fetch_log, verify_log
from clients.runner import EmbeddedService
from clients.sdk import Bot, as_strategy, parse_params, start_bot
from service.store.embedded_redis import free_port

from service_helpers import START_TIMEOUT

ROOT = Path(__file__).resolve().parents[2]


def hurry(state, legal_actions):
    """A quick player: ends every phase as soon as it may (short matches for the tests)."""
    for action in legal_actions:
        if isinstance(action, engine.EndPhase):
            return action
    return legal_actions[0]


def eager(state, legal_actions):
    """Attacks whenever it may (so dice are rolled), else ends the phase: a short match with battles."""
    attacks = [a for a in legal_actions if isinstance(a, engine.DeclareAttack)]
    return attacks[0] if attacks else hurry(state, legal_actions)


def paced(seconds: float):
    """``hurry``, taking its time: the match lasts long enough to be interrupted."""
    def choose(state, legal_actions):
        time.sleep(seconds)
        return hurry(state, legal_actions)
    return choose


def _join(*threads, timeout: float = 120.0) -> None:
    for thread in threads:
        thread.join(timeout)
        assert not thread.is_alive(), "a bot did not finish"


def _verified(target: str, match_id: str) -> None:
    with TyphoonClient(target) as client:
        report = verify_log(fetch_log(client, match_id), match_id=match_id, final=client.get_match(match_id))
    assert report.ok, report.text()


def test_two_bots_play_a_complete_match_through_the_service(typhoon_target):
    with TyphoonClient(typhoon_target) as client:
        match, _ = client.create_match("standard")
    german, g = start_bot("heuristic", typhoon_target, match_id=match.match_id, side="german", seed=1)
    soviet, s = start_bot("random", typhoon_target, match_id=match.match_id, side="soviet", seed=2)
    _join(g, s)
    assert german.error is None and soviet.error is None
    for bot in (german, soviet):
        assert bot.result.finished and bot.result.winner in ("german", "soviet", "draw")
        assert bot.result.illegal == 0
    assert german.result.winner == soviet.result.winner
    assert german.result.points == soviet.result.points
    assert german.result.actions + soviet.result.actions == german.result.version
    assert german.result.turn == 7
    with TyphoonClient(typhoon_target) as client:
        final = client.get_match(match.match_id).match
        assert final.status == 3 and [seat.player_name for seat in final.seats] == ["heuristic bot", "random bot"]
    _verified(typhoon_target, match.match_id)


def test_a_plain_function_is_a_strategy_and_a_claimed_seat_is_played_with_its_token(typhoon_target):
    seen = []

    def hurry(state, legal_actions):
        """End every phase as soon as possible."""
        seen.append((state.seed, type(state), all(isinstance(a, engine.Action) for a in legal_actions)))
        for action in legal_actions:
            if isinstance(action, engine.EndPhase):
                return action
        return legal_actions[0]

    with TyphoonClient(typhoon_target) as client:
        match, tokens = client.create_match("standard", seats=["german"])
    german, g = start_bot(hurry, typhoon_target, match_id=match.match_id, side="german", token=tokens["german"])
    soviet, s = start_bot("random", typhoon_target, match_id=match.match_id, seed=3)  # the first free seat
    _join(g, s)
    assert german.error is None and soviet.error is None
    assert soviet.result.side == "soviet" and german.result.strategy == "hurry"
    assert german.result.finished and german.result.actions > 0
    # the strategy saw engine games without the secret seed, and engine actions
    assert seen and all(seed == "" and kind is engine.Game and ok for seed, kind, ok in seen)
    _verified(typhoon_target, match.match_id)


def test_two_bots_on_one_seat_race_and_every_action_is_applied_once(typhoon_target):
    with TyphoonClient(typhoon_target) as client:
        match, tokens = client.create_match("standard", seats=["german", "soviet"])
    bots = [start_bot(hurry, typhoon_target, match_id=match.match_id, side=side, token=tokens[side])
            for side in ("german", "german", "soviet", "soviet")]
    _join(*(thread for _, thread in bots))
    results = [bot.result for bot, _ in bots]
    assert all(bot.error is None for bot, _ in bots)
    assert all(result.finished for result in results)
    assert sum(result.actions for result in results) == results[0].version  # nothing applied twice
    _verified(typhoon_target, match.match_id)


def test_a_bot_stops_cleanly_when_the_other_side_resigns(typhoon_target):
    with TyphoonClient(typhoon_target) as client:
        match, tokens = client.create_match("standard", seats=["soviet"])
        german, g = start_bot("heuristic", typhoon_target, match_id=match.match_id, side="german")
        deadline = time.monotonic() + 120
        while client.get_match(match.match_id).match.side_to_act != "soviet":  # the Germans play their turn
            assert time.monotonic() < deadline, "the German bot did not end its turn"
            time.sleep(0.05)
        client.resign(match.match_id, tokens["soviet"])
        _join(g, timeout=30)
    assert german.error is None
    assert german.result.finished and german.result.won and german.result.reason == "soviet resigned"
    _verified(typhoon_target, match.match_id)


def test_bots_resume_after_a_service_restart_in_the_middle_of_a_match(tmp_path):
    service = EmbeddedService(process=True, data_dir=tmp_path / "data", port=free_port(), startup_timeout=START_TIMEOUT)
    target = service.start()
    try:
        with TyphoonClient(target) as client:
            match, _ = client.create_match("standard")
        german, g = start_bot(paced(0.05), target, match_id=match.match_id, side="german")
        soviet, s = start_bot(eager, target, match_id=match.match_id, side="soviet")
        with TyphoonClient(target, retries=0) as client:
            deadline = time.monotonic() + 60
            while client.get_match(match.match_id).match.version < 20:
                assert time.monotonic() < deadline, "the bots did not make 20 actions"
                time.sleep(0.05)
        service.stop()  # the bots lose the service in the middle of the game...
        time.sleep(1.0)
        assert g.is_alive() and s.is_alive()
        service.start()  # ...and find it again at the same address, with the same Redis data
        _join(g, s)
        assert german.error is None and soviet.error is None, (german.error, soviet.error)
        assert german.result.finished and soviet.result.finished and german.result.turn == 7
        # no count of retries is asserted: a bot waiting on its stream while the service is away is resumed by
        # the client's watch itself, uncounted, and may make no call in that second (a CI run had 0 and 0)
        assert german.result.actions + soviet.result.actions == german.result.version
        _verified(target, match.match_id)
    finally:
        service.stop()


def test_strategies_by_name_object_or_function():
    assert as_strategy("random", seed=1).name == "random"
    heuristic = as_strategy("heuristic")
    assert as_strategy(heuristic) is heuristic
    assert as_strategy(lambda state, legal: legal[0]).name == "<lambda>"
    assert parse_params(["budget=0.5", "horizon=2", "name=x"]) == {"budget": 0.5, "horizon": 2, "name": "x"}
    try:
        Bot("random", "127.0.0.1:1", match_id="x", token="t")
    except ValueError as error:
        assert "side" in str(error)
    else:
        raise AssertionError("a token without a side is refused")


def test_typhoon_bot_plays_a_seat_from_the_command_line(typhoon_target):
    with TyphoonClient(typhoon_target) as client:
        match, _ = client.create_match("standard")
    commands = [[sys.executable, "-m", "clients.cli", "bot", "--match", match.match_id, "--side", side,
                 "--strategy", strategy, "--server", typhoon_target, "--seed", "7", "--quiet"]
                for side, strategy in (("german", "heuristic"), ("soviet", "heuristic"))]
    processes = [subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for command in commands]
    outputs = [process.communicate(timeout=120)[0] for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    for side, output in zip(("german", "soviet"), outputs):
        assert f"claimed the {side} seat of match {match.match_id}" in output
        assert output.strip().splitlines()[-1].startswith(f"{side} (")
        assert "wins" in output or "draw" in output
