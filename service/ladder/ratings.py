"""OpenSkill ratings of two-sided matches: each side is a team of a player and the side itself.

*Battle for Moscow* is not symmetric (between equal players the German side wins most games), so a
match is rated as two teams, a player and its side, with the sides rated too: a player is not credited
for what its side wins anyway. Ratings are the Plackett–Luce model of the ``openskill`` library (a
Bayesian skill model like TrueSkill): a mean ``mu`` and an uncertainty ``sigma``, ranked by the
conservative ``mu - 3 sigma``. Used by the service's ladder (``service.ladder.core``) and the match
runner's ratings file (``clients.ratings``).

>>> german, soviet, german_side, soviet_side = rate(FRESH, FRESH, FRESH, FRESH, "german")
>>> german[0] > FRESH[0] > soviet[0]
True
"""

from __future__ import annotations

from importlib import metadata

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()
#: (mu, sigma) of a player (or side) without games
FRESH: tuple[float, float] = (_MODEL.rating().mu, _MODEL.rating().sigma)
#: How many sigmas the leaderboard's rating takes off mu.
Z = 3.0
#: The model and its parameters, as GetLadder states them (``RatingModel``): openskill's defaults.
MODEL = {"name": "openskill.PlackettLuce", "library_version": metadata.version("openskill"),
         "mu": _MODEL.mu, "sigma": _MODEL.sigma, "beta": _MODEL.beta, "kappa": _MODEL.kappa, "tau": _MODEL.tau,
         "z": Z}


def ordinal(mu: float, sigma: float) -> float:
    """The rating players are ranked by: a conservative estimate of the skill."""
    return mu - Z * sigma


def rate(german: tuple[float, float], soviet: tuple[float, float], german_side: tuple[float, float],
         soviet_side: tuple[float, float], winner: str) -> list[tuple[float, float]]:
    """New (mu, sigma) of the German player, the Soviet player, the German side and the Soviet side
    after a match that ``winner`` ("german", "soviet"; anything else: a draw) won."""
    teams = [[_MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in team]
             for team in ((german, german_side), (soviet, soviet_side))]
    ranks = [0, 1] if winner == "german" else [1, 0] if winner == "soviet" else [0, 0]
    (g, gs), (s, ss) = _MODEL.rate(teams, ranks=ranks)
    return [(g.mu, g.sigma), (s.mu, s.sigma), (gs.mu, gs.sigma), (ss.mu, ss.sigma)]


__all__ = ["FRESH", "MODEL", "Z", "ordinal", "rate"]
