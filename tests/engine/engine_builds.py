"""The engine in each of its builds, pure and compiled (see engine/builds.py), for the tests that run both.

A process imports the engine once, in one build, so each build runs in a child process of its own (one
per build and test process, started on first use): the test sends it a request and reads its answer, one
JSON line each. The compiled build is made first when missing (``python -m engine.build``, a no-op when
there); where this machine cannot compile it (no C compiler), the tests of the compiled build are skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILDS = ("pure", "compiled")

#: The child: answers requests with the engine in the build its environment chose.
CHILD = r"""
import hashlib, json, random, sys
import engine
from clients import golden
from engine.options import Options

records = {}

def replay(stem, number):
    if stem not in records:
        records[stem] = list(golden.read_records(golden.CORPUS_DIR / f"{stem}.jsonl.gz"))
    return {"difference": golden.replay_record(records[stem][number])}

def random_games(scenario, options, seed, games, ruleset):
    # every legal action listing, every event and every state of the games, in one digest
    digest, actions = hashlib.sha256(), 0
    for number in range(games):
        game = engine.new_game(scenario, Options.parse(options).to_json(), seed=f"{seed}-{number}", ruleset=ruleset)
        chooser = random.Random(f"{seed}-{number}")
        while not game.is_terminal():
            legal = game.legal_actions()
            digest.update(json.dumps([a.to_json() for a in legal]).encode())
            events = game.apply(chooser.choice(legal))
            digest.update(json.dumps([e.to_json() for e in events]).encode())
            digest.update(game.state_hash().encode())
            actions += 1
    return {"digest": digest.hexdigest(), "actions": actions}

def copies(seed):
    # a game pickled, deep-copied and copied at steps of a random game: the same state and legal actions
    import copy, pickle
    game = engine.new_game("standard", seed=seed)
    chooser = random.Random(seed)
    problems = []
    for step in range(400):
        if game.is_terminal():
            break
        if step % 23 == 0:
            for how, twin in (("pickle", pickle.loads(pickle.dumps(game))), ("deepcopy", copy.deepcopy(game)),
                              ("copy", copy.copy(game))):
                if twin.state_hash() != game.state_hash() or twin.legal_actions() != game.legal_actions():
                    problems.append(f"{how} at step {step}")
        game.apply(chooser.choice(game.legal_actions()))
    return {"problems": problems, "steps": step}

def where():
    import engine.game
    return {"build": engine.BUILD, "game": engine.game.__file__, "package": engine.__file__}

print(json.dumps(where()), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    try:
        answer = {"replay": replay, "random_games": random_games, "copies": copies}[request.pop("do")](**request)
    except Exception as error:  # reported to the test, which fails with it
        answer = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(answer), flush=True)
"""


def ensure_compiled() -> None:
    """Build the compiled engine for these sources when missing; skip the test where it cannot be built."""
    check = [sys.executable, "-m", "engine.build", "--check"]
    if subprocess.run(check, cwd=ROOT, capture_output=True).returncode == 0:
        return
    made = subprocess.run([sys.executable, "-m", "engine.build", "--quiet"], cwd=ROOT, capture_output=True,
                          text=True, timeout=1200)
    if subprocess.run(check, cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip(f"no compiled engine and none can be built here: {made.stderr.strip() or made.stdout.strip()}")


class EngineChild:
    """A child process running the engine in ``build``."""

    def __init__(self, build: str) -> None:
        if build == "compiled":
            ensure_compiled()
        env = dict(os.environ, TYPHOON_PURE_ENGINE="1" if build == "pure" else "0", PYTHONPATH=str(ROOT))
        self.process = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, env=env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.where: dict[str, Any] = self._answer()
        assert self.where["build"] == build, self.where

    def _answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the engine's child process ended"
        return json.loads(line)

    def ask(self, do: str, **request: Any) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"do": do, **request}) + "\n")
        self.process.stdin.flush()
        answer = self._answer()
        assert "error" not in answer, answer["error"]
        return answer

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=60)


class EngineChildren:
    """build → its :class:`EngineChild`, each started when first asked for."""

    def __init__(self) -> None:
        self.started: dict[str, EngineChild] = {}

    def __getitem__(self, build: str) -> EngineChild:
        if build not in self.started:
            self.started[build] = EngineChild(build)
        return self.started[build]

    def close(self) -> None:
        for started in self.started.values():
            started.close()
