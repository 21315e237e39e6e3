"""The engine ruleset a match is played under, and the refusal to continue it under another.

A match records ``engine.RULESET`` when it is created: in its meta hash (``ruleset``) and in its
``match_created`` log entry. A match stored before rulesets were recorded has neither and was played
under ruleset 1 (``engine.ruleset.UNVERSIONED``). A service whose engine plays another ruleset still
shows such a match and its log, but refuses to act on it (FAILED_PRECONDITION ``RULESET_CHANGED``):
continuing it would play the rest of the game under rules it did not start with. When such a match's
clock runs out it is aborted, blaming no side (a flag would end the game under the new rules, and
waiting forever would keep its players, a ladder's among them, in a match nobody can continue). One
without a clock is ended by an operator: ``typhoon admin abort --other-ruleset`` (service.run.admin).
"""

from __future__ import annotations

from typing import Any

from grpc import StatusCode

import engine
from engine.ruleset import UNVERSIONED
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


def playable(meta: dict[str, str]) -> bool:
    """Whether this service may continue the match: it is over, or its rules are this engine's."""
    return meta.get("status") in ENDED or of_meta(meta) == engine.RULESET


def _sentence(ruleset: int) -> str:
    return (f"started under ruleset {ruleset} and this service plays ruleset {engine.RULESET}: "
            "it cannot continue the match under other rules than it started with")


def changed_sentence(meta: dict[str, str]) -> str:
    """Why a live match of another ruleset ends when its clock runs out (its abort reason)."""
    return f"the match was {_sentence(of_meta(meta))}"


def check_playable(match_id: str, ruleset: int, over: bool) -> None:
    """Refuse to go on with a live match (not ``over``) started under another ruleset."""
    if not over and ruleset != engine.RULESET:
        raise ServiceError(StatusCode.FAILED_PRECONDITION, "RULESET_CHANGED",
                           f"match {match_id} was {_sentence(ruleset)}",
                           match_ruleset=ruleset, service_ruleset=engine.RULESET)
