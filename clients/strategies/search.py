"""Placeholder, replaced below."""
from .heuristic import HeuristicStrategy


class SearchStrategy(HeuristicStrategy):
    name = "search"
