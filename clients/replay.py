"""Replay and audit of a match's event log: ``typhoon replay verify|show|render|export``.

A match's log (``MatchEvent`` entries: ``match_created``, ``seat_claimed``, the seats' ``entropy_*``,
``action_submitted``, ``game_event``, ``seed_revealed``) is everything needed to check it. The log comes from the service
(``GetEventLog``) or from a file written by ``export``: JSON lines, one ``MatchEvent`` per line in
protobuf's JSON mapping (proto field names), in sequence order::

    {"sequence": 1, "version": 0, "time": "...", "match_created": {"scenario": "standard", ...}}
    {"sequence": 4, "version": 1, "time": "...", "action_submitted": {"side": "german", "action": {...}, ...}}

``verify`` checks the seed, every die roll, every event, every state hash and (with a time control)
every clock, and says where and what when anything differs: the audit of :mod:`service.match.audit` (which
the service also answers to VerifyMatch).

>>> events = read_log("abc.jsonl")                      # doctest: +SKIP
>>> report = verify_log(events, match_id="abc")         # doctest: +SKIP
>>> print(report.text()); report.ok                      # doctest: +SKIP

``show`` prints the match step by step as a text board (step ``n`` is the position after the ``n``-th
action, i.e. at match version ``n``); ``render`` draws positions as SVG and PNG, at one step or as a
series (one per turn, per phase or per action). Positions are rebuilt with the engine from the actions;
while a match is still running its seed is secret, so the dice are then taken from the logged rolls.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from google.protobuf import json_format

import engine
from engine.ruleset import UNVERSIONED, played
from clients.connect import add_server_argument
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import convert
from service.match.audit import CHECKS, Problem, Report, _clock_text, _show, recompute_die, verify_log

MatchEvent = match_pb2.MatchEvent


# --- getting a log ---------------------------------------------------------------------------------

def fetch_log(client, match_id: str) -> list[MatchEvent]:
    """The whole event log of a match, from the service (a :class:`clients.client.TyphoonClient`)."""
    return list(client.event_log(match_id))


def event_to_json(event: MatchEvent) -> str:
    """One line of an export: the event in protobuf's JSON mapping, proto field names, compact."""
    return json.dumps(json_format.MessageToDict(event, preserving_proto_field_name=True), separators=(",", ":"))


def write_log(events: Iterable[MatchEvent], out: str | Path | IO[str]) -> int:
    """Write events as JSON lines to a path or an open text file; returns how many."""
    if isinstance(out, (str, Path)):
        with open(out, "w", encoding="utf-8") as handle:
            return write_log(events, handle)
    count = 0
    for event in events:
        out.write(event_to_json(event) + "\n")
        count += 1
    return count


class LogFormatError(ValueError):
    """A file that is not an exported event log."""


def read_log(source: str | Path | IO[str]) -> list[MatchEvent]:
    """Read an exported log (JSON lines of MatchEvent; ``-`` is standard input)."""
    if isinstance(source, (str, Path)):
        if str(source) == "-":
            return read_log(sys.stdin)
        with open(source, encoding="utf-8") as handle:
            return read_log(handle)
    events = []
    for number, line in enumerate(source, 1):
        if not line.strip():
            continue
        try:
            events.append(json_format.Parse(line, MatchEvent()))
        except json_format.ParseError as error:
            raise LogFormatError(f"line {number} is not a MatchEvent in JSON: {error}") from None
    return events


@dataclass
class Source:
    """A log and where it came from: a file, or a match of a service (with its final GetMatch)."""

    label: str
    events: list[MatchEvent]
    origin: str
    final: api.GetMatchResponse | None = None


def load_source(source: str, server: str | None = None) -> Source:
    """A file path (or ``-``) if it names a file, else a match id fetched from ``server``."""
    path = Path(source)
    if source == "-" or path.is_file():
        return Source(path.stem if source != "-" else "stdin", read_log(source), f"file {source}")
    if "/" in source or path.suffix in (".jsonl", ".json", ".ndjson"):
        raise FileNotFoundError(f"there is no file {source}")
    if not server:
        raise FileNotFoundError(f"{source!r} is not a file; to read a match from a service give --server ADDR")
    from clients.client import TyphoonClient

    with TyphoonClient(server) as client:
        events = fetch_log(client, source)
        final = client.get_match(source)
    return Source(source, events, f"service {server}", final)


# --- stepping through a match ----------------------------------------------------------------------

@dataclass
class Step:
    """Step ``number``: the position after the ``number``-th action (step 0: the match at creation)."""

    number: int
    sequence: int  # of the action_submitted entry (1 for step 0)
    side: str
    action: dict[str, Any] | None
    events: list[MatchEvent]
    game: engine.Game
    time_left: dict[str, int] = field(default_factory=dict)  # ms by side after the action (with clocks)

    @property
    def turn(self) -> int:
        return self.game.turn

    @property
    def phase(self) -> str:
        return self.game.phase.name

    def headline(self, total: int) -> str:
        head = f"step {self.number}/{total}"
        if self.action is None:
            return head + ": the match at creation (the Soviet set-up)"
        clocks = ("; time left " + ", ".join(f"{side} {_clock_text(ms)}" for side, ms in sorted(self.time_left.items()))
                  if self.time_left else "")
        return f"{head} (event #{self.sequence}): {self.side} plays {_show(self.action)}{clocks}"


class Replay:
    """The positions of a match, rebuilt with the engine from its log's actions.

    With the seed revealed the dice are the seed's; for a running match the logged rolls are used
    (``fixed_dice``). An action the engine refuses ends the replay there (``stopped_at``).
    """

    def __init__(self, events: list[MatchEvent], label: str = "") -> None:
        if not events or events[0].WhichOneof("kind") != "match_created":
            raise LogFormatError("the log does not start with match_created")
        self.label = label
        self.events = events
        created = events[0].match_created
        self.ruleset = created.ruleset or UNVERSIONED
        self.scenario = created.scenario
        self.options = convert.struct_to_dict(created.options)
        revealed = [e.seed_revealed.seed for e in events if e.WhichOneof("kind") == "seed_revealed"]
        self.seed = revealed[0] if revealed else None
        # a match plays under its own ruleset; one this engine does not play is replayed under the engine's
        ruleset = self.ruleset if self.ruleset in engine.RULESETS else engine.RULESET
        if self.seed is not None:
            game = engine.new_game(self.scenario, self.options, seed=self.seed, ruleset=ruleset)
        else:
            rolls = sorted((e.game_event.die_rolled.index, e.game_event.die_rolled.value) for e in events
                           if e.WhichOneof("kind") == "game_event" and e.game_event.WhichOneof("kind") == "die_rolled")
            game = engine.new_game(self.scenario, self.options, seed="", fixed_dice=[v for _, v in rolls],
                                   ruleset=ruleset)
        self.steps: list[Step] = [Step(0, 1, "", None, [], game.clone())]
        self.stopped_at: tuple[int, str] | None = None
        # imported here: the module checks entropy against the store too, which the replay command does not load
        from service.match import entropy_log

        drawn = entropy_log.drawn_in_log(events) if self.seed is None else {}
        current: Step | None = None
        for event in events[1:]:
            kind = event.WhichOneof("kind")
            if kind in ("entropy_awaited", "entropy_committed", "entropy_contributed") and self.stopped_at is None:
                try:
                    entropy_log.replay_event(game, event)
                except engine.IllegalAction as error:
                    self.stopped_at = (event.sequence, str(error))
            elif kind == "action_submitted" and self.stopped_at is None:
                data = convert.action_from_proto(event.action_submitted.action)
                try:
                    entropy_log.restore_drawn(game, drawn.get(event.version, []))
                    game.apply(engine.action_from_json(data))
                except engine.IllegalAction as error:
                    self.stopped_at = (event.sequence, str(error))
                    current = None
                    continue
                current = Step(len(self.steps), event.sequence, event.action_submitted.side, data, [], game.clone(),
                               {side: left.ToMilliseconds() for side, left in event.action_submitted.time_left.items()})
                self.steps.append(current)
            elif kind == "game_event" and current is not None:
                current.events.append(event)

    @property
    def last(self) -> int:
        return len(self.steps) - 1

    def step(self, number: int) -> Step:
        if not 0 <= number <= self.last:
            raise IndexError(f"there is no step {number}: the steps go from 0 to {self.last}")
        return self.steps[number]

    def end_of_turn(self, turn: int) -> Step:
        """The last step of ``turn`` (its final position)."""
        found = [s for s in self.steps if s.turn == turn]
        if not found:
            turns = sorted({s.turn for s in self.steps})
            raise IndexError(f"there is no turn {turn}: the match has turns {turns[0]} to {turns[-1]}")
        return found[-1]

    def series(self, every: str) -> list[Step]:
        """Steps for a series: ``turn`` (the start and the end of every turn), ``phase`` (the end of every
        phase) or ``action`` (every step)."""
        if every == "action":
            return list(self.steps)
        key = (lambda s: s.turn) if every == "turn" else (lambda s: (s.turn, s.phase))
        if every not in ("turn", "phase"):
            raise ValueError(f"series by turn, phase or action, not {every!r}")
        chosen = [self.steps[0]]
        for current, following in zip(self.steps, self.steps[1:] + [None]):
            if (following is None or key(following) != key(current)) and current is not chosen[-1]:
                chosen.append(current)
        return chosen

    def title(self, step: Step) -> str:
        game = step.game
        points = game.victory_points()
        text = (f"{self.label + ' · ' if self.label else ''}step {step.number}/{self.last} · Turn {game.turn} · "
                f"{game.phase.name.replace('_', ' ')} · {game.weather().title} · "
                f"VP German {points['german']} Soviet {points['soviet']}")
        return text  # the board adds the result once the game is over

    def describe(self, step: Step, events: bool = True) -> str:
        """The step as text: what was played, the events it caused, and the board."""
        from clients.client import describe_event
        from clients.render import text_board

        lines = [(f"{self.label}: " if self.label else "") + step.headline(self.last)]
        if events:
            lines.extend("  " + describe_event(e) for e in step.events)
        lines.append(text_board(step.game))
        result = step.game.result()
        if result:
            lines.append(f"result: {'draw' if result.winner == 'draw' else result.winner + ' wins'} "
                         f"({result.reason}); victory points "
                         + ", ".join(f"{k} {v}" for k, v in sorted(result.points.items())))
        return "\n".join(lines)


# --- the command line ------------------------------------------------------------------------------

def _load(args) -> Source:
    return load_source(args.source, args.server)


def _warn_other_ruleset(replay: Replay) -> None:
    if replay.ruleset not in engine.RULESETS:
        print(f"warning: played under ruleset {replay.ruleset}; this engine plays {played()}: the "
              f"positions are this engine's replay of the actions and may differ from the match", file=sys.stderr)


def cli_export(args) -> int:
    from clients.client import TyphoonClient

    with TyphoonClient(args.server) as client:
        events = fetch_log(client, args.match)
    if args.output == "-":
        write_log(events, sys.stdout)
        return 0
    path = Path(args.output or f"{args.match}.jsonl")
    count = write_log(events, path)
    finished = bool(events) and events[-1].WhichOneof("kind") == "seed_revealed"
    print(f"{count} events of match {args.match} written to {path}"
          + ("" if finished else " (the match is not finished: its seed is not in the log yet)"), file=sys.stderr)
    return 0


def cli_verify(args) -> int:
    source = _load(args)
    report = verify_log(source.events, match_id=source.label, final=source.final, origin=source.origin)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.text(max_problems=args.max_problems))
    return {"verified": 0, "other_ruleset": 3}.get(report.verdict, 1)


def cli_show(args) -> int:
    source = _load(args)
    replay = Replay(source.events, source.label)
    _warn_other_ruleset(replay)
    if replay.stopped_at:
        print(f"warning: the engine refuses the action at event #{replay.stopped_at[0]} "
              f"({replay.stopped_at[1]}); the replay stops before it", file=sys.stderr)
    if args.step is not None or args.turn is not None:
        step = replay.step(args.step) if args.step is not None else replay.end_of_turn(args.turn)
        print(replay.describe(step))
        return 0
    interactive = args.interactive if args.interactive is not None else (sys.stdin.isatty() and sys.stdout.isatty())
    if interactive:
        return _interactive(replay)
    for step in replay.series(args.every):
        print(replay.describe(step, events=args.every == "action"))
        print()
    return 0


HELP = ("Enter/n: next action   p: next phase   t: next turn   b: back   0-9...: go to step   "
        "e: end   q: quit")


def _interactive(replay: Replay) -> int:
    number = 0
    while True:
        step = replay.step(number)
        sys.stdout.write("\x1b[2J\x1b[H")
        print(replay.describe(step))
        print()
        print(HELP)
        try:
            command = input(f"step {number}/{replay.last}> ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if command == "q":
            return 0
        if command in ("", "n"):
            number = min(replay.last, number + 1)
        elif command == "b":
            number = max(0, number - 1)
        elif command == "e":
            number = replay.last
        elif command in ("p", "t"):
            key = (lambda s: (s.turn, s.phase)) if command == "p" else (lambda s: s.turn)
            here = key(step)
            while number < replay.last and key(replay.step(number)) == here:
                number += 1
        elif command.isascii() and command.isdigit():
            number = max(0, min(replay.last, int(command)))


def cli_render(args) -> int:
    source = _load(args)
    replay = Replay(source.events, source.label)
    _warn_other_ruleset(replay)
    if replay.stopped_at:
        print(f"warning: the engine refuses the action at event #{replay.stopped_at[0]}; the replay stops before it",
              file=sys.stderr)
    if args.series:
        steps = replay.series(args.series)
    elif args.turn is not None:
        steps = [replay.end_of_turn(args.turn)]
    else:
        steps = [replay.step(replay.last if args.step is None else args.step)]
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    written = render_steps(replay, steps, out, args.format, args.zoom)
    for path in written:
        print(path)
    return 0


def render_steps(replay: Replay, steps: list[Step], out: Path, formats: str = "svg,png",
                 zoom: float = 1.5) -> list[Path]:
    """Write each step's board as ``<label>-step<NNNN>.svg`` / ``.png`` in ``out``; returns the paths."""
    from clients.render import board_png, board_svg

    kinds = {kind.strip() for kind in formats.split(",") if kind.strip()}
    if not kinds <= {"svg", "png"}:
        raise ValueError(f"formats are svg and png, not {formats!r}")
    written = []
    for step in steps:
        stem = f"{replay.label or 'match'}-step{step.number:04d}"
        title = replay.title(step)
        if "svg" in kinds:
            path = out / f"{stem}.svg"
            path.write_text(board_svg(step.game, title), encoding="utf-8")
            written.append(path)
        if "png" in kinds:
            path = out / f"{stem}.png"
            path.write_bytes(board_png(step.game, title, zoom=zoom))
            written.append(path)
    return written


def _quiet_pipe(run):
    """A replay command: a closed pipe (``| head``) ends it quietly; a match or file that cannot be read,
    or a step that does not exist, is a one-line error (exit code 2)."""
    from clients.client import TyphoonError

    def wrapped(args) -> int:
        try:
            return run(args)
        except BrokenPipeError:
            sys.stderr.close()
            return 0
        except TyphoonError as error:
            print(f"typhoon replay: the service at {args.server}: {error}", file=sys.stderr)
        except (OSError, LogFormatError, IndexError, ValueError) as error:
            print(f"typhoon replay: {error}", file=sys.stderr)
        return 2
    return wrapped


def register(commands) -> None:
    """Add ``replay verify|show|render|export`` to the ``typhoon`` command line."""
    replay = commands.add_parser("replay")
    sub = replay.add_subparsers(dest="replay_command", required=True)

    def source(parser):
        parser.add_argument("source", help="a match id (read from --server) or an exported .jsonl file (- for stdin)")
        add_server_argument(parser)

    verify = sub.add_parser("verify", help="check the seed, every die roll, every event and every state hash "
                                           "(exit 0 verified, 1 failed or unfinished, 3 played under another ruleset)")
    source(verify)
    verify.add_argument("--max-problems", type=int, default=10, help="problems to list (default 10)")
    verify.add_argument("--json", action="store_true", help="the report as JSON")
    verify.set_defaults(run=_quiet_pipe(cli_verify))

    show = sub.add_parser("show", help="step through the match as a text board")
    source(show)
    show.add_argument("--step", type=int, help="show only this step (the position after that many actions)")
    show.add_argument("--turn", type=int, help="show only the end of this turn")
    show.add_argument("--every", choices=["action", "phase", "turn"], default="turn",
                      help="without a terminal: print a board after every action, phase or turn (default turn)")
    show.add_argument("--interactive", "-i", action="store_true", default=None,
                      help="step with the keyboard (the default on a terminal)")
    show.add_argument("--no-interactive", dest="interactive", action="store_false")
    show.set_defaults(run=_quiet_pipe(cli_show))

    render = sub.add_parser("render", help="draw the board as SVG and PNG at a step or as a series")
    source(render)
    render.add_argument("--step", type=int, help="the step to draw (default: the last)")
    render.add_argument("--turn", type=int, help="draw the end of this turn")
    render.add_argument("--series", choices=["turn", "phase", "action"],
                        help="draw a series: the start and the end of every turn, every phase, or every action")
    render.add_argument("--output", "-o", default="replay", help="directory for the pictures (default ./replay)")
    render.add_argument("--format", default="svg,png", help="svg, png or svg,png (default)")
    render.add_argument("--zoom", type=float, default=1.5, help="PNG scale (default 1.5)")
    render.set_defaults(run=_quiet_pipe(cli_render))

    export = sub.add_parser("export", help="write a match's event log to a JSON lines file")
    export.add_argument("match", help="the match id")
    add_server_argument(export)
    export.add_argument("--output", "-o", help="the file (default <match>.jsonl; - for standard output)")
    export.set_defaults(run=_quiet_pipe(cli_export))


__all__ = ["CHECKS", "LogFormatError", "MatchEvent", "Problem", "Replay", "Report", "Source", "Step", "event_to_json",
           "fetch_log", "load_source", "read_log", "recompute_die", "register", "render_steps", "verify_log",
           "write_log"]
