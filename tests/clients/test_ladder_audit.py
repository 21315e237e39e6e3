"""The ladder audit recomputes ratings in the ladder's order and finds any rating that differs (the live
ladder's audit is in tests/service/test_service_ladder.py, after four bots played)."""

from __future__ import annotations

from dataclasses import dataclass, field

from clients.ladder_audit import audit_ladder
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.ladder.ratings import FRESH, MODEL, ordinal, rate


@dataclass
class Ladder:
    """A ladder as the API would show it, made by rating ``results`` (german, soviet, winner) in order."""

    results: list[tuple[str, str, str]]
    histories: dict[str, list[lapi.LadderGame]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ratings = {name: FRESH for pair in self.results for name in pair[:2]}
        self.sides = {"german": FRESH, "soviet": FRESH}
        self.games = {name: 0 for name in self.ratings}
        for number, (german, soviet, winner) in enumerate(self.results, 1):
            if winner == "aborted":
                new = [self.ratings[german], self.ratings[soviet], self.sides["german"], self.sides["soviet"]]
            else:
                new = rate(self.ratings[german], self.ratings[soviet], self.sides["german"], self.sides["soviet"], winner)
                self.ratings[german], self.ratings[soviet] = new[0], new[1]
                self.sides = {"german": new[2], "soviet": new[3]}
                self.games[german] += 1
                self.games[soviet] += 1
            for side, name, (mu, sigma) in (("german", german, new[0]), ("soviet", soviet, new[1])):
                outcome = "aborted" if winner == "aborted" else "draw" if winner == "draw" else \
                    "win" if winner == side else "loss"
                self.histories.setdefault(name, []).insert(0, lapi.LadderGame(
                    match_id=f"m{number}", side=side, outcome=outcome, mu=mu, sigma=sigma, rating=ordinal(mu, sigma),
                    rating_sequence=number, rated=winner != "aborted",
                    unrated_reason="aborted" if winner == "aborted" else ""))

    def ladder(self) -> lapi.GetLadderResponse:
        response = lapi.GetLadderResponse(rating_model=lapi.RatingModel(**MODEL))
        for side, (mu, sigma) in self.sides.items():
            response.side_ratings.add(side=side, mu=mu, sigma=sigma, rating=ordinal(mu, sigma),
                                      games=sum(w != "aborted" for *_, w in self.results))
        return response

    def standings(self) -> list[lapi.LadderPlayer]:
        return [lapi.LadderPlayer(player_id=name, name=name, mu=mu, sigma=sigma, rating=ordinal(mu, sigma),
                                  games=self.games[name]) for name, (mu, sigma) in self.ratings.items()]

    def matches(self, player_id: str) -> list[lapi.LadderGame]:
        return self.histories.get(player_id, [])


RESULTS = [("a", "b", "german"), ("b", "c", "soviet"), ("c", "a", "draw"), ("a", "c", "aborted"), ("b", "a", "german")]


def test_a_ladder_rated_in_order_passes_its_audit():
    audit = audit_ladder(Ladder(RESULTS))
    assert audit.ok, audit.summary()
    assert (audit.matches, audit.rated, audit.unrated, audit.players) == (5, 4, 1, 3)


def test_a_rating_changed_or_matches_rated_in_another_order_are_found():
    tampered = Ladder(RESULTS)
    tampered.histories["b"][0].mu += 0.01  # b's rating after its last match
    audit = audit_ladder(tampered)
    assert not audit.ok and any("match m5, german player b" in p for p in audit.problems), audit.summary()
    swapped = Ladder(RESULTS)
    for games in swapped.histories.values():  # claim m2 was rated before m1
        for game in games:
            game.rating_sequence = {1: 2, 2: 1}.get(game.rating_sequence, game.rating_sequence)
    assert not audit_ladder(swapped).ok
