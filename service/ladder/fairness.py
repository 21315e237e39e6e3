"""Fair play on the ladder: which ended matches are rated, and who may be paired.

The ladder cannot be farmed by one client playing itself:

* owners registered from one client address are **related** (:mod:`service.ladder.related`): the
  ladder treats them as one owner, an owner group (an owner registered before that, or from an address
  no other owner used within ``related_window_ms``, is a group of its own; 0: owners are never related);
* two players of one owner group are never paired (``same_owner_pairs`` allows it, for a private ladder);
* two players are rated at most ``pair_rated_max`` times within ``pair_window_ms`` (by the matches'
  end times), and the players of two owner groups at most ``owner_pair_rated_max`` times between them
  all; further matches are played, when neither player has another opponent free, but not rated
  (``pair_limit``, ``owner_pair_limit``);
* a player is **established** once it has ``established_games`` rated matches against
  ``established_owners`` owner groups other than its own (:meth:`FairPlay.established`), counting only
  matches against established opponents once the ladder has more than ``established_owners``
  established players (:meth:`FairPlay.counts_toward`: before, on a young ladder, any); until then it is
  **provisional**, and a match raises a player's rating only against an established opponent
  (:func:`without_gain`): a farm of fresh sybils, from however many addresses, is worth nothing to beat,
  neither for rating nor for becoming established. Provisional players come after the established ones
  on the leaderboard, without a rank;
* a match that ends by resignation or time before each side made ``min_actions`` actions of its own
  (a resignation or a time forfeit is none) is not rated (``early``), nor is an aborted one
  (``aborted``); the side that gave up or ran out of time before its own ``min_actions`` abandoned it,
  as one that made no first action did: it is not paired again for ``abandon_cooldown_ms`` (doubled
  for each abandoned match in a row, at most an hour), however it reconnects.

Why ``min_actions`` is 50 by default: no strategy the project ships resigns (clients/strategies), so an
honest match ends on the board or by a clock, and one that ends early was abandoned by a bot that
crashed or hung. A side makes 14 to 80 actions a game turn (a game: 120 to 300), measured over the
shipped bots; 50 is about the Soviet's first two game turns, or the German's first: a resignation or
time loss before that says nothing of skill, and a sybil that plays a turn and gives up wins nothing.

Everything that decides is public but the owner groups: the match's log (its actions, by side) and end,
and each match's verdict in both players' histories (``rated``, ``unrated_reason``), so the ratings stay
recomputable from the API. Which owners are related is not shown (it would link accounts that
registered from one address).

>>> rules = FairPlay(min_actions=3)
>>> rules.verdict({"winner": "german", "reason": "soviet resigned"}, {"german": 9, "soviet": 1}, [], 0)
Verdict(rated=False, reason='early', blamed='soviet')
>>> rules.verdict({"winner": "german", "reason": "more victory points"}, None, [10, 20, 30], 40)
Verdict(rated=False, reason='pair_limit', blamed=None)
>>> rules.verdict({"winner": "german", "reason": "more victory points"}, None, [10], 40, owners_rated_at=[5, 10, 20])
Verdict(rated=False, reason='owner_pair_limit', blamed=None)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf import duration_pb2

from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.ladder.ratings import ordinal
from service.store.match_store import StoredEvent

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
#: The longest abandon cooldown, however many matches in a row were abandoned.
MAX_COOLDOWN_MS = HOUR_MS
#: Actions a side takes that are not play of its own.
_NOT_PLAY = frozenset({"resign", "time_forfeit"})


@dataclass(frozen=True)
class Verdict:
    """Whether an ended ladder match is rated, why not (``aborted``, ``early``, ``pair_limit``,
    ``owner_pair_limit``), and the side
    that abandoned it (it waits before it is paired again), if any."""

    rated: bool
    reason: str = ""
    blamed: str | None = None


@dataclass(frozen=True)
class FairPlay:
    """The ladder's fair-play settings (``typhoon serve --ladder-...``); see the module's docstring."""

    same_owner_pairs: bool = False
    pair_rated_max: int = 3
    pair_window_ms: int = DAY_MS
    min_actions: int = 50
    players_per_owner: int = 10
    abandon_cooldown_ms: int = 60_000
    owner_pair_rated_max: int = 3
    related_window_ms: int = 30 * DAY_MS
    established_games: int = 10
    established_owners: int = 3

    def check(self) -> None:
        """ValueError if a setting is out of range."""
        for name, value, least in (("pair_rated_max", self.pair_rated_max, 1), ("pair_window_ms", self.pair_window_ms, 0),
                                   ("min_actions", self.min_actions, 0), ("players_per_owner", self.players_per_owner, 1),
                                   ("abandon_cooldown_ms", self.abandon_cooldown_ms, 0),
                                   ("owner_pair_rated_max", self.owner_pair_rated_max, 1),
                                   ("related_window_ms", self.related_window_ms, 0),
                                   ("established_games", self.established_games, 0),
                                   ("established_owners", self.established_owners, 0)):
            if value < least:
                raise ValueError(f"{name} must be at least {least}, not {value}")

    def to_proto(self) -> lapi.LadderFairPlay:
        def duration(ms: int) -> duration_pb2.Duration:
            out = duration_pb2.Duration()
            out.FromMilliseconds(ms)
            return out

        return lapi.LadderFairPlay(same_owner_pairs=self.same_owner_pairs, pair_rated_max=self.pair_rated_max,
                                   pair_window=duration(self.pair_window_ms), min_actions=self.min_actions,
                                   players_per_owner=self.players_per_owner,
                                   abandon_cooldown=duration(self.abandon_cooldown_ms),
                                   owner_pair_rated_max=self.owner_pair_rated_max,
                                   related_window=duration(self.related_window_ms),
                                   established_games=self.established_games,
                                   established_owners=self.established_owners)

    def established(self, rated_games: int, opponent_groups: int) -> bool:
        """Whether a player with ``rated_games`` rated matches against ``opponent_groups`` owner groups other
        than its own is established (see the module).

        >>> FairPlay().established(10, 3), FairPlay().established(40, 2), FairPlay(established_games=0,
        ...                                                                           established_owners=0).established(0, 0)
        (True, False, True)
        """
        return rated_games >= self.established_games and opponent_groups >= self.established_owners

    def counts_toward(self, opponent_established: bool, established_players: int) -> bool:
        """Whether a rated match counts toward a player's being established: against an established opponent;
        against any while the ladder has at most ``established_owners`` established players (a young ladder,
        where nobody could be established else). So a farmer does not establish itself on its sybils, nor
        a sybil on its fellows, once the ladder has its first established players.

        >>> FairPlay().counts_toward(True, 50), FairPlay().counts_toward(False, 50), FairPlay().counts_toward(False, 3)
        (True, False, True)
        """
        return opponent_established or established_players <= self.established_owners

    def may_pair(self, group_a: str, group_b: str) -> bool:
        """Whether players of these owner groups (:func:`group_of`) may meet."""
        return self.same_owner_pairs or group_a != group_b

    def recent(self, rated_at: list[int], now: int) -> list[int]:
        """The end times of a pair's rated matches that still count at ``now``."""
        return [at for at in rated_at if at > now - self.pair_window_ms]

    def pair_full(self, rated_at: list[int], now: int) -> bool:
        """Whether a pair has had its rated matches for now."""
        return len(self.recent(rated_at, now)) >= self.pair_rated_max

    def owner_pair_full(self, rated_at: list[int], now: int) -> bool:
        """Whether the players of two owner groups have had their rated matches between them for now."""
        return len(self.recent(rated_at, now)) >= self.owner_pair_rated_max

    def needs_log(self, result: dict[str, Any] | None) -> bool:
        """Whether the verdict on a match with this result needs its actions counted (an end by resignation or time)."""
        return result is not None and self.min_actions > 0 and _abandoning_side(result) is not None

    def verdict(self, result: dict[str, Any] | None, actions: dict[str, int] | None, rated_at: list[int],
                finished_at: int, owners_rated_at: list[int] | None = None) -> Verdict:
        """The verdict on a ladder match that ended with ``result`` (None: aborted) at ``finished_at``, after
        ``actions`` of each side's own (None where :meth:`needs_log` said they are not needed), the pair's
        rated matches having ended at ``rated_at``, and those between the two players' owner groups at
        ``owners_rated_at`` (None: one group, on a private ladder)."""
        if result is None:
            return Verdict(False, "aborted")
        quitter = _abandoning_side(result)
        if quitter is not None and actions is not None and min(actions.values(), default=0) < self.min_actions:
            return Verdict(False, "early", quitter if actions.get(quitter, 0) < self.min_actions else None)
        if self.pair_full(rated_at, finished_at):
            return Verdict(False, "pair_limit")
        if owners_rated_at is not None and self.owner_pair_full(owners_rated_at, finished_at):
            return Verdict(False, "owner_pair_limit")
        return Verdict(True)


def without_gain(before: tuple[float, float], after: tuple[float, float],
                 opponent_established: bool) -> tuple[float, float]:
    """A player's (mu, sigma) after a rated match: ``after``, unless the opponent was provisional and
    ``after`` would raise the player's rating (mu - 3 sigma): then ``before`` (a loss still counts).

    >>> without_gain((25.0, 8.3), (27.0, 8.0), opponent_established=False)
    (25.0, 8.3)
    >>> without_gain((25.0, 8.3), (23.0, 8.2), opponent_established=False), without_gain((25.0, 8.3), (27.0, 8.0), True)
    ((23.0, 8.2), (27.0, 8.0))
    """
    if not opponent_established and ordinal(*after) > ordinal(*before):
        return before
    return after


def group_of(player: dict[str, Any]) -> str:
    """The owner group of a player (its hash's fields): its owner's group, else (an owner registered before
    groups) its owner, else (a player registered before owners) itself.

    >>> group_of({"id": "p1", "owner_id": "o2", "group": "o1"}), group_of({"id": "p1", "owner_id": "o2"})
    ('o1', 'o2')
    >>> group_of({"id": "p1", "owner_id": ""})
    'p1'
    """
    return player.get("group") or player.get("owner_id") or player["id"]


def owners_field(group_a: str, group_b: str) -> str | None:
    """The field of the ladder's pairs hash holding the end times of the rated matches between two owner
    groups' players; None for one group (a private ladder pairs its players: the players' own pair limit
    holds).

    >>> owners_field("o2", "o1"), owners_field("o1", "o1")
    ('owners:o1:o2:rated', None)
    """
    if group_a == group_b:
        return None
    return "owners:%s:%s:rated" % tuple(sorted((group_a, group_b)))


def own_actions(events: list[StoredEvent], sides: tuple[str, ...]) -> dict[str, int]:
    """The actions each side made of its own in a match's log (a resignation or a time forfeit is none).

    >>> event = lambda side, kind: StoredEvent(1, 1, 0, "service", {"type": "action_submitted", "side": side,
    ...                                                              "action": {"type": kind}})
    >>> own_actions([event("german", "move"), event("german", "resign")], ("german", "soviet"))
    {'german': 1, 'soviet': 0}
    """
    counts = dict.fromkeys(sides, 0)
    for event in events:
        data = event.data
        if event.source == "service" and data.get("type") == "action_submitted" \
                and data["action"].get("type") not in _NOT_PLAY and data.get("side") in counts:
            counts[data["side"]] += 1
    return counts


def _abandoning_side(result: dict[str, Any]) -> str | None:
    """The side that resigned or ran out of time, for a match that ended so (the loser); else None."""
    reason = result.get("reason", "")
    if reason != "time" and not reason.endswith(" resigned"):
        return None
    winner = result.get("winner")
    return {"german": "soviet", "soviet": "german"}.get(winner or "")


__all__ = ["FairPlay", "Verdict", "group_of", "own_actions", "owners_field", "without_gain"]
