"""The bot author's tools: strategies of one's own by ``package.module:callable`` with parameters, and a
ladder bot that stops gracefully (the first SIGTERM finishes the matches in progress, a second quits)."""

from __future__ import annotations

import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import engine
import pytest

from clients.client import TyphoonClient
from clients.ladder import LadderBot, LadderClient
from clients.strategies import make_strategy
from service.gen.typhoon.v1 import match_pb2

ROOT = Path(__file__).resolve().parents[2]

MY_BOT = '''
import random

import engine


class Cautious:
    """Ends the phase whenever it may; else a random legal action."""

    name = "cautious"

    def __init__(self, seed=None, patience=0):
        self.rng = random.Random(seed)
        self.patience = patience

    def choose(self, state, legal_actions):
        ends = [a for a in legal_actions if isinstance(a, engine.EndPhase)]
        return ends[0] if ends and self.rng.random() >= self.patience else self.rng.choice(legal_actions)


def first(state, legal_actions):
    return legal_actions[0]


def make(seed=None, **params):
    return Cautious(seed, **params)
'''


@pytest.fixture()
def my_bot(tmp_path, monkeypatch) -> Path:
    (tmp_path / "my_bot.py").write_text(MY_BOT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_strategy_of_ones_own_by_module_and_callable(my_bot):
    game = engine.new_game("standard", seed="own")
    assert make_strategy("my_bot:Cautious", seed=1, patience=0.5).patience == 0.5  # a class, with parameters
    assert make_strategy("my_bot:make", seed=1, patience=0.25).patience == 0.25  # a factory
    plain = make_strategy("my_bot:first")  # a choose function
    assert plain.choose(game, game.legal_actions()) == game.legal_actions()[0] and plain.name == "my_bot:first"
    for spec, params, words in (("my_bot:nothing", {}, "cannot import"), ("no_such_module:x", {}, "cannot import"),
                                ("my_bot:first", {"patience": 1}, "takes no parameters"),
                                ("my_bot:Cautious", {"mood": 1}, "does not take")):
        with pytest.raises(ValueError, match=words):
            make_strategy(spec, **params)


def test_typhoon_bot_takes_a_strategy_of_ones_own(my_bot, typhoon_target):
    refused = subprocess.run([sys.executable, "-m", "clients.cli", "bot", "--server", typhoon_target,
                              "--strategy", "my_bot:Cautious", "--param", "mood=1"], capture_output=True,
                             text=True, timeout=60, cwd=my_bot, env=_env())
    assert refused.returncode == 2 and "does not take" in refused.stderr
    with TyphoonClient(typhoon_target) as client:
        match, tokens = client.create_match(seats=["soviet"])
        bot = subprocess.Popen([sys.executable, "-m", "clients.cli", "bot", "--server", typhoon_target, "--match",
                                match.match_id, "--side", "german", "--strategy", "my_bot:make", "--param",
                                "patience=0.5"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               cwd=my_bot, env=_env())
        first = bot.stdout.readline() + bot.stdout.readline()
        assert "cautious plays german" in first, first
        deadline = time.monotonic() + 60
        while client.get_match(match.match_id).match.version < 3:  # it plays
            assert time.monotonic() < deadline
            time.sleep(0.1)
        client.resign(match.match_id, tokens["soviet"])
        output = bot.communicate(timeout=60)[0]
    assert bot.returncode == 0 and "german wins (soviet resigned)" in output, output


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_command_with_no_service_at_its_address_says_so_and_how_to_start_one(tmp_path):
    nowhere = f"127.0.0.1:{_free_port()}"
    for command, flag in ((["bot", "--server", nowhere], "--server"), (["bot", "--ladder", nowhere, "--key", "k"], "--ladder"),
                          (["match", "run", "--server", nowhere, "--games", "1"], "--server"),
                          (["ladder", "leaderboard", "--server", nowhere], "--server")):
        done = subprocess.run([sys.executable, "-m", "clients.cli", *command], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path, env=_env())
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert f"no Typhoon service answers at {nowhere} (gRPC)" in done.stderr, done.stderr
        assert "typhoon serve --grpc-port" in done.stderr and f"{flag} HOST:PORT" in done.stderr, done.stderr


def test_the_help_says_where_the_service_is_looked_for():
    for command in (["bot"], ["ladder", "leaderboard"], ["replay", "verify"]):
        done = subprocess.run([sys.executable, "-m", "clients.cli", *command, "--help"], capture_output=True,
                              text=True, timeout=60, env=_env(), cwd=ROOT)
        assert "--server HOST:PORT" in done.stdout and "(default 127.0.0.1:50051)" in " ".join(done.stdout.split())


def test_a_match_typhoon_bot_creates_names_its_seat(my_bot, typhoon_target):
    bot = subprocess.Popen([sys.executable, "-m", "clients.cli", "bot", "--server", typhoon_target, "--strategy",
                            "my_bot:Cautious"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           cwd=my_bot, env=_env())
    try:
        created = bot.stdout.readline()
        assert "with the german seat (cautious bot)" in created, created  # the strategy's own name
        match_id = created.split()[2]
        with TyphoonClient(typhoon_target) as client:
            seats = {seat.side: seat.player_name for seat in client.get_match(match_id).match.seats}
        assert seats["german"] == "cautious bot"
    finally:
        bot.kill()
        bot.wait(30)


def test_typhoon_play_takes_a_strategy_of_ones_own(my_bot):
    """...and speaks to the person at the terminal: its own lines, not the service's JSON log (that is
    `typhoon serve`'s); the person's seat has a name, as the bot's has."""
    play = subprocess.Popen([sys.executable, "-m", "clients.cli", "play", "--no-browser", "--strategy", "my_bot:make"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=my_bot, env=_env(),
                            start_new_session=True, preexec_fn=_ctrl_c_heard)
    try:
        said = ""
        while "(the service: gRPC" not in said and play.poll() is None:
            said += play.stdout.readline()
        assert "you play german, the my_bot:make bot plays soviet" in said and "open http://" in said, said
        assert not [line for line in said.splitlines() if line.startswith("{")], said
        match_id = said.split("match ", 1)[1].split(":", 1)[0]
        target = said.split("(the service: gRPC ", 1)[1].split(",", 1)[0]
        with TyphoonClient(target) as client:
            seats = {seat.side: seat.player_name for seat in client.get_match(match_id).match.seats}
        assert seats == {"german": "you", "soviet": "my_bot:make bot"}
    finally:
        play.send_signal(signal.SIGINT)
        rest, _ = play.communicate(timeout=60)
    assert not [line for line in rest.splitlines() if line.startswith("{")], rest  # nor when it stops


def _ctrl_c_heard() -> None:
    """SIGINT as at a terminal: a suite started in the background by a shell inherits it ignored, and Python
    then never turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _env() -> dict[str, str]:
    import os

    return dict(os.environ, PYTHONPATH=str(ROOT))


def _unhurried_random(state, legal_actions):
    time.sleep(0.05)
    return random.choice(legal_actions)


def test_the_first_sigterm_finishes_the_matches_in_progress_and_a_second_quits(typhoon_target, tmp_path):
    """Two ladder players: one in this process, one ``typhoon bot --ladder`` process. SIGTERM in the middle of
    their match: the process seeks no more but plays the match to its end and exits 0. Started again, a
    second SIGTERM in its next match makes it quit at once (130), leaving the match to its clock."""
    with LadderClient(typhoon_target) as ladder:
        ours = ladder.register_with_owner(f"steady-{time.monotonic_ns()}").api_key  # two owners: they may meet
        theirs = ladder.register_with_owner(f"stopping-{time.monotonic_ns()}").api_key
    steady = LadderBot(_unhurried_random, typhoon_target, ours)  # its matches last long enough to signal in
    seeker = threading.Thread(target=steady.run, daemon=True)
    seeker.start()
    try:
        command = [sys.executable, "-m", "clients.cli", "bot", "--ladder", typhoon_target, "--key", theirs,
                   "--strategy", "random", "--seed", "stop"]
        for signals, code in ((1, 0), (2, 130)):
            process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            lines: list[str] = []
            reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
            reader.start()
            deadline = time.monotonic() + 120
            while not any(" against " in line for line in lines):  # "match <id>: <side> against <name>"
                assert time.monotonic() < deadline and process.poll() is None, "".join(lines)
                time.sleep(0.1)
            match_id = next(line for line in lines if " against " in line).split()[1].rstrip(":")
            time.sleep(1)  # in the middle of it
            for _ in range(signals):
                process.send_signal(signal.SIGTERM)
                time.sleep(0.5)
            assert process.wait(180) == code, "".join(lines)
            reader.join(10)
            output = "".join(lines)
            with TyphoonClient(typhoon_target) as client:
                status = client.get_match(match_id).match.status
            if code == 0:  # it played the match to its end, and took no other
                assert "stopping: no more matches; finishing the 1 in progress" in output, output
                assert status == match_pb2.MATCH_STATUS_FINISHED and "1 ladder match started" in output, output
            else:
                assert "quit with 1 in progress" in output and status != match_pb2.MATCH_STATUS_FINISHED, output
                with TyphoonClient(typhoon_target) as client:  # let the steady bot go on alone: end it
                    client.resign(match_id, next(m.seat_token for m in steady.record.started if m.match_id == match_id))
    finally:
        steady.stop()
        seeker.join(10)
