"""The engine ruleset a match is played under, and the refusal to continue it under one the engine lacks.

A match records ``engine.RULESET`` when it is created: in its meta hash (``ruleset``) and in its
``match_created`` log entry. A match stored before rulesets were recorded has neither and was played
under ruleset 1 (``engine.ruleset.UNVERSIONED``). The engine plays several rulesets
(``engine.RULESETS``): a match of any of them goes on, and is replayed and verified, under its own
(:func:`for_engine` is what the service hands the engine). A match of a ruleset the engine does not play
is still shown with its log, but acting on it is refused (FAILED_PRECONDITION ``RULESET_CHANGED``):
continuing it would play the rest of the game under rules it did not start with. When such a match's
clock runs out it is aborted, blaming no side (a flag would end the game under other rules, and
waiting forever would keep its players, a ladder's among them, in a match nobody can continue). One
without a clock is ended by an operator: ``typhoon admin abort --other-ruleset`` (service.run.admin).
"""

from __future__ import annotations

from typing import Any

from grpc import StatusCode

import engine
from engine.ruleset import UNVERSIONED, played
from service.errors import ServiceError
from service.store.match_store import ENDED


def number(stored: str | int | None) -> int:
    """A stored ruleset (absent: a match from before rulesets were recorded)."""
    return int(stored or UNVERSIONED)


def of_meta(meta: dict[str, str]) -> int:
    """The ruleset of a match, from its meta hash."""
    return number(meta.get("ruleset"))


def of_logged(data: dict[str, Any]) -> int:
    """The ruleset of a match, from its ``match_created`` log entry."""
    return number(data.get("ruleset"))


def known(ruleset: int) -> bool:
    """Whether this service's engine plays ``ruleset``."""
    return ruleset in engine.RULESETS


def for_engine(ruleset: int) -> int:
    """The ruleset to build a match's game with: its own when the engine plays it, else the engine's
    (to show a match that cannot be continued)."""
    return ruleset if known(ruleset) else engine.RULESET


def playable(meta: dict[str, str]) -> bool:
    """Whether this service may continue the match: it is over, or its ruleset is one the engine plays."""
    return meta.get("status") in ENDED or known(of_meta(meta))


def _sentence(ruleset: int) -> str:
    return (f"started under ruleset {ruleset} and this service plays {played()}: "
            "it cannot continue the match under other rules than it started with")


def changed_sentence(meta: dict[str, str]) -> str:
    """Why a live match of another ruleset ends when its clock runs out (its abort reason)."""
    return f"the match was {_sentence(of_meta(meta))}"


def check_playable(match_id: str, ruleset: int, over: bool) -> None:
    """Refuse to go on with a live match (not ``over``) started under another ruleset."""
    if not over and not known(ruleset):
        raise ServiceError(StatusCode.FAILED_PRECONDITION, "RULESET_CHANGED",
                           f"match {match_id} was {_sentence(ruleset)}",
                           match_ruleset=ruleset, service_ruleset=engine.RULESET,
                           service_rulesets=",".join(map(str, engine.RULESETS)))
