"""The audit of a match's event log: the seed against its commitment, every die roll recomputed, the
log re-simulated with the engine. ``typhoon replay verify`` (clients/replay.py) prints it; the service
answers it to VerifyMatch, for clients that cannot run the engine.

It checks, and says where (the event's sequence number) and what when anything differs:

1. the log: sequences 1, 2, 3... without gaps, ``match_created`` first, ``seed_revealed`` last;
2. the seed: SHA-256 of the revealed seed equals the commitment published in ``match_created``;
3. the dice: every ``die_rolled`` value is recomputed from the seed and its index with the derivation
   documented in ``engine/dice.py`` (implemented again here, independently of the engine), and the
   indexes run 0, 1, 2...; from ruleset 4 on with each side's entropy: one ``entropy_committed`` a
   side at most (an ``entropy_awaited`` before it, if any), then once every side has committed, an
   ``entropy_contributed`` whose SHA-256 is the side's commitment, all before the first die; or, for a
   side that gave none (or whose reveal never came due), the ``entropy_drawn`` event just before the
   first die, whose entropy is recomputed from the seed, and never for a side whose reveal was due;
4. the game: ``engine.new_game(scenario, options, seed)`` (which does the Soviet set-up), then each
   side's part in the dice (``Game.await_entropy``, ``Game.commit_entropy``, ``Game.contribute_entropy``)
   and every ``action_submitted`` action in log order:
   the engine must accept it from the side that submitted it,
   the game events it produces must be the logged ``game_event`` entries that follow, one by one, and
   its ``state_hash()`` after each action must be the logged one;
5. the end: the replayed game is over when the seed is revealed (unless the match was aborted: by
   its clock, see 6, or by an operator of the service, which the report states), and
   (from the service) the match's final state hash, result, version and last sequence agree with the
   replay;
6. the clocks, for a match with a time control: each side's time left after every action is
   recomputed from the time control and the actions' times (implemented again here, independently of
   service/match/clock.py) and must be the logged one, the running side following each seat's
   commitment and reveal as the game waits for them; no action comes after its side's time ran out; a
   time forfeit comes only once the side's time has run out, an abort only once a side's first-action
   time has, and never while the game waited for that side's reveal (it loses on time instead).

Checks 4-6 replay the game with this engine, so they need the rules the match was played under:
``match_created`` records the engine ruleset (``engine.RULESET``; a log without one is ruleset 1); the
game is re-simulated under it when the engine plays it (``engine.RULESETS``). A match of another
ruleset is not re-simulated: checks 1-3 are made, and the verdict says which ruleset
it was played under (``OTHER RULESET``), which is not a finding of tampering.

>>> recompute_die("example", 0), recompute_die("example", 1)
(2, 4)
>>> entropy = {"german": "0123456789abcdef0123456789abcdef", "soviet": "fedcba9876543210fedcba9876543210"}
>>> [recompute_mixed_die("example", entropy, i) for i in range(4)]
[4, 5, 2, 3]
"""

from __future__ import annotations

import hashlib
import hmac
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import engine
from engine.ruleset import MIXED_DICE, UNVERSIONED, played
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import convert, entropy_log

MatchEvent = match_pb2.MatchEvent

# --- dice, recomputed from engine/dice.py's documented derivation ----------------------------------

def recompute_die(seed: str, index: int) -> int:
    """Roll ``index`` of a match with this seed, following engine/dice.py's description step by step
    (deliberately not calling the engine): SHA-256 of ``"typhoon-die-v1:<seed>:<index>:<attempt>"``,
    the first digest byte below 252 gives ``byte % 6 + 1``; if none, the next attempt."""
    attempt = 0
    while True:
        digest = hashlib.sha256(("typhoon-die-v1:" + seed + ":" + str(index) + ":" + str(attempt)).encode("utf-8"))
        for byte in digest.digest():
            if byte < 252:
                return byte % 6 + 1
        attempt += 1


def recompute_mixed_die(seed: str, entropy: dict[str, str], index: int) -> int:
    """Roll ``index`` of a ruleset-4 match, following engine/dice.py's description (not calling the
    engine): the key is HMAC-SHA-256 with the seed as key of ``"typhoon-dice-v2"`` then
    ``"|<side>=<entropy>"`` for each side in alphabetical order; each attempt HMAC-SHA-256 with that key
    of ``"<index>:<attempt>"``, whose first byte below 252 gives ``byte % 6 + 1``."""
    message = "typhoon-dice-v2" + "".join("|" + side + "=" + entropy[side] for side in sorted(entropy))
    key = hmac.new(seed.encode("utf-8"), message.encode("utf-8"), hashlib.sha256).digest()
    attempt = 0
    while True:
        for byte in hmac.new(key, (str(index) + ":" + str(attempt)).encode("utf-8"), hashlib.sha256).digest():
            if byte < 252:
                return byte % 6 + 1
        attempt += 1


def recompute_drawn(seed: str, side: str) -> str:
    """The entropy drawn for a side that gave none (engine/dice.py): HMAC-SHA-256 (hex) with the seed as
    key of ``"typhoon-drawn-entropy-v1|<side>"``."""
    return hmac.new(seed.encode("utf-8"), ("typhoon-drawn-entropy-v1|" + side).encode("utf-8"),
                    hashlib.sha256).hexdigest()


class _Dice:
    """The log's dice, checked as the log goes: each side's entropy (ruleset 4 on), then each roll
    against the seed (None while it is secret: the rolls are only listed)."""

    def __init__(self, seed: str | None, ruleset: int, sides: list[str], report: Report) -> None:
        self.seed, self.mixed, self.sides, self.report = seed, ruleset >= MIXED_DICE, sides, report
        self.commitments: dict[str, str | None] = {}  # "": gives none; None: awaited
        self.entropy: dict[str, str] = {}
        self.rolls = 0

    def _step(self, seq: int, side: str, what: str) -> bool:
        """Whether a seat's step may come at all: a match whose dice mix entropy, before the first die."""
        if not self.mixed:
            self.report.add(seq, "dice", f"{what} in a match of ruleset {self.report.ruleset}, whose dice mix no entropy")
        elif self.rolls:
            self.report.add(seq, "dice", f"the {side} side's {what} comes after the first die")
        return self.mixed and not self.rolls

    def awaited(self, seq: int, side: str) -> None:
        if self._step(seq, side, "entropy_awaited") and side in self.commitments:
            self.report.add(seq, "dice", f"the {side} side is awaited after it decided on its entropy")
        self.commitments.setdefault(side, None)

    def committed(self, seq: int, side: str, commitment: str) -> None:
        report = self.report
        if self._step(seq, side, "entropy_committed"):
            if self.commitments.get(side) is not None:
                report.add(seq, "dice", f"a second commitment for the {side} side", logged=commitment,
                           replayed=self.commitments[side], labels=("entropy_committed", "the first"))
            elif commitment and not (len(commitment) == 64 and set(commitment) <= set("0123456789abcdef")):
                report.add(seq, "dice", f"the {side} side's commitment is not a SHA-256 (64 lowercase hex digits)",
                           logged=commitment)
        if self.commitments.get(side) is None:
            self.commitments[side] = commitment

    def revealed(self, seq: int, side: str, entropy: str) -> None:
        report, commitment = self.report, self.commitments.get(side)
        undecided = [s for s in self.sides if self.commitments.get(s) is None]
        if not self.mixed or self.rolls:
            pass  # said by entropy_given
        elif not commitment:
            report.add(seq, "dice", f"the {side} side reveals an entropy it did not commit to")
        elif undecided:
            report.add(seq, "dice", f"the {side} side reveals its entropy before the {' and '.join(undecided)} "
                       f"side committed (it could have chosen its own against it)")
        elif hashlib.sha256(entropy.encode("utf-8")).hexdigest() != commitment:
            report.add(seq, "dice", f"the {side} side's entropy does not match its commitment", logged=commitment,
                       replayed=hashlib.sha256(entropy.encode("utf-8")).hexdigest(),
                       labels=("committed", "sha256(entropy)"))
        self.entropy_given(seq, side, entropy, False)

    def entropy_given(self, seq: int, side: str, entropy: str, drawn: bool) -> None:
        report = self.report
        report.entropy.append((seq, side, entropy, drawn, self.commitments.get(side) or ""))
        what = "entropy_drawn" if drawn else "entropy_contributed"
        if not self.mixed:
            report.add(seq, "dice", f"{what} in a match of ruleset {report.ruleset}, whose dice mix no entropy")
        elif side in self.entropy:
            report.add(seq, "dice", f"a second entropy for the {side} side", logged=entropy,
                       replayed=self.entropy[side], labels=(what, "the first"))
        elif self.rolls:
            report.add(seq, "dice", f"the {side} side's entropy comes after the first die")
        elif drawn and self.commitments.get(side) and all(self.commitments.get(s) is not None for s in self.sides):
            report.add(seq, "dice", f"the first die came without the {side} side's reveal, which was due: "
                       f"its entropy is drawn from the seed instead")
        if drawn and self.seed is not None and entropy != recompute_drawn(self.seed, side):
            report.add(seq, "dice", f"the entropy drawn for the {side} side is not the one the seed gives",
                       logged=entropy, replayed=recompute_drawn(self.seed, side), labels=("logged", "seed"))
        self.entropy.setdefault(side, entropy)

    def die(self, seq: int, logged: dict[str, Any]) -> None:
        """The next die roll of the match, logged at event ``seq``."""
        report, rolls = self.report, self.rolls
        index, value = logged.get("index"), logged.get("value")
        self.rolls += 1
        if index != rolls:
            report.add(seq, "dice", f"die roll number {rolls} of the match is logged with index {index}",
                       logged=index, replayed=rolls, labels=("logged index", "roll number"))
        at = index if isinstance(index, int) and index >= 0 else rolls
        recomputed = 0
        if self.seed is not None and not self.mixed:
            recomputed = recompute_die(self.seed, at)
        elif self.seed is not None:
            missing = [side for side in self.sides if side not in self.entropy]
            if missing:
                report.add(seq, "dice", f"die roll #{index} comes before the {' and '.join(missing)} side's entropy "
                           f"is in the log")
            else:
                recomputed = recompute_mixed_die(self.seed, self.entropy, at)
        report.roll_checks.append((seq, index, value, recomputed, logged.get("purpose", "")))
        if self.seed is not None and recomputed and value != recomputed:
            report.add(seq, "dice", f"die roll #{index}: the log says {value}, the seed gives {recomputed}")

    def entry(self, event: MatchEvent) -> None:
        """Follow one log entry: an entropy, a die, or anything else (left alone)."""
        kind = event.WhichOneof("kind")
        if kind == "entropy_awaited":
            self.awaited(event.sequence, event.entropy_awaited.side)
        elif kind == "entropy_committed":
            self.committed(event.sequence, event.entropy_committed.side, event.entropy_committed.commitment)
        elif kind == "entropy_contributed":
            self.revealed(event.sequence, event.entropy_contributed.side, event.entropy_contributed.entropy)
        elif kind == "game_event":
            inner = event.game_event.WhichOneof("kind")
            if inner == "entropy_drawn":
                drawn = event.game_event.entropy_drawn
                self.entropy_given(event.sequence, drawn.side, drawn.entropy, True)
            elif inner == "die_rolled":
                self.die(event.sequence, convert.event_from_proto(event.game_event))


# --- verify ----------------------------------------------------------------------------------------

CHECKS = {
    "log": "the log is complete: sequences without gaps, match_created first, seed_revealed last",
    "seed": "the revealed seed matches the commitment published at creation",
    "dice": "every die roll is recomputed from the seed (and, from ruleset 4 on, each side's entropy, "
            "checked against its commitment)",
    "actions": "the engine accepts every action, from the side that submitted it",
    "events": "the engine reproduces every game event from the actions",
    "hashes": "the state hash after every action matches",
    "end": "the end agrees: the game is over when the seed is revealed",
    "clock": "the clocks agree: every time left, flag fall and abort recomputed from the time control",
}


@dataclass
class Problem:
    """One difference: where (sequence number of the log entry), which check, what."""

    sequence: int | None
    check: str
    what: str
    logged: Any = None
    replayed: Any = None
    context: str = ""
    labels: tuple[str, str] = ("logged", "replay")

    def describe(self) -> str:
        where = f"event #{self.sequence}" if self.sequence is not None else "the log"
        return f"{where}: {self.what}"

    def lines(self) -> list[str]:
        out = [self.describe()]
        if self.context:
            out.append(f"    ({self.context})")
        if self.logged is not None or self.replayed is not None:
            width = max(map(len, self.labels)) + 1
            out.append(f"    {(self.labels[0] + ':').ljust(width)} {_show(self.logged)}")
            out.append(f"    {(self.labels[1] + ':').ljust(width)} {_show(self.replayed)}")
            if isinstance(self.logged, dict) and isinstance(self.replayed, dict):
                for key in sorted(set(self.logged) | set(self.replayed)):
                    a, b = self.logged.get(key, "<absent>"), self.replayed.get(key, "<absent>")
                    if a != b:
                        out.append(f"    field {key!r}: {self.labels[0]} {a!r}, {self.labels[1]} {b!r}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"sequence": self.sequence, "check": self.check, "what": self.what, "logged": self.logged,
                "expected": self.replayed, "context": self.context, "labels": list(self.labels)}


@dataclass
class Report:
    """What ``verify_log`` found. ``ok`` when every check passed."""

    label: str = ""
    origin: str = ""
    scenario: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    entries: int = 0
    actions: int = 0
    game_events: int = 0
    rolls: int = 0
    seed: str = ""
    commitment: str = ""
    final_hash: str = ""
    result: dict[str, Any] | None = None
    aborted: str = ""
    time_control: str = ""
    ruleset: int = engine.RULESET  # the ruleset the match was played under
    finished: bool = False
    problems: list[Problem] = field(default_factory=list)
    skipped: set[str] = field(default_factory=set)
    #: every die roll of the log: (sequence, index, logged value, recomputed value or 0, purpose)
    roll_checks: list[tuple[int, int, int, int, str]] = field(default_factory=list)
    #: each side's entropy (ruleset 4 on), in log order: (sequence, side, entropy, drawn from the seed,
    #: the commitment it was checked against or "")
    entropy: list[tuple[int, str, str, bool, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.finished and not self.problems and not self.other_ruleset

    @property
    def other_ruleset(self) -> bool:
        """Played under a ruleset this engine does not play: the game cannot be re-simulated here."""
        return self.ruleset not in engine.RULESETS

    @property
    def verdict(self) -> str:
        """``verified``, ``failed`` (a problem found), ``other_ruleset`` or ``unfinished``."""
        if self.problems:
            return "failed"
        if self.other_ruleset:
            return "other_ruleset"
        return "verified" if self.finished else "unfinished"

    def ruleset_sentence(self) -> str:
        return (f"played under ruleset {self.ruleset}; this engine plays {played()}: "
                f"cannot re-simulate")

    @property
    def first(self) -> Problem | None:
        """The problem at the earliest place in the log."""
        placed = [p for p in self.problems if p.sequence is not None]
        if placed:
            return min(placed, key=lambda p: p.sequence)
        return self.problems[0] if self.problems else None

    def add(self, sequence: int | None, check: str, what: str, logged: Any = None, replayed: Any = None,
            context: str = "", labels: tuple[str, str] = ("logged", "replay")) -> None:
        self.problems.append(Problem(sequence, check, what, logged, replayed, context, labels))

    def text(self, max_problems: int = 10) -> str:
        lines = [f"Replay audit of match {self.label or '?'}" + (f" ({self.origin})" if self.origin else "")]
        if self.scenario:
            changed = _changed_options(self.options)
            lines.append(f"  scenario {self.scenario}; options: "
                         + (", ".join(f"{k}={v}" for k, v in changed.items()) if changed else "defaults"))
        lines.append(f"  {self.entries} log entries, {self.actions} actions, {self.game_events} game events, "
                     f"{self.rolls} die rolls; ruleset {self.ruleset}"
                     + (f" (this engine plays {played()})" if self.other_ruleset else ""))
        failing = {p.check for p in self.problems}
        details = {
            "seed": f"sha256(seed) = {self.commitment[:16]}..." if self.commitment else "",
            "dice": f"{self.rolls} rolls",
            "events": f"{self.game_events} events from {self.actions} actions",
            "hashes": f"final state hash {self.final_hash[:16]}..." if self.final_hash else "",
        }
        if self.time_control:
            lines.append(f"  time control {self.time_control}")
        if self.entropy:
            lines.append("  entropy mixed into the dice: " + "; ".join(
                f"{side} {entropy[:12]}... ({'drawn from the seed' if drawn else 'revealed'}, event #{seq})"
                for seq, side, entropy, drawn, _ in self.entropy))
        for check, sentence in CHECKS.items():
            if check == "clock" and not self.time_control:
                continue
            if check not in failing and (check in self.skipped or (not self.finished and check != "log")):
                lines.append(f"  [ -- ] {sentence}: not checked")
                continue
            count = sum(1 for p in self.problems if p.check == check)
            mark = "[FAIL]" if count else "[ ok ]"
            extra = f"{count} problem{'s' if count > 1 else ''}" if count else details.get(check, "")
            lines.append(f"  {mark} {sentence}" + (f" ({extra})" if extra else ""))
        if self.aborted:
            lines.append(f"  aborted: {self.aborted}")
        if self.result:
            points = ", ".join(f"{k} {v}" for k, v in sorted(self.result.get("points", {}).items()))
            outcome = "draw" if self.result["winner"] == "draw" else f"{self.result['winner']} wins"
            lines.append(f"  result: {outcome} ({self.result.get('reason', '')}); victory points {points}")
        if self.problems:
            ordered = sorted(self.problems, key=lambda p: (p.sequence is None, p.sequence or 0))
            shown = ordered[:max_problems]
            lines.append("")
            lines.append(f"problems ({len(shown)} of {len(ordered)} shown, in log order):"
                         if len(ordered) > len(shown) else "problems, in log order:")
            for problem in shown:
                lines.extend("  " + line for line in problem.lines())
            lines.append("")
            lines.append(f"FAILED: {len(self.problems)} problem{'s' if len(self.problems) > 1 else ''}; "
                         f"the first at {self.first.describe()}")
        elif self.other_ruleset:
            lines.append("")
            lines.append(f"OTHER RULESET: {self.ruleset_sentence()}. "
                         + ("The log, the seed and every die roll check out; only an engine of ruleset "
                            f"{self.ruleset} can replay the game itself" if self.finished else
                            "The match is not finished; its seed stays secret until it ends"))
        elif not self.finished:
            lines.append("")
            lines.append("NOT VERIFIED: the match is not finished; its seed stays secret until it ends")
        else:
            lines.append("")
            lines.append("VERIFIED: the seed matches its commitment, every die roll derives from it"
                         + (" and the seats' entropy" if self.entropy else "")
                         + ", and the engine replays the log to the same events and state hashes")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        first = self.first
        return {"match": self.label, "ok": self.ok, "verdict": self.verdict, "ruleset": self.ruleset,
                "engine_ruleset": engine.RULESET, "engine_rulesets": list(engine.RULESETS),
                "finished": self.finished, "entries": self.entries,
                "actions": self.actions, "game_events": self.game_events, "rolls": self.rolls,
                "final_state_hash": self.final_hash, "result": self.result, "aborted": self.aborted or None,
                "first_bad_event": first.sequence if first else None,
                "entropy": [{"sequence": seq, "side": side, "entropy": entropy, "drawn": drawn, "commitment": commitment}
                            for seq, side, entropy, drawn, commitment in self.entropy],
                "problems": [p.to_json() for p in self.problems]}


def verify_log(events: list[MatchEvent], match_id: str = "", final: api.GetMatchResponse | None = None,
               origin: str = "") -> Report:
    """Check a match's log (see the module docstring); ``final`` is the service's GetMatch answer,
    compared with the replay's end when given."""
    report = Report(label=match_id, origin=origin, entries=len(events))
    if not events:
        report.add(None, "log", "the log is empty")
        return report
    # 1. the log's shape
    for position, event in enumerate(events, 1):
        if event.sequence != position:
            report.add(event.sequence, "log", f"entry {position} of the log has sequence {event.sequence} "
                       f"(a gap, a duplicate or an entry out of order)")
            break
    kinds = [e.WhichOneof("kind") for e in events]
    if kinds[0] != "match_created":
        report.add(events[0].sequence, "log", f"the log starts with {kinds[0]}, not match_created")
        return report
    created = events[0].match_created
    report.scenario, report.options = created.scenario, convert.struct_to_dict(created.options)
    report.commitment = created.seed_commitment
    report.ruleset = created.ruleset or UNVERSIONED
    revealed_at = [i for i, kind in enumerate(kinds) if kind == "seed_revealed"]
    if not revealed_at:
        if final is not None and final.match.status == match_pb2.MATCH_STATUS_FINISHED:
            report.add(None, "log", "the match is finished but its log has no seed_revealed entry")
        _count_log(events, report)
        return report
    report.finished = True
    if revealed_at[-1] != len(events) - 1 or len(revealed_at) > 1:
        report.add(events[revealed_at[0]].sequence, "log", "seed_revealed is not the last entry of the log")
    revealed = events[revealed_at[0]]
    seed = revealed.seed_revealed.seed
    report.seed = seed

    # 2. the seed
    digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()
    if digest != created.seed_commitment:
        report.add(revealed.sequence, "seed", "the SHA-256 of the revealed seed is not the commitment published "
                   "in match_created (event #1)", logged=created.seed_commitment, replayed=digest,
                   context=f"revealed seed {seed!r}", labels=("committed", "sha256(seed)"))
    if revealed.seed_revealed.seed_commitment != created.seed_commitment:
        report.add(revealed.sequence, "seed", "seed_revealed repeats a different commitment than match_created",
                   logged=revealed.seed_revealed.seed_commitment, replayed=created.seed_commitment,
                   labels=("seed_revealed", "match_created"))
    if final is not None:
        if final.match.seed_commitment != created.seed_commitment:
            report.add(1, "seed", "the service's match has another seed commitment than its log",
                       logged=created.seed_commitment, replayed=final.match.seed_commitment,
                       labels=("log", "service"))
        if final.match.seed and final.match.seed != seed:
            report.add(revealed.sequence, "seed", "the service's match has another seed than its log reveals",
                       logged=seed, replayed=final.match.seed, labels=("log", "service"))

    if any(p.check == "seed" for p in report.problems):
        # every roll and every state hash derive from the seed: with another seed nothing else can be
        # checked (and everything would differ)
        report.skipped |= {"dice", "actions", "events", "hashes", "end"}
        _count_log(events, report)
        return report

    if report.other_ruleset:  # the dice need no engine; the game needs the rules it was played under
        report.skipped |= {"actions", "events", "hashes", "end", "clock"}
        _count_log(events, report, seed)
        return report

    # 3-5. the dice and the game
    try:
        game = engine.new_game(created.scenario, report.options, seed=seed, ruleset=report.ruleset)
    except engine.IllegalAction as error:
        report.add(1, "actions", f"the engine cannot create this match: {error}")
        return report
    _replay(events, game, seed, report)

    if final is not None:
        _compare_final(final, game, report)
    return report


def _replay(events: list[MatchEvent], game: engine.Game, seed: str, report: Report) -> None:
    created = events[0]
    clocks = None
    if created.match_created.HasField("time_control"):
        clocks = _Clocks(created.match_created, game.current_player(), created.time.ToMilliseconds(), report)
    version = 0
    expected: deque[dict] = deque()
    action_at = None  # (sequence, description) of the last action
    dice = _Dice(seed, report.ruleset, list(created.match_created.sides), report)
    stopped = False
    for event in events[1:]:
        kind = event.WhichOneof("kind")
        seq = event.sequence
        dice.entry(event)
        if kind in ("action_submitted", "seed_revealed") and expected and not stopped:
            report.add(seq, "events", f"the replay of the action at event #{action_at[0]} produced "
                       f"{len(expected)} more game event{'s' if len(expected) > 1 else ''} than the log has "
                       f"before this entry", logged=None, replayed=expected[0], context=action_at[1])
            expected.clear()
        if kind == "match_created":
            report.add(seq, "log", "a second match_created entry")
        elif kind == "seat_claimed":
            if event.version != version:
                report.add(seq, "log", f"seat_claimed has version {event.version}, the match was at {version}")
        elif kind in ("entropy_awaited", "entropy_committed", "entropy_contributed"):
            if event.version != version:
                report.add(seq, "log", f"{kind} has version {event.version}, the match was at {version}")
            if not stopped:
                try:
                    entropy_log.replay_event(game, event)
                except engine.IllegalAction as error:
                    report.add(seq, "actions", f"the engine refuses the {kind} ({error.reason}: {error})")
                if clocks is not None:
                    clocks.wait_for(event, game.current_player())
        elif kind == "action_submitted":
            submitted = event.action_submitted
            data = convert.action_from_proto(submitted.action)
            action_at = (seq, f"{submitted.side} {_show(data)}")
            report.actions += 1
            if event.version != version + 1:
                report.add(seq, "log", f"action_submitted has version {event.version}, expected {version + 1}")
            version += 1
            if stopped:
                continue
            try:
                action = engine.action_from_json(data)
            except engine.IllegalAction as error:
                report.add(seq, "actions", f"the action is malformed: {error}", logged=data)
                stopped = True
                continue
            if game.is_terminal():
                report.add(seq, "actions", "an action after the end of the game", logged=data)
                stopped = True
                continue
            named = getattr(action, "side", None)  # Resign and TimeForfeit name their side
            acting = named if isinstance(named, str) else game.current_player()
            if submitted.side != acting:
                report.add(seq, "actions", f"submitted by the {submitted.side} seat, but the {acting} side was "
                           f"to act", logged=submitted.side, replayed=acting, context=action_at[1])
            revealing = game.entropy_wait() == (acting, "entropy_reveal")
            try:
                produced = game.apply(action)
            except engine.IllegalAction as error:
                report.add(seq, "actions", f"the engine refuses the action ({error.reason}: {error}); the replay "
                           f"stops here", logged=data, context=f"turn {game.turn}, {game.phase.name}")
                stopped = True
                continue
            # normalised through the API's conversion, as the logged events were
            expected = deque(convert.event_from_proto(convert.event_to_proto(e.to_json())) for e in produced)
            if clocks is not None:
                clocks.action(event, isinstance(action, engine.TimeForfeit), game.current_player(), revealing)
            replayed_hash = game.state_hash()
            if submitted.state_hash != replayed_hash:
                report.add(seq, "hashes", "the state hash after the action differs from the replay",
                           logged=submitted.state_hash, replayed=replayed_hash, context=action_at[1])
        elif kind == "game_event":
            report.game_events += 1
            logged = convert.event_from_proto(event.game_event)
            if event.version != version:
                report.add(seq, "log", f"game event has version {event.version}, the last action made {version}")
            if stopped:
                continue
            if not expected:
                report.add(seq, "events", "the log has a game event the replay does not produce", logged=logged,
                           context=action_at[1] if action_at else "before any action")
            else:
                replayed = expected.popleft()
                if replayed != logged:
                    report.add(seq, "events", f"the game event differs from the replay "
                               f"({logged.get('type')} logged, {replayed.get('type')} replayed)",
                               logged=logged, replayed=replayed, context=f"after the action at event #{action_at[0]}: "
                               f"{action_at[1]}")
        elif kind == "match_aborted":
            report.aborted = aborted_text(event.match_aborted)
            if event.match_aborted.by_operator:
                pass  # an operator may end any live match; the log says so, and no result is claimed
            elif clocks is None:
                report.add(seq, "end", "a match without a time control was aborted")
            else:
                clocks.abort(event, game.entropy_wait())
        elif kind == "seed_revealed" and not stopped and not game.is_terminal() and not report.aborted:
            report.add(seq, "end", "the seed is revealed but the replayed game is not over",
                       context=f"the replay is at turn {game.turn}, {game.phase.name}")
    report.rolls = dice.rolls
    report.final_hash = game.state_hash()
    result = game.result()
    report.result = result.to_json() if result else None


class _Clocks:
    """The clocks of a match recomputed from its log (the rules of proto TimeControl): the running
    side's time runs from the previous action's time, except before its first action, when its
    first-action time runs instead; a side gains the increment after each of its actions while the game
    goes on."""

    def __init__(self, created: MatchEvent.MatchCreated, first_side: str | None, start_ms: int,
                 report: Report) -> None:
        control = created.time_control
        self.report = report
        self.initial, self.increment = control.initial.ToMilliseconds(), control.increment.ToMilliseconds()
        self.first_action = control.first_action.ToMilliseconds()
        report.time_control = f"{self.initial / 1000:g}+{self.increment / 1000:g}" + \
            (f" ({control.preset})" if control.preset else "") + f", first action within {self.first_action / 1000:g} s"
        self.left = {side: self.initial for side in created.sides}
        self.running, self.first, self.since, self.acted = first_side or "", True, start_ms, set()

    def _budget(self) -> int:
        return self.first_action if self.first else self.left[self.running]

    def wait_for(self, event: MatchEvent, next_side: str | None) -> None:
        """A seat's entropy step at ``event``'s time, after which the game waits for ``next_side``: the
        running side is charged its time (unless awaiting its first action), nobody gains the increment
        nor counts as having acted."""
        if next_side == self.running or next_side is None:
            return
        if self.running and not self.first:
            self.left[self.running] = max(0, self.left[self.running] - max(0, event.time.ToMilliseconds() - self.since))
        self.running, self.first, self.since = next_side, next_side not in self.acted, event.time.ToMilliseconds()

    def action(self, event: MatchEvent, forfeit: bool, next_side: str | None, revealing: bool = False) -> None:
        """An action at ``event``; ``revealing``: the game waited for the running side's entropy reveal
        (a time forfeit then comes at its first-action deadline: it saw the other's entropy)."""
        submitted, now, seq = event.action_submitted, event.time.ToMilliseconds(), event.sequence
        running, used = self.running, event.time.ToMilliseconds() - self.since
        if running:
            if forfeit and self.first and revealing:
                if used < self.first_action:
                    self.report.add(seq, "clock", f"a time forfeit while the {running} side had "
                                    f"{self.first_action - used} ms left to reveal its entropy")
            elif forfeit and self.first:
                self.report.add(seq, "clock", f"a time forfeit while the {running} side had not acted yet (its "
                                f"first-action time runs out by an abort, not a loss)")
            elif forfeit and used < self.left[running]:
                self.report.add(seq, "clock", f"a time forfeit while the {running} side had "
                                f"{self.left[running] - used} ms left")
            elif not forfeit and used >= self._budget():
                self.report.add(seq, "clock", f"an action {used - self._budget()} ms after the {running} side's "
                                f"time ran out", context=f"{submitted.side} {_show(convert.action_from_proto(submitted.action))}")
            if not self.first:
                self.left[running] = max(0, self.left[running] - max(0, used))
        self.acted.add(submitted.side)
        if next_side is None:
            self.running = ""
        else:
            if submitted.side == running:
                self.left[running] += self.increment
            self.running, self.first, self.since = next_side, next_side not in self.acted, now
        logged = {side: value.ToMilliseconds() for side, value in submitted.time_left.items()}
        if logged != self.left:
            self.report.add(seq, "clock", "the time left after the action differs from the recomputed clocks",
                            logged=logged, replayed=dict(self.left))

    def abort(self, event: MatchEvent, waiting: tuple[str, str] | None = None) -> None:
        """An abort at ``event``; ``waiting``: what the game waited for then (an abort never lets off a
        side due to reveal its entropy: it loses on time)."""
        used = event.time.ToMilliseconds() - self.since
        if waiting is not None and waiting == (self.running, "entropy_reveal"):
            self.report.add(event.sequence, "clock", f"the match was aborted while the {self.running} side's "
                            f"entropy reveal was due: it loses on time instead")
        elif not (self.running and self.first and used >= self.first_action):
            self.report.add(event.sequence, "clock", "the match was aborted, but no side's first-action time had "
                            "run out" + (f" ({self.running} had {self.first_action - used} ms left)"
                                         if self.running and self.first else ""))
        self.running = ""


def _compare_final(final: api.GetMatchResponse, game: engine.Game, report: Report) -> None:
    last = report.entries
    if final.match.last_sequence != last:
        report.add(last, "end", f"the service's match ends at sequence {final.match.last_sequence}, its log at {last}")
    if final.match.version != report.actions:
        report.add(last, "end", f"the service's match is at version {final.match.version}, the log has "
                   f"{report.actions} actions")
    if final.state.state_hash and final.state.state_hash != report.final_hash:
        report.add(last, "hashes", "the service's final state hash differs from the replay's",
                   logged=final.state.state_hash, replayed=report.final_hash, labels=("service", "replay"))
    result = game.result()
    if result and final.match.result.winner:
        served = {"winner": final.match.result.winner, "reason": final.match.result.reason,
                  "points": dict(final.match.result.points)}
        if served != result.to_json():
            report.add(last, "end", "the service's result differs from the replay's", logged=served,
                       replayed=result.to_json(), labels=("service", "replay"))


def _count_log(events: list[MatchEvent], report: Report, seed: str | None = None) -> None:
    """Count the log without replaying the game; with the ``seed``, check its dice against it (an
    unfinished match has no revealed seed, so its dice and hashes are not checkable)."""
    dice = _Dice(seed, report.ruleset, list(events[0].match_created.sides), report)
    for event in events:
        kind = event.WhichOneof("kind")
        dice.entry(event)
        if kind == "action_submitted":
            report.actions += 1
        elif kind == "game_event":
            report.game_events += 1
        elif kind == "match_aborted" and seed is not None:
            report.aborted = aborted_text(event.match_aborted)
    report.rolls = dice.rolls


def aborted_text(aborted: MatchEvent.MatchAborted) -> str:
    """How the report states an abort: its reason, and who ended the match if an operator did."""
    reason = aborted.reason or "aborted"
    return f"by an operator of the service: {reason}" if aborted.by_operator else reason


def _changed_options(options: dict[str, Any]) -> dict[str, Any]:
    defaults = engine.Options.from_json({}).to_json()
    return {k: v for k, v in options.items() if defaults.get(k) != v}


def _clock_text(ms: int) -> str:
    """A clock reading: ``4:05.3`` (minutes, seconds, tenths)."""
    minutes, rest = divmod(ms, 60_000)
    return f"{minutes}:{rest / 1000:04.1f}"


def _show(value: Any) -> str:
    if isinstance(value, dict):
        data = dict(value)
        name = data.pop("type", "")
        return (name + " " + " ".join(f"{k}={_plain(v)}" for k, v in data.items())).strip()
    return repr(value) if value is not None else "(nothing)"


def _plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value)) or "-"
    return str(value)

