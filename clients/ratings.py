"""Ratings for a bot ladder: OpenSkill (Plackett–Luce, a Bayesian skill model like TrueSkill) over the
results of bot matches, kept in a JSON file from one series to the next.

A player is a strategy with its parameters (``search budget=1.0`` is not ``search``). A rating is a
mean ``mu`` and an uncertainty ``sigma``; players are ranked by the conservative estimate
``mu - 3 sigma`` (the ``ordinal``), so a player needs games before it climbs.

*Battle for Moscow* is not symmetric: between equal players one side wins most games. So each match
is rated as two teams, a player and its side: the sides are rated too (as two more players, not shown
in the standings), and a player is not credited for the games its side would have won anyway. Still
compare players that played both sides about equally often (``typhoon match run --swap``).

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

from tabulate import tabulate

from service.ladder.ratings import FRESH, ordinal, rate


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
        return ordinal(self.mu, self.sigma)


class Ratings:
    """Every player's rating and record; :meth:`record` one match result at a time, in the order played."""

    def __init__(self) -> None:
        self._players: dict[str, dict[str, float]] = {}
        self._sides: dict[str, dict[str, float]] = {}

    @staticmethod
    def _entry(table: dict[str, dict[str, float]], name: str) -> dict[str, float]:
        if name not in table:
            table[name] = {"mu": FRESH[0], "sigma": FRESH[1], "games": 0, "wins": 0, "draws": 0}
        return table[name]

    def record(self, german: str, soviet: str, winner: str) -> None:
        """One finished match: ``winner`` is ``"german"``, ``"soviet"`` or anything else for a draw."""
        if german == soviet:
            return  # a player against itself tells nothing about its skill
        entries = {"german": self._entry(self._players, german), "soviet": self._entry(self._players, soviet)}
        sides = {side: self._entry(self._sides, side) for side in ("german", "soviet")}
        draw = winner not in entries
        members = [entries["german"], entries["soviet"], sides["german"], sides["soviet"]]
        rated = rate(*((e["mu"], e["sigma"]) for e in members), winner)
        for (side, entry), (mu, sigma) in zip([*entries.items(), *sides.items()], rated):
            entry.update(mu=mu, sigma=sigma, games=entry["games"] + 1, wins=entry["wins"] + (winner == side),
                         draws=entry["draws"] + draw)

    def standings(self) -> list[Standing]:
        rows = [Standing(player, e["mu"], e["sigma"], int(e["games"]), int(e["wins"]), int(e["draws"]))
                for player, e in self._players.items()]
        return sorted(rows, key=lambda row: (-row.ordinal, row.player))

    def table(self) -> str:
        """The standings as text; ``rating`` is ``mu - 3 sigma``."""
        head = ["rank", "player", "rating", "mu", "sigma", "games", "wins", "draws"]
        rows = [[str(rank), row.player, f"{row.ordinal:.2f}", f"{row.mu:.2f}", f"{row.sigma:.2f}", str(row.games),
                 str(row.wins), str(row.draws)] for rank, row in enumerate(self.standings(), 1)]
        lines = tabulate(rows, headers=head, colalign=["left" if i == 1 else "right" for i in range(len(head))],
                         disable_numparse=True).splitlines()
        if {"german", "soviet"} <= self._sides.keys():
            advantage = self._sides["german"]["mu"] - self._sides["soviet"]["mu"]
            lines.append(f"(the German side is rated {advantage:+.2f} mu against the Soviet side)")
        return "\n".join(lines)

    # --- the file ----------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path) -> Ratings:
        """The ratings in ``path``; empty if the file does not exist yet."""
        ratings = cls()
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("model") != "openskill.PlackettLuce":
                raise ValueError(f"{path} is not a Typhoon ratings file (no \"model\": \"openskill.PlackettLuce\")")
            ratings._players = {name: dict(entry) for name, entry in data["players"].items()}
            ratings._sides = {name: dict(entry) for name, entry in data.get("sides", {}).items()}
        return ratings

    def save(self, path: Path) -> None:
        """Write the ratings to ``path`` (through a temporary file, so a crash leaves the old one)."""
        payload = {"model": "openskill.PlackettLuce", "players": self._players, "sides": self._sides}
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        temporary.replace(path)
