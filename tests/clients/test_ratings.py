"""Ladder ratings (OpenSkill) over bot match results."""

from __future__ import annotations

from clients.ratings import Ratings, player_label


def test_a_strategy_that_keeps_winning_from_both_sides_climbs_above_the_one_that_loses():
    ladder = Ratings()
    for _ in range(5):
        ladder.record("heuristic", "random", "german")
        ladder.record("random", "heuristic", "soviet")
    top, bottom = ladder.standings()
    assert (top.player, top.games, top.wins, bottom.wins) == ("heuristic", 10, 10, 0)
    assert top.ordinal > bottom.ordinal and top.sigma < 25 / 3


def test_the_side_is_rated_apart_so_winning_only_with_the_stronger_side_earns_nothing():
    ladder = Ratings()
    for _ in range(10):
        ladder.record("a", "b", "german")
        ladder.record("b", "a", "german")
    a, b = ladder.standings()
    assert abs(a.mu - b.mu) < 0.5 and a.wins == b.wins == 10
    assert "the German side is rated +" in ladder.table()


def test_a_draw_moves_two_equal_players_nowhere_and_is_counted():
    ladder = Ratings()
    ladder.record("a", "b", "")
    a, b = sorted(ladder.standings(), key=lambda row: row.player)
    assert (a.mu, a.draws, a.wins) == (b.mu, 1, 0)


def test_a_player_against_itself_is_not_rated():
    ladder = Ratings()
    ladder.record("search", "search", "german")
    assert ladder.standings() == []


def test_ratings_survive_the_file_and_go_on_from_where_they_were(tmp_path):
    path = tmp_path / "ladder.json"
    first = Ratings()
    first.record(player_label("search", {"budget": 1.0}), "heuristic", "german")
    first.save(path)
    again = Ratings.load(path)
    assert again.standings() == first.standings()
    again.record("heuristic", player_label("search", {"budget": 1.0}), "german")
    assert [row.games for row in again.standings()] == [2, 2]
    assert Ratings.load(tmp_path / "none-yet.json").standings() == []


def test_a_player_is_a_strategy_with_its_parameters():
    assert player_label("search", {"horizon": 2, "budget": 1.0}) == "search budget=1.0 horizon=2"
    assert player_label("random") == "random"
