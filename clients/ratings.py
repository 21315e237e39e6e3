"""Ratings for a bot ladder: OpenSkill (Plackett–Luce, a Bayesian skill model like TrueSkill) over the
results of bot matches, kept in a JSON file from one series to the next.

A player is a strategy with its parameters (``search budget=1.0`` is not ``search``). A rating is a
mean ``mu`` and an uncertainty ``sigma``; players are ranked by the conservative estimate
``mu - 3 sigma`` (the ``ordinal``), so a player needs games before it climbs. *Battle for Moscow* is
not symmetric, so ratings compare players fairly only when each plays both sides about equally often
(``typhoon match run --swap``).

>>> ladder = Ratings()
>>> for _ in range(3):
...     ladder.record("heuristic", "random", "german")
...     ladder.record("random", "heuristic", "soviet")
>>> [row.player for row in ladder.standings()]
['heuristic', 'random']
>>> ladder.standings()[0].games, ladder.standings()[0].wins
(6, 6)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()


def player_label(strategy: str, params: dict[str, Any] | None = None) -> str:
    """A strategy and its parameters as one player name: ``search budget=1.0 horizon=2``.

    >>> player_label("search", {"horizon": 2, "budget": 1.0})
    'search budget=1.0 horizon=2'
    """
    return " ".join([strategy, *(f"{name}={json.dumps(value)}" for name, value in sorted((params or {}).items()))])


@dataclass
class Standing:
    """One row of the ladder."""

    player: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


class Ratings:
    """Every player's rating and record; :meth:`record` one match result at a time, in the order played."""

    def __init__(self) -> None:
        self._players: dict[str, dict[str, float]] = {}

    def _entry(self, player: str) -> dict[str, float]:
        if player not in self._players:
            fresh = _MODEL.rating()
            self._players[player] = {"mu": fresh.mu, "sigma": fresh.sigma, "games": 0, "wins": 0, "draws": 0}
        return self._players[player]

    def record(self, german: str, soviet: str, winner: str) -> None:
        """One finished match: ``winner`` is ``"german"``, ``"soviet"`` or anything else for a draw."""
        if german == soviet:
            return  # a player against itself tells nothing about its skill
        entries = {"german": self._entry(german), "soviet": self._entry(soviet)}
        teams = [[_MODEL.rating(mu=e["mu"], sigma=e["sigma"])] for e in entries.values()]
        draw = winner not in entries
        ranks = [0, 0] if draw else [0 if side == winner else 1 for side in entries]
        for (side, entry), (rating,) in zip(entries.items(), _MODEL.rate(teams, ranks=ranks)):
            entry.update(mu=rating.mu, sigma=rating.sigma, games=entry["games"] + 1,
                         wins=entry["wins"] + (winner == side), draws=entry["draws"] + draw)

    def standings(self) -> list[Standing]:
        rows = [Standing(player, e["mu"], e["sigma"], int(e["games"]), int(e["wins"]), int(e["draws"]))
                for player, e in self._players.items()]
        return sorted(rows, key=lambda row: (-row.ordinal, row.player))

    def table(self) -> str:
        """The standings as text; ``rating`` is ``mu - 3 sigma``."""
        head = ["rank", "player", "rating", "mu", "sigma", "games", "wins", "draws"]
        rows = [[str(rank), row.player, f"{row.ordinal:.2f}", f"{row.mu:.2f}", f"{row.sigma:.2f}", str(row.games),
                 str(row.wins), str(row.draws)] for rank, row in enumerate(self.standings(), 1)]
        widths = [max(len(cells[i]) for cells in [head, *rows]) for i in range(len(head))]
        return "\n".join("  ".join(cell.ljust(width) if i == 1 else cell.rjust(width)
                                   for i, (cell, width) in enumerate(zip(cells, widths))).rstrip()
                         for cells in [head, *rows])

    # --- the file ----------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path) -> "Ratings":
        """The ratings in ``path``; empty if the file does not exist yet."""
        ratings = cls()
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("model") != "openskill.PlackettLuce":
                raise ValueError(f"{path} is not a Typhoon ratings file (no \"model\": \"openskill.PlackettLuce\")")
            ratings._players = {name: dict(entry) for name, entry in data["players"].items()}
        return ratings

    def save(self, path: Path) -> None:
        """Write the ratings to ``path`` (through a temporary file, so a crash leaves the old one)."""
        payload = {"model": "openskill.PlackettLuce", "players": self._players}
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        temporary.replace(path)
