"""Bot strength: series through the service, both sides swapped, a per-side table with Wilson intervals.

Every figure of docs/BOTS.md comes from this script. A pairing ``A/B`` plays ``--games`` matches with A as
German against B as Soviet and as many with the sides exchanged, through one service (an embedded
``typhoon serve`` child process with its own Redis unless ``--server`` is given), and the table gives A's
wins on each side with the 95% Wilson score interval (scipy's ``binomtest(...).proportion_ci``); draws
count as not won. Players are strategy names with optional parameters after a colon:

    nice -n 10 .venv/bin/python benchmarks/bot_strength.py --games 40 --parallel 2 \\
        --pair search:level=3/heuristic --pair heuristic/random
    nice -n 10 .venv/bin/python benchmarks/bot_strength.py --games 40 --ladder random heuristic \\
        search:level=1 search:level=2 search:level=3        # each level against the one below

With a deterministic work budget (``level`` or ``playouts``, not ``budget`` in seconds) the strength does
not depend on the load of the machine, so ``--parallel`` only changes how long the run takes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from scipy.stats import binomtest
from tabulate import tabulate

from clients.runner import EmbeddedService, run_series
from clients.sdk import checked_strategy, parse_params


@dataclass(frozen=True)
class Player:
    """A strategy name and its parameters, written ``name:key=value,key=value``."""

    name: str
    params: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, spec: str) -> "Player":
        name, _, rest = spec.partition(":")
        params = []
        for item in filter(None, rest.split(",")):
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"{spec!r}: parameters are key=value, not {item!r}")
            params.append((key.strip(), value.strip()))
        player = cls(name.strip(), tuple(params))
        checked_strategy(player.name, player.param_dict())
        return player

    def param_dict(self) -> dict[str, object]:
        return parse_params([f"{k}={v}" for k, v in self.params])

    def __str__(self) -> str:
        return self.name + (":" + ",".join(f"{k}={v}" for k, v in self.params) if self.params else "")


def wilson(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a win rate.

    >>> [round(x, 3) for x in wilson(20, 40)]
    [0.352, 0.648]
    """
    if games == 0:
        return 0.0, 1.0
    interval = binomtest(wins, games).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low), float(interval.high)  # not numpy scalars, as the annotation says


@dataclass
class SideScore:
    player: str
    opponent: str
    side: str
    wins: int
    draws: int
    games: int
    failed: int
    vp_for: float
    vp_against: float

    def row(self) -> list[str]:
        low, high = wilson(self.wins, self.games)
        pct = f"{100 * self.wins / self.games:.0f}%" if self.games else "-"
        return [self.player, self.opponent, self.side, f"{self.wins}/{self.games}", pct,
                f"{100 * low:.0f}-{100 * high:.0f}%", str(self.draws), f"{self.vp_for:.1f} : {self.vp_against:.1f}",
                str(self.failed)]


HEADERS = ["player", "opponent", "player's side", "wins", "%", "Wilson 95%", "draws", "mean VP (player : opp.)",
           "failed"]


def play_pairing(a: Player, b: Player, games: int, target: str, parallel: int, seed: str, verify: bool,
                 timeout: float, records: list, sides: tuple[str, ...] = ("german", "soviet")) -> list[SideScore]:
    """A against B, ``games`` matches on each of A's ``sides``; A's score per side."""
    german, soviet = (b, a) if sides == ("soviet",) else (a, b)
    series = run_series(german.name, soviet.name, games=games, target=target, parallel=parallel, seed=seed,
                        german_params=german.param_dict(), soviet_params=soviet.param_dict(), swap=len(sides) == 2,
                        verify=verify, progress=sys.stderr.isatty(), timeout=timeout)
    scores = []
    for pairing, a_side in zip(series.pairings, sides):
        b_side = "soviet" if a_side == "german" else "german"
        done = pairing.finished
        n = len(done)
        scores.append(SideScore(
            str(a), str(b), a_side, pairing.wins(a_side), n - pairing.wins(a_side) - pairing.wins(b_side), n,
            len(pairing.failed),
            sum(r.points.get(a_side, 0) for r in done) / n if n else 0.0,
            sum(r.points.get(b_side, 0) for r in done) / n if n else 0.0))
        for r in pairing.records:
            records.append({"player": str(a), "opponent": str(b), "player_side": a_side, **vars(r)})
        for r in pairing.failed:
            print(f"failed: #{r.index} {r.german} vs {r.soviet} match {r.match_id or '-'}: {r.error}", file=sys.stderr)
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--pair", action="append", default=[], metavar="A/B",
                        help="play A against B, both sides (repeatable)")
    parser.add_argument("--ladder", nargs="+", metavar="PLAYER", default=[],
                        help="players from weakest to strongest: each plays the one below it")
    parser.add_argument("--side", choices=("both", "german", "soviet"), default="both",
                        help="the side(s) the first player of each pairing plays (default both)")
    parser.add_argument("--games", type=int, default=40, help="matches per side of each pairing (default 40)")
    parser.add_argument("--parallel", type=int, default=2, help="matches at a time (default 2)")
    parser.add_argument("--server", default=None, help="a running service (default: an embedded one)")
    parser.add_argument("--seed", default="strength", help="seed of the bots' own choices")
    parser.add_argument("--verify", action="store_true", help="replay-verify every match")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds one match may take")
    parser.add_argument("--json", metavar="FILE", help="write every match's record to this file")
    args = parser.parse_args(argv)
    try:
        pairs = [tuple(Player.parse(p) for p in spec.split("/", 1)) for spec in args.pair]
        if any(len(p) != 2 for p in pairs):
            raise ValueError("--pair takes A/B")
        ladder = [Player.parse(p) for p in args.ladder]
    except ValueError as error:
        print(f"bot_strength: {error}", file=sys.stderr)
        return 2
    pairs += [(upper, lower) for lower, upper in zip(ladder, ladder[1:])]
    if not pairs:
        parser.error("give --pair A/B or --ladder P1 P2 ...")
    started = time.monotonic()
    records: list = []
    rows = []
    service = EmbeddedService() if args.server is None else None
    target = service.start() if service else args.server
    try:
        for a, b in pairs:
            t0 = time.monotonic()
            scores = play_pairing(a, b, args.games, target, args.parallel, args.seed, args.verify, args.timeout,
                                  records, ("german", "soviet") if args.side == "both" else (args.side,))
            rows.extend(s.row() for s in scores)
            print(f"{a} vs {b}: {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    finally:
        if service:
            service.stop()
    print(tabulate(rows, headers=HEADERS, tablefmt="github", disable_numparse=True))
    matches = f"{args.games} match{'es' if args.games != 1 else ''}"
    print(f"\n{matches} per side and pairing through {'an embedded service' if service else target}, "
          f"{args.parallel} at a time, bots' seed {args.seed!r}, in {time.monotonic() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1, default=str), encoding="utf-8")
    return 1 if any(row[-1] != "0" for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
