"""Every ladder rating recomputed from the public API, and whether they match: ``typhoon ladder audit``.

What the API gives is enough (docs/API.md, "Ratings"): GetLadder gives the model (OpenSkill's
Plackett-Luce) with its parameters and the two sides' ratings; the leaderboard every player with its
rating; ListPlayerMatches each player's matches with its rating after each and the match's place in
the order the ladder rated matches (``rating_sequence``). From fresh ratings, every match is rated again
in that order, as the ladder does: two teams, the German player with the German side against the
Soviet player with the Soviet side, ranked by the result (a draw ties them); a match not rated (each
entry says whether: aborted, ended early, past its pair's limit) changes nothing, and one against a
provisional opponent (``opponent_provisional``) lowers a player's rating but never raises it. Then every
rating after every match, every player's rating now and the sides' ratings now
must be what the ladder shows.

The model is rebuilt from GetLadder's parameters with the ``openskill`` library, not taken from the
service's code, so the audit checks the service against its own published description.

>>> audit = Audit(matches=3, rated=2, unrated=1)
>>> audit.ok, audit.summary().splitlines()[0]
(True, 'ladder audit: 3 matches (2 rated, 1 not rated), 0 players: every rating matches (largest difference 0)')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from openskill.models import PlackettLuce

from clients.wording import counted
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi

#: Ratings equal to within this (they should be equal exactly: the same floats, the same library).
TOLERANCE = 1e-9


class LadderReader(Protocol):
    """What the audit reads (clients.ladder.LadderClient has it)."""

    def ladder(self) -> lapi.GetLadderResponse: ...

    def standings(self) -> list[lapi.LadderPlayer]: ...

    def matches(self, player_id: str) -> list[lapi.LadderGame]: ...


@dataclass
class Audit:
    """What the audit found."""

    matches: int = 0
    rated: int = 0
    unrated: int = 0
    players: int = 0
    largest_difference: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        head = (f"ladder audit: {counted(self.matches, 'match')} ({self.rated} rated, {self.unrated} not rated), "
                f"{counted(self.players, 'player')}: ")
        if self.ok:
            return head + f"every rating matches (largest difference {self.largest_difference:.3g})"
        return head + f"{len(self.problems)} differences\n" + "\n".join(f"  {p}" for p in self.problems[:50])


def audit_ladder(ladder: LadderReader, tolerance: float = TOLERANCE) -> Audit:
    """Recompute every rating of the ladder from what ``ladder`` reads, and compare."""
    settings = ladder.ladder()
    params = settings.rating_model
    model = PlackettLuce(mu=params.mu, sigma=params.sigma, beta=params.beta, kappa=params.kappa, tau=params.tau)
    z = params.z or 3.0
    players = ladder.standings()
    audit = Audit(players=len(players))
    # each match, as its two players' histories tell it: side -> (player id, LadderGame)
    games: dict[str, dict[str, tuple[str, lapi.LadderGame]]] = {}
    for player in players:
        for game in ladder.matches(player.player_id):
            games.setdefault(game.match_id, {})[game.side] = (player.player_id, game)
    audit.matches = len(games)
    fresh = (params.mu, params.sigma)
    ratings: dict[str, tuple[float, float]] = {p.player_id: fresh for p in players}
    sides = {"german": fresh, "soviet": fresh}
    counted = {p.player_id: 0 for p in players}

    def compare(what: str, shown: tuple[float, float], computed: tuple[float, float]) -> None:
        difference = max(abs(a - b) for a, b in zip(shown, computed))
        audit.largest_difference = max(audit.largest_difference, difference)
        if difference > tolerance:
            audit.problems.append(f"{what}: the ladder shows mu {shown[0]!r} sigma {shown[1]!r}, "
                                  f"recomputed mu {computed[0]!r} sigma {computed[1]!r}")

    order = sorted(games.items(), key=lambda item: min(g.rating_sequence for _, g in item[1].values()))
    for match_id, entry in order:
        if set(entry) != {"german", "soviet"}:
            audit.problems.append(f"match {match_id} is in the history of its {', '.join(entry)} player only")
            continue
        (german, german_game), (soviet, soviet_game) = entry["german"], entry["soviet"]
        if not german_game.rating_sequence or german_game.rating_sequence != soviet_game.rating_sequence:
            audit.problems.append(f"match {match_id} has no single rating_sequence (rated before the ladder numbered "
                                  f"its matches?): the order of rating is unknown")
            continue
        if not german_game.rated or not soviet_game.rated:
            audit.unrated += 1
            for player_id, game in ((german, german_game), (soviet, soviet_game)):
                compare(f"match {match_id} (not rated: {game.unrated_reason or game.outcome}), {game.side} player "
                        f"{player_id}", (game.mu, game.sigma), ratings.get(player_id, fresh))
            continue
        audit.rated += 1
        winner = {"win": "german", "loss": "soviet"}.get(german_game.outcome, "draw")
        teams = [[model.rating(mu=mu, sigma=sigma) for mu, sigma in team]
                 for team in ((ratings.get(german, fresh), sides["german"]),
                              (ratings.get(soviet, fresh), sides["soviet"]))]
        ranks = [0, 1] if winner == "german" else [1, 0] if winner == "soviet" else [0, 0]
        (g, gs), (s, ss) = model.rate(teams, ranks=ranks)
        # against a provisional opponent a match may lower a rating, never raise it (mu - z sigma)
        for player_id, game, (mu, sigma) in ((german, german_game, (g.mu, g.sigma)), (soviet, soviet_game, (s.mu, s.sigma))):
            before = ratings.get(player_id, fresh)
            gained = mu - z * sigma > before[0] - z * before[1]
            ratings[player_id] = before if game.opponent_provisional and gained else (mu, sigma)
        sides = {"german": (gs.mu, gs.sigma), "soviet": (ss.mu, ss.sigma)}
        for player_id, game in ((german, german_game), (soviet, soviet_game)):
            counted[player_id] = counted.get(player_id, 0) + 1
            compare(f"match {match_id}, {game.side} player {player_id}", (game.mu, game.sigma), ratings[player_id])
            if abs(game.rating - (game.mu - z * game.sigma)) > tolerance:
                audit.problems.append(f"match {match_id}, {game.side} player {player_id}: rating {game.rating!r} "
                                      f"is not mu - {z:g} sigma")
    for player in players:
        compare(f"player {player.name} ({player.player_id}) now", (player.mu, player.sigma),
                ratings.get(player.player_id, fresh))
        if player.games != counted.get(player.player_id, 0):
            audit.problems.append(f"player {player.name} ({player.player_id}): {player.games} rated games shown, "
                                  f"{counted.get(player.player_id, 0)} in its history")
    for side in settings.side_ratings:
        compare(f"the {side.side} side now", (side.mu, side.sigma), sides[side.side])
        if side.games != audit.rated:
            audit.problems.append(f"the {side.side} side: {side.games} rated games shown, {audit.rated} recomputed")
    return audit


def cli_audit(ladder: Any) -> int:
    """``typhoon ladder audit``: print the audit; 0 when every rating matches."""
    audit = audit_ladder(ladder)
    print(audit.summary())
    return 0 if audit.ok else 1


__all__ = ["Audit", "LadderReader", "audit_ladder", "cli_audit"]
