"""The golden corpus: games recorded from the engine that every later engine must replay byte for byte.

Each game is played by the engine alone (random players, the heuristic, the search at a low level), in
the standard and the campaign scenario, with every option and the presets, under many seeds. What is
kept of a game is what a replay needs to check the engine did not change a bit: the scenario, the
options, the seed, the ruleset, the seats' entropy (ruleset 4 on, when given: every side commits to it,
a side left out to none, before the given ones reveal it) and the actions; and for each action the number of legal actions before
it and the place of the action among them, the SHA-256 of the events it caused (their canonical JSON)
and the state hash after it (both cut to :data:`DIGEST` hex digits, which keeps the files a few MB; the
state hash at the end is kept whole).

The files are gzip JSON lines under ``tests/engine/golden/`` (one game a line); the test
``tests/engine/test_golden.py`` replays them all. A replay also rebuilds the game from its position
(:func:`engine.game_from_position` of :meth:`engine.Game.to_json`) every :data:`REBUILD_EVERY` actions
and goes on with the rebuilt game, as the service does when it loads a match, so a position that loses
anything shows up as a mismatch.

Record the corpus again only when the rules change on purpose (the new ruleset's games are added; the
old ones stay as they are)::

    .venv/bin/python -m clients.golden record            # writes tests/engine/golden/*.jsonl.gz
    .venv/bin/python -m clients.golden check             # replays them on this engine

>>> spec = GameSpec("doc", "standard", {}, "doc-seed", ("random", "random"), limit=40)
>>> record = record_game(spec)
>>> len(record["actions"]), replay_record(record) is None
(40, True)
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import Any, Iterable, Iterator

import orjson

import engine
from engine.data import SIDES
from engine.dice import entropy_commitment
from engine.options import OPTIONS, PRESETS

from clients.strategies import make_strategy

#: Hex digits kept of each action's events digest and state hash.
DIGEST = 12
#: A replay rebuilds the game from its position after every this many actions.
REBUILD_EVERY = 37
#: Where the corpus lives.
CORPUS_DIR = Path(__file__).resolve().parent.parent / "tests" / "engine" / "golden"


def events_digest(events: Iterable[engine.Event]) -> str:
    """SHA-256 (hex) of the canonical JSON of an action's events: a list, keys sorted, no spaces.

    >>> events_digest([])[:16]
    '4f53cda18c2baa0c'
    """
    return sha256(orjson.dumps([e.to_json() for e in events], option=orjson.OPT_SORT_KEYS)).hexdigest()


@dataclass(frozen=True)
class GameSpec:
    """One game of the corpus: who plays it and under which scenario, options and seed.

    ``players`` names the German and the Soviet strategy (``random``, ``heuristic``, ``search1`` for
    the search at level 1). ``limit`` stops the game after that many actions (None: to its end);
    ``end`` then closes it with ``resign`` or ``time_forfeit`` of the side to act. ``entropy``: the
    seats' entropy given before the game (ruleset 4 on; a side left out has its entropy drawn from the
    seed at the first die).
    """

    name: str
    scenario: str
    options: dict[str, Any]
    seed: str
    players: tuple[str, str]
    limit: int | None = None
    end: str = ""
    ruleset: int = engine.RULESET
    params: dict[str, Any] = field(default_factory=dict)
    entropy: dict[str, str] = field(default_factory=dict)


def _strategy(name: str, seed: str):
    if name.startswith("search"):
        return make_strategy("search", seed, level=int(name[len("search"):] or 1))
    return make_strategy(name, seed)


def _new_game(scenario: str, options: dict, seed: str, ruleset: int, entropy: dict[str, str]) -> engine.Game:
    game = engine.new_game(scenario, options, seed=seed, ruleset=ruleset)
    if entropy:  # every side commits (a side not given to none), then the sides given reveal
        for side in SIDES:
            game.commit_entropy(side, entropy_commitment(entropy[side]) if side in entropy else "")
        for side, given in entropy.items():
            game.contribute_entropy(side, given)
    return game


def record_game(spec: GameSpec) -> dict[str, Any]:
    """Play ``spec`` on this engine and return its record (see the module's docstring)."""
    game = _new_game(spec.scenario, spec.options, spec.seed, spec.ruleset, spec.entropy)
    players = {"german": _strategy(spec.players[0], f"{spec.seed}-german"),
               "soviet": _strategy(spec.players[1], f"{spec.seed}-soviet")}
    actions: list[dict] = []
    steps: list[list] = []

    def play(action: engine.Action, legal: list[engine.Action]) -> None:
        index = legal.index(action) if action in legal else -1
        events = game.apply(action)
        actions.append(action.to_json())
        steps.append([len(legal), index, events_digest(events)[:DIGEST], game.state_hash()[:DIGEST]])

    while not game.is_terminal() and (spec.limit is None or len(actions) < spec.limit):
        legal = game.legal_actions()
        play(players[game.current_player()].choose(game, legal), legal)
    if spec.end and not game.is_terminal():
        side = game.current_player()
        play(engine.Resign(side) if spec.end == "resign" else engine.TimeForfeit(side), game.legal_actions())
    result = game.result()
    return {"name": spec.name, "scenario": spec.scenario, "options": game.options.to_json(), "seed": spec.seed,
            "ruleset": spec.ruleset, "players": list(spec.players), "result": result.to_json() if result else None,
            "final_state": game.state_hash(), "actions": actions, "steps": steps} | (
                {"entropy": spec.entropy} if spec.entropy else {})


def replay_record(record: dict[str, Any], rebuild_every: int = REBUILD_EVERY) -> str | None:
    """Replay a recorded game on this engine; None when every step matches, else the first difference."""
    game = _new_game(record["scenario"], record["options"], record["seed"], record["ruleset"], record.get("entropy", {}))
    ruleset = record["ruleset"]
    for number, (action_json, (count, index, events, state)) in enumerate(zip(record["actions"], record["steps"])):
        where = f"{record['name']} action {number} {action_json}"
        legal = game.legal_actions()
        if len(legal) != count:
            return f"{where}: {len(legal)} legal actions, recorded {count}"
        if index >= 0 and legal[index].to_json() != action_json:
            return f"{where}: legal action {index} is {legal[index].to_json()}"
        try:
            got = game.apply(engine.action_from_json(action_json))
        except engine.IllegalAction as error:
            return f"{where}: refused ({error.reason}: {error.message})"
        if events_digest(got)[:DIGEST] != events:
            return f"{where}: events differ: {[e.to_json() for e in got]}"
        if game.state_hash()[:DIGEST] != state:
            return f"{where}: state differs: {game.canonical_json()}"
        if rebuild_every and number % rebuild_every == rebuild_every - 1:
            game = engine.game_from_position(game.to_json(), ruleset=ruleset)
    if game.state_hash() != record["final_state"]:
        return f"{record['name']}: the final state hash differs"
    result = game.result()
    if (result.to_json() if result else None) != record["result"]:
        return f"{record['name']}: the result differs: {result}"
    return None


# --- the games of the corpus -----------------------------------------------------------------------

def _single_options() -> list[tuple[str, dict[str, Any]]]:
    """Every option on its own at each value other than its default (the unavailable ones left out)."""
    singles = []
    for name, (values, default, _) in OPTIONS.items():
        for value in values:
            if value == default or name == "advanced_crt":
                continue
            singles.append((f"{name}={value}", {name: value}))
    return singles


def corpus_specs() -> dict[str, list[GameSpec]]:
    """The games of each file of the corpus (file stem → games): ruleset 2's, recorded from the engine of
    c671d70 (the last to play only ruleset 2), ruleset 3's (files ``r3-*``), recorded when ruleset 3
    was made, before the engine was made faster, and ruleset 4's (files ``r4-*``), recorded when ruleset 4
    was made (``record --only r4``)."""
    presets = [(f"preset={name}", {"preset": name}) for name in PRESETS]
    singles = _single_options()
    files: dict[str, list[GameSpec]] = {}

    def add(stem: str, name: str, scenario: str, options: dict, seed: str, players=("random", "random"),
            ruleset: int = 2, **kw):
        files.setdefault(stem, []).append(GameSpec(f"{stem}/{name}", scenario, options, seed, players,
                                                   ruleset=ruleset, **kw))

    for i in range(110):
        add("random-standard", f"plain-{i}", "standard", {}, f"golden-standard-{i}")
    for label, options in singles + presets:
        for i in range(5):
            add("random-standard", f"{label}-{i}", "standard", options, f"golden-{label}-{i}")
    for i in range(4):
        for end in ("resign", "time_forfeit"):
            add("random-standard", f"{end}-{i}", "standard", {}, f"golden-{end}-{i}", limit=30 + 97 * i, end=end)
    for i in range(25):
        add("random-campaign", f"plain-{i}", "campaign", {}, f"golden-campaign-{i}")
    for label, options in presets:
        for i in range(8):
            add("random-campaign", f"{label}-{i}", "campaign", options, f"golden-campaign-{label}-{i}")
    for label, options in singles:
        for i in range(2):
            add("random-campaign", f"{label}-{i}", "campaign", options, f"golden-campaign-{label}-{i}")
    bots = [("heuristic", "heuristic"), ("heuristic", "random"), ("random", "heuristic")]
    for german, soviet in bots:
        for i in range(12):
            add("bots-standard", f"{german}-{soviet}-{i}", "standard", {}, f"golden-bots-{german}-{soviet}-{i}",
                (german, soviet))
    for label, options in singles + presets:
        add("bots-standard", f"heuristic-{label}", "standard", options, f"golden-bots-{label}",
            ("heuristic", "heuristic"))
    for i in range(3):
        add("bots-standard", f"search1-heuristic-{i}", "standard", {}, f"golden-search-g-{i}", ("search1", "heuristic"))
        add("bots-standard", f"heuristic-search1-{i}", "standard", {}, f"golden-search-s-{i}", ("heuristic", "search1"))
    for label, options in [("plain", {})] + presets:
        for i in range(3):
            add("bots-campaign", f"heuristic-{label}-{i}", "campaign", options, f"golden-bots-campaign-{label}-{i}",
                ("heuristic", "heuristic"))
    add("bots-campaign", "search1-heuristic", "campaign", {"preset": "all"}, "golden-search-campaign",
        ("search1", "heuristic"))

    for i in range(30):
        add("r3-random-standard", f"plain-{i}", "standard", {}, f"golden-r3-standard-{i}", ruleset=3)
    for label, options in singles + presets:
        for i in range(2):
            add("r3-random-standard", f"{label}-{i}", "standard", options, f"golden-r3-{label}-{i}", ruleset=3)
    for label, options in [("plain", {})] + presets:
        for i in range(4):
            add("r3-random-campaign", f"{label}-{i}", "campaign", options, f"golden-r3-campaign-{label}-{i}",
                ruleset=3)
    for german, soviet in bots:
        for i in range(3):
            add("r3-bots", f"{german}-{soviet}-{i}", "standard", {}, f"golden-r3-bots-{german}-{soviet}-{i}",
                (german, soviet), ruleset=3)
    for label, options in [("plain", {})] + presets:
        add("r3-bots", f"campaign-heuristic-{label}", "campaign", options, f"golden-r3-bots-campaign-{label}",
            ("heuristic", "heuristic"), ruleset=3)
    add("r3-bots", "search1-heuristic", "standard", {}, "golden-r3-search", ("search1", "heuristic"), ruleset=3)

    # ruleset 4: the seats' entropy mixed into the dice, given by both sides, one (the other's drawn) or none
    # (recorded again when the seats came to commit to their entropy before revealing it: same dice, and
    # the commitments in the states)
    def entropy(i: int, label: str) -> dict[str, str]:
        given = {side: sha256(f"golden-r4-{label}-{i}-{side}".encode()).hexdigest() for side in ("german", "soviet")}
        return [{}, {"german": given["german"]}, {"soviet": given["soviet"]}, given][i % 4]

    for i in range(12):
        add("r4-random-standard", f"plain-{i}", "standard", {}, f"golden-r4-standard-{i}", ruleset=4,
            entropy=entropy(i, "plain"))
    for n, (label, options) in enumerate(singles + presets):
        add("r4-random-standard", label, "standard", options, f"golden-r4-{label}", ruleset=4,
            entropy=entropy(n, label))
    for label, options in [("plain", {})] + presets:
        for i in range(2):
            add("r4-random-campaign", f"{label}-{i}", "campaign", options, f"golden-r4-campaign-{label}-{i}",
                ruleset=4, entropy=entropy(i + 2, label))
    for german, soviet in bots:
        add("r4-bots", f"{german}-{soviet}", "standard", {}, f"golden-r4-bots-{german}-{soviet}", (german, soviet),
            ruleset=4, entropy=entropy(3, german + soviet))
    add("r4-bots", "campaign-heuristic", "campaign", {"preset": "all"}, "golden-r4-bots-campaign",
        ("heuristic", "heuristic"), ruleset=4, entropy=entropy(1, "campaign"))
    return files


# --- files -----------------------------------------------------------------------------------------

def write_records(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """One record a line, gzip'd without a timestamp so that the same games give the same bytes."""
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as out:
        for record in records:
            out.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rb") as lines:
        for line in lines:
            yield json.loads(line)


def corpus_files(directory: Path = CORPUS_DIR) -> list[Path]:
    return sorted(directory.glob("*.jsonl.gz"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clients.golden", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["record", "check"])
    parser.add_argument("--dir", type=Path, default=CORPUS_DIR)
    parser.add_argument("--only", default="", help="record or check only the files whose stem contains this")
    args = parser.parse_args(argv)
    if args.command == "record":
        args.dir.mkdir(parents=True, exist_ok=True)
        for stem, specs in corpus_specs().items():
            if args.only not in stem:
                continue
            start = time.process_time()
            records = [record_game(spec) for spec in specs]
            path = args.dir / f"{stem}.jsonl.gz"
            write_records(path, records)
            print(f"{path}: {len(records)} games, {sum(len(r['actions']) for r in records)} actions, "
                  f"{path.stat().st_size // 1024} KiB, {time.process_time() - start:.0f} CPU s", flush=True)
        return 0
    failures = 0
    for path in corpus_files(args.dir):
        if args.only not in path.name:
            continue
        games = 0
        for record in read_records(path):
            games += 1
            problem = replay_record(record)
            if problem:
                failures += 1
                print(problem, file=sys.stderr)
        print(f"{path.name}: {games} games replayed, {failures} differences so far", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
