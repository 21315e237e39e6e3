"""The match runner: series of bot matches played through the game service.

``typhoon match run --german heuristic --soviet random --games 50 [--server ADDR]`` creates the matches,
lets two bots (each with its own gRPC client, see :mod:`clients.sdk`) play every one of them through the
service, several matches at a time, shows a progress bar and prints a table: wins per side, draws,
mean victory points, mean length, and every match that failed. Without ``--server`` it starts an
embedded service (``typhoon serve`` in a child process, with its own Redis in a temporary directory)
and stops it at the end. ``--swap`` also plays the same number of matches with the strategies' sides
exchanged and adds each strategy's overall score, which is how the strength figures are measured.

>>> series = run_series("heuristic", "random", games=4, target="127.0.0.1:50051")   # doctest: +SKIP
>>> print(series.table())                                                          # doctest: +SKIP

The match seeds (and so the dice) are drawn by the service; ``--seed`` seeds the bots' own choices
(match ``i`` of a series gives its bots the seeds ``f"{seed}-{i}-german"`` and ``f"{seed}-{i}-soviet"``).
"""

from __future__ import annotations

import itertools
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabulate import tabulate

from clients.client import TyphoonClient
from clients.connect import add_server_argument, service_answers, unreachable_sentence
from clients.ratings import Ratings, player_label
from clients.sdk import Bot, BotResult
from clients.wording import counted
from service.gen.typhoon.v1 import match_pb2
from service.processes import ServeProcess

SIDES = ("german", "soviet")


# --- an embedded service ---------------------------------------------------------------------------

class EmbeddedService:
    """A Typhoon service of our own for a series: ``with EmbeddedService() as target: ...``.

    ``process=True`` (the default) runs ``typhoon serve`` in a child process, so the service does not
    compete with the bots for this interpreter's lock; ``process=False`` runs it in a thread
    (:class:`service.run.server.BackgroundServer`). Either way its Redis is embedded, in a temporary
    directory, and everything is stopped and removed on exit. It is private to the series, so it runs
    without rate limits (a series creates matches as fast as its bots finish them) and without related
    ladder owners (every owner its bots register comes from this machine's address).
    """

    def __init__(self, process: bool = True, startup_timeout: float = 60.0, data_dir: str | Path | None = None,
                 port: int = 0) -> None:
        self.process_mode = process
        self.startup_timeout = startup_timeout
        self.data_dir = Path(data_dir) if data_dir else None
        self.port = port
        self.target = ""
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._child: ServeProcess | None = None
        self._background = None

    def start(self) -> str:
        """Start the service (again, after ``stop()``: with a ``data_dir`` and a ``port`` given, a
        restart keeps the matches and the address)."""
        self._tmp = tempfile.TemporaryDirectory(prefix="typhoon-runner-")
        data_dir = self.data_dir or Path(self._tmp.name) / "data"
        if not self.process_mode:
            from service.guard.limit_settings import LimitSettings
            from service.ladder.core import LadderConfig
            from service.ladder.fairness import FairPlay
            from service.run.config import ServeConfig
            from service.run.server import BackgroundServer, configure_logging

            configure_logging("warning")
            self._background = BackgroundServer(ServeConfig(grpc_port=self.port, http_port=0, data_dir=str(data_dir),
                                                            grace_seconds=2, log_level="warning",
                                                            limits=LimitSettings.off(),
                                                            ladder=LadderConfig(fair_play=FairPlay(related_window_ms=0)))
                                                ).start()
            self.target = f"127.0.0.1:{self._background.grpc_port}"
            return self.target
        self._child = ServeProcess("--data-dir", str(data_dir), "--log-level", "warning", "--grace", "2", "--no-rate-limits",
                                   "--ladder-related-days", "0",
                                   grpc_port=self.port, env={"REDIS_URL": ""}, remember=50)
        self._child.start(self.startup_timeout)
        self.target = self._child.target
        return self.target

    def stop(self) -> None:
        if self._background is not None:
            self._background.stop()
            self._background = None
        if self._child is not None:
            self._child.stop(30)
            self._child = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --- one match -------------------------------------------------------------------------------------

@dataclass
class MatchRecord:
    """One match of a series."""

    index: int
    german: str
    soviet: str
    match_id: str = ""
    winner: str = ""
    reason: str = ""
    points: dict[str, int] = field(default_factory=dict)
    actions: int = 0
    turns: int = 0
    seconds: float = 0.0
    think_seconds: dict[str, float] = field(default_factory=dict)  # by side: time spent in the strategy
    max_think_seconds: dict[str, float] = field(default_factory=dict)  # by side: the longest single choice
    side_actions: dict[str, int] = field(default_factory=dict)  # by side: the actions its bot submitted
    illegal: int = 0
    error: str = ""
    verified: bool | None = None
    time_control: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and bool(self.winner)

    def strategy_of(self, side: str) -> str:
        return self.german if side == "german" else self.soviet


def play_match(target: str, german: Any, soviet: Any, index: int = 1, seed: str = "runner",
               scenario: str = "standard", options: dict | None = None, german_params: dict | None = None,
               soviet_params: dict | None = None, verify: bool = False, timeout: float = 3600.0,
               retry_seconds: float = 60.0, time_control: str | None = None) -> MatchRecord:
    """Create a match, let a ``german`` and a ``soviet`` bot (strategy names or objects) play it through
    the service at ``target``, and return its record (``error`` says what went wrong, if anything).
    ``time_control`` (a preset or ``"300+5"``) gives the match clocks: a bot too slow loses on time."""
    names = {side: player_label(spec if isinstance(spec, str) else getattr(spec, "name", None)
                                or getattr(spec, "__name__", "?"), params)
             for side, spec, params in zip(SIDES, (german, soviet), (german_params, soviet_params))}
    record = MatchRecord(index, names["german"], names["soviet"])
    started = time.monotonic()
    bots: list[Bot] = []
    try:
        with TyphoonClient(target) as client:
            match, _ = client.create_match(scenario, options=options or None, time_control=time_control)
            record.match_id = match.match_id
            errors: dict[str, BaseException] = {}
            threads = []
            for side, spec, params in zip(SIDES, (german, soviet), (german_params, soviet_params)):
                bot = Bot(spec, target, match_id=match.match_id, side=side, seed=f"{seed}-{index}-{side}",
                          params=params, player_name=f"{names[side]} ({side})", retry_seconds=retry_seconds)
                bots.append(bot)

                def play(bot: Bot = bot) -> None:
                    try:
                        bot.run()
                    except BaseException as error:  # noqa: BLE001 - reported in the record
                        errors[bot.side] = error
                        for other in bots:
                            other.stop()

                threads.append(threading.Thread(target=play, name=f"match{index}-{side}", daemon=True))
            for thread in threads:
                thread.start()
            deadline = time.monotonic() + timeout
            for thread in threads:
                thread.join(max(0.0, deadline - time.monotonic()))
            if any(thread.is_alive() for thread in threads):
                for bot in bots:
                    bot.stop()
                for thread in threads:
                    thread.join(10)
                errors.setdefault("runner", TimeoutError(f"not finished after {timeout:.0f} s"))
            answer = client.get_match(match.match_id)
            final = answer.match
            record.actions, record.turns = final.version, final.turn
            if final.result.winner:
                record.winner, record.reason = final.result.winner, final.result.reason
                record.points = dict(final.result.points)
            results: dict[str, BotResult] = {bot.side: bot.result for bot in bots}
            record.think_seconds = {side: result.think_seconds for side, result in results.items()}
            record.max_think_seconds = {side: result.max_think_seconds for side, result in results.items()}
            record.side_actions = {side: result.actions for side, result in results.items()}
            record.illegal = sum(result.illegal for result in results.values())
            if errors:
                record.error = "; ".join(f"{side}: {type(error).__name__}: {error}" for side, error in errors.items())
            elif final.status == match_pb2.MATCH_STATUS_ABORTED:
                record.error = f"aborted: {client.why_aborted(final)}"
            elif not record.winner:
                record.error = "the match did not finish"
            if verify and record.winner and not record.error:
                from clients.replay import fetch_log, verify_log

                report = verify_log(fetch_log(client, match.match_id), match_id=match.match_id,
                                    final=answer)
                record.verified = report.ok
                if not report.ok:
                    record.error = f"replay verify failed: {report.problems[0].describe()}"
    except Exception as error:  # noqa: BLE001 - a failed match is a row of the table, not a crash
        record.error = record.error or f"{type(error).__name__}: {error}"
    record.seconds = time.monotonic() - started
    return record


# --- a series --------------------------------------------------------------------------------------

@dataclass
class Pairing:
    """The tally of one pairing (a German strategy against a Soviet strategy)."""

    german: str
    soviet: str
    records: list[MatchRecord] = field(default_factory=list)

    @property
    def finished(self) -> list[MatchRecord]:
        return [r for r in self.records if r.ok]

    @property
    def failed(self) -> list[MatchRecord]:
        return [r for r in self.records if not r.ok]

    def wins(self, side: str) -> int:
        return sum(1 for r in self.finished if r.winner == side)

    def mean(self, value: Callable[[MatchRecord], float]) -> float:
        done = self.finished
        return sum(value(r) for r in done) / len(done) if done else 0.0


@dataclass
class Series:
    """Every match of a run, by pairing, and how long it took."""

    target: str
    parallel: int
    pairings: list[Pairing] = field(default_factory=list)
    seconds: float = 0.0
    embedded: bool = False

    @property
    def records(self) -> list[MatchRecord]:
        return [r for p in self.pairings for r in p.records]

    @property
    def failed(self) -> list[MatchRecord]:
        return [r for r in self.records if not r.ok]

    def strategy_scores(self) -> dict[str, dict[str, tuple[int, int]]]:
        """strategy -> side -> (wins, finished games) over every pairing; "all" sums the sides."""
        scores: dict[str, dict[str, list[int]]] = {}
        for record in self.records:
            if not record.ok:
                continue
            for side in SIDES:
                name = record.strategy_of(side)
                entry = scores.setdefault(name, {"german": [0, 0], "soviet": [0, 0], "all": [0, 0]})
                for key in (side, "all"):
                    entry[key][1] += 1
                    entry[key][0] += record.winner == side
        return {name: {key: (w, n) for key, (w, n) in sides.items()} for name, sides in scores.items()}

    def side_totals(self) -> list[dict[str, Any]]:
        """Per strategy and side, over every match: matches, actions submitted, time spent choosing (in
        all, per action, the longest single choice).

        >>> series = Series("t", 1, [Pairing("a", "b", [MatchRecord(1, "a", "b", side_actions={"german": 4, "soviet": 2},
        ...     think_seconds={"german": 2.0, "soviet": 0.5}, max_think_seconds={"german": 1.5, "soviet": 0.3})])])
        >>> series.side_totals()[0]
        {'player': 'a', 'side': 'german', 'matches': 1, 'actions': 4, 'think_seconds': 2.0, \
'think_ms_per_action': 500.0, 'max_think_seconds': 1.5}
        """
        totals: dict[tuple[str, str], dict[str, Any]] = {}
        for record in self.records:
            for side in SIDES:
                entry = totals.setdefault((record.strategy_of(side), side), {
                    "player": record.strategy_of(side), "side": side, "matches": 0, "actions": 0,
                    "think_seconds": 0.0, "think_ms_per_action": 0.0, "max_think_seconds": 0.0})
                entry["matches"] += 1
                entry["actions"] += record.side_actions.get(side, 0)
                entry["think_seconds"] += record.think_seconds.get(side, 0.0)
                entry["max_think_seconds"] = max(entry["max_think_seconds"], record.max_think_seconds.get(side, 0.0))
        for entry in totals.values():
            entry["think_ms_per_action"] = round(1000 * entry["think_seconds"] / entry["actions"], 3) \
                if entry["actions"] else 0.0
        return list(totals.values())

    def table(self) -> str:
        """The results as a text table, then the per-strategy scores (when a strategy played both
        sides) and every failed match."""
        head = ["German", "Soviet", "games", "German wins", "Soviet wins", "draws", "failed",
                "mean VP G", "mean VP S", "mean actions", "mean turns", "s/match"]
        rows = []
        for p in self.pairings:
            n = len(p.finished)

            def pct(k: int, n: int = n) -> str:
                return f"{k} ({100 * k / n:.0f}%)" if n else str(k)
            rows.append([p.german, p.soviet, str(len(p.records)), pct(p.wins("german")), pct(p.wins("soviet")),
                         str(n - p.wins("german") - p.wins("soviet")), str(len(p.failed)),
                         f"{p.mean(lambda r: r.points.get('german', 0)):.1f}",
                         f"{p.mean(lambda r: r.points.get('soviet', 0)):.1f}",
                         f"{p.mean(lambda r: r.actions):.0f}", f"{p.mean(lambda r: r.turns):.1f}",
                         f"{p.mean(lambda r: r.seconds):.1f}"])
        lines = tabulate(rows, headers=head, colalign=("left", "left", *["right"] * (len(head) - 2)),
                         disable_numparse=True).splitlines()
        games = len(self.records)
        lines.append(f"{games} match{'es' if games != 1 else ''} through {'an embedded service at ' if self.embedded else ''}{self.target}, "
                     f"{self.parallel} at a time, in {self.seconds:.1f} s")
        scores = self.strategy_scores()
        both = {name: s for name, s in scores.items() if s["german"][1] and s["soviet"][1]}
        if both and len(self.pairings) > 1:
            lines.append("")
            lines.append("score by strategy (wins / finished matches):")
            for name, s in sorted(both.items()):
                parts = [f"as {side} {w}/{n} ({100 * w / n:.0f}%)" for side in SIDES for w, n in [s[side]]]
                w, n = s["all"]
                lines.append(f"  {name}: " + ", ".join(parts) + f", overall {w}/{n} ({100 * w / n:.0f}%)")
        failed = self.failed
        lines.append("")
        if failed:
            lines.append(f"{len(failed)} failed:")
            for r in failed:
                lines.append(f"  #{r.index} {r.german} vs {r.soviet} match {r.match_id or '-'}: "
                             f"{r.error or 'no result'}")
        else:
            lines.append("no match failed")
        on_time = [r for r in self.records if r.ok and r.reason == "time"]
        if on_time:
            lines.append(f"{counted(len(on_time), 'match')} lost on time: "
                         + ", ".join(f"#{r.index} ({'soviet' if r.winner == 'german' else 'german'})" for r in on_time))
        illegal = sum(r.illegal for r in self.records)
        if illegal:
            lines.append(f"{counted(illegal, 'illegal choice')} replaced by the fallback")
        verified = [r for r in self.records if r.verified is not None]
        if verified:
            lines.append(f"replay verified: {sum(bool(r.verified) for r in verified)} of "
                         f"{counted(len(verified), 'match')}")
        return "\n".join(lines)


def run_series(german: str, soviet: str, games: int = 10, target: str | None = None, parallel: int = 4,
               seed: str = "runner", scenario: str = "standard", options: dict | None = None,
               german_params: dict | None = None, soviet_params: dict | None = None, swap: bool = False,
               verify: bool = False, progress: bool = False, embedded_process: bool = True,
               timeout: float = 3600.0, time_control: str | None = None) -> Series:
    """Play ``games`` matches of ``german`` against ``soviet`` (and as many with the sides swapped if
    ``swap``) through the service at ``target`` (an embedded one when None), ``parallel`` at a time."""
    embedded = EmbeddedService(process=embedded_process) if target is None else None
    started = time.monotonic()
    if embedded:
        target = embedded.start()
    try:
        plan = [(german, soviet, german_params, soviet_params)]
        if swap:
            plan.append((soviet, german, soviet_params, german_params))
        series = Series(target, parallel, [Pairing(player_label(g, gp), player_label(s, sp)) for g, s, gp, sp in plan],
                        embedded=embedded is not None)
        jobs = []
        for number, (g, s, gp, sp) in enumerate(plan):
            for i in range(1, games + 1):
                index = number * games + i
                jobs.append((series.pairings[number], {
                    "german": g, "soviet": s, "index": index, "seed": seed, "scenario": scenario,
                    "options": options, "german_params": gp, "soviet_params": sp, "verify": verify,
                    "timeout": timeout, "time_control": time_control}))
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(jobs), unit="match", desc=f"{german} vs {soviet}", file=sys.stderr)
        with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="match") as pool:
            futures = {pool.submit(play_match, target, **kwargs): pairing for pairing, kwargs in jobs}
            for future in as_completed(futures):
                record = future.result()
                futures[future].records.append(record)
                if bar is not None:
                    bar.update(1)
                    done = series.records
                    bar.set_postfix(german=sum(r.winner == "german" for r in done),
                                    soviet=sum(r.winner == "soviet" for r in done),
                                    failed=sum(not r.ok for r in done), refresh=False)
        if bar is not None:
            bar.close()
        for pairing in series.pairings:
            pairing.records.sort(key=lambda r: r.index)
        series.seconds = time.monotonic() - started
        return series
    finally:
        if embedded:
            embedded.stop()


__all__ = ["EmbeddedService", "MatchRecord", "Pairing", "Series", "play_match", "run_series"]


# --- the command line: typhoon match run -----------------------------------------------------------

def cli_match_run(args) -> int:
    from clients.client import as_time_control
    from clients.sdk import checked_options, checked_strategy, parse_params

    try:
        options = checked_options(args.scenario, args.options)
        german_params, soviet_params = parse_params(args.german_param), parse_params(args.soviet_param)
        checked_strategy(args.german, german_params)
        checked_strategy(args.soviet, soviet_params)
        if args.time_control:
            as_time_control(args.time_control)
    except ValueError as error:
        print(f"typhoon match run: {error}", file=sys.stderr)
        return 2
    try:
        ratings = Ratings.load(Path(args.ratings)) if args.ratings else Ratings()
    except (OSError, ValueError, KeyError) as error:
        print(f"typhoon match run: cannot read the ratings file: {error}", file=sys.stderr)
        return 2
    if args.server and not service_answers(args.server):
        print(f"typhoon match run: {unreachable_sentence(args.server)}", file=sys.stderr)
        return 1
    where = args.server or "an embedded service"
    print(f"{args.german} (German) vs {args.soviet} (Soviet): {counted(args.games, 'match')}"
          + (" each way" if args.swap else "") + f" through {where}, {args.parallel} at a time"
          + (f", time control {args.time_control}" if args.time_control else ""), file=sys.stderr)
    series = run_series(args.german, args.soviet, games=args.games, target=args.server, parallel=args.parallel,
                        seed=args.seed, scenario=args.scenario, options=options,
                        german_params=german_params, soviet_params=soviet_params,
                        swap=args.swap, verify=args.verify, progress=not args.no_progress,
                        embedded_process=not args.in_process, timeout=args.timeout,
                        time_control=args.time_control)
    print(series.table())
    # the pairings' matches in turn (1st of each, 2nd of each...): an online rating is not blind to order
    for round_ in itertools.zip_longest(*(p.records for p in series.pairings)):
        for record in round_:
            if record is not None and record.ok:
                ratings.record(record.german, record.soviet, record.winner)
    print()
    print(f"ratings (OpenSkill{', kept in ' + args.ratings if args.ratings else ', this series'}):")
    print(ratings.table())
    if args.ratings:
        ratings.save(Path(args.ratings))
    if args.json:
        import json

        payload = {"target": series.target, "seconds": series.seconds, "parallel": series.parallel,
                   "players": series.side_totals(), "matches": [vars(r) for r in series.records]}
        text = json.dumps(payload, indent=1, default=str)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text, encoding="utf-8")
    return 0 if not series.failed else 1


def register(commands) -> None:
    """Add ``match run`` to the ``typhoon`` command line."""
    from clients.strategies import STRATEGIES

    match = commands.add_parser("match")
    sub = match.add_subparsers(dest="match_command", required=True)
    run = sub.add_parser("run", help="play a series of bot matches and print the results as a table")
    names = ", ".join(sorted(STRATEGIES))
    run.add_argument("--german", default="heuristic", metavar="STRATEGY",
                     help=f"the German strategy: {names} or package.module:callable (default heuristic)")
    run.add_argument("--soviet", default="random", metavar="STRATEGY",
                     help=f"the Soviet strategy: {names} or package.module:callable (default random)")
    run.add_argument("--games", type=int, default=10, help="matches to play (default 10)")
    run.add_argument("--swap", action="store_true",
                     help="also play as many matches with the strategies' sides exchanged")
    add_server_argument(run, default=None, says="the service's gRPC address (default: start an embedded one)")
    run.add_argument("--parallel", type=int, default=4, help="matches played at the same time (default 4)")
    run.add_argument("--seed", default="runner", help="seed of the bots' own choices (the dice are the service's)")
    run.add_argument("--scenario", default="standard", help="standard (7 turns) or campaign (14 turns)")
    run.add_argument("--options", default="", help="comma-separated options, as for selfplay")
    run.add_argument("--german-param", action="append", metavar="NAME=VALUE", help="German strategy parameter")
    run.add_argument("--soviet-param", action="append", metavar="NAME=VALUE", help="Soviet strategy parameter")
    run.add_argument("--verify", action="store_true", help="replay-verify every finished match")
    run.add_argument("--time-control", default=None, metavar="PRESET|INITIAL+INCREMENT",
                     help="clocks for every match: a preset (bullet, blitz, rapid, classical) or seconds such as "
                          "300+5; a bot whose time runs out loses (default: no clocks)")
    run.add_argument("--timeout", type=float, default=3600.0, help="seconds one match may take (default 3600)")
    run.add_argument("--in-process", action="store_true",
                     help="run the embedded service in this process (default: a child process)")
    run.add_argument("--json", metavar="FILE", help="also write every match's record, and per strategy and side the "
                                                    "actions and the time spent choosing, to this JSON file "
                                                    "(- : standard output)")
    run.add_argument("--ratings", metavar="FILE",
                     help="a ladder's ratings file: read (if it exists), updated with this series, written back")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(run=cli_match_run)
