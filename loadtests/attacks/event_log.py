"""Reads whose work grows with a match's log (issue 34, after the history pool): GetEventLog's pages, a
WatchMatch from an old cursor, ListMatches with a status filter. Before service.match.log_pages, a page of
1,000 entries of a long match took 25-50 ms of the event loop (read, converted, encoded, for each call), a
watch from cursor 0 as much per 1,000 entries, and none of it was counted: a few loops of them slowed
every call as VerifyMatch once did.

The attack makes a finished campaign match (~2,200 log entries) and a live one (~600 actions) and, as
:mod:`loadtests.attacks.history` does, measures honest play (gRPC, an address of its own) and /healthz
alone, under each attack, and alone again. First the floor: eight loops of GetMatch (a fixed-cost call)
from eight networks, what any eight loops cost honest play on this machine whatever they ask; then:

1. four loops from one address reading the finished match's log, pages of 1,000 (the issue's shape);
2. eight loops from eight networks (/24s) reading the finished match's log, pages of 1,000, and watching it
   from cursor 0 over SSE (to its end);
3. eight loops from eight networks reading the live match's log from the start, pages of 1,000, and listing
   finished matches (ListMatches with a status filter, pages of 100).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clients.client import TyphoonClient
from loadtests.attacks.history import Ask, long_match, measured

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

NAME = "event-log"
SUMMARY = ("loops of GetEventLog pages of 1,000, watches from cursor 0 and filtered ListMatches on long matches, "
           "from 1 then 8 networks")


def _pages(match_id: str, entries: int) -> list[Ask]:
    """GetEventLog's pages of 1,000 over the whole log."""
    return [("GET", f"/v1/matches/{match_id}/events?after_sequence={after}&page_size=1000", 0, None, None)
            for after in range(0, entries, 1000)]


def run(target: Target, seconds: float) -> dict[str, Any]:
    with TyphoonClient(target.grpc, timeout=60) as client:
        finished, finished_version, _ = long_match(client, "finished", None)
        live, live_version, _ = long_match(client, "live", 600)
        finished_entries = client.get_match(finished).match.last_sequence
        live_entries = client.get_match(live).match.last_sequence
    networks = [f"198.18.{40 + n}.1" for n in range(8)]  # eight /24s: eight clients
    attacks: dict[str, tuple[list[Ask], list[str]]] = {
        # the floor: as many loops of a fixed-cost call cost honest play this much whatever the call
        "floor: 8 networks, GetMatch": ([("GET", f"/v1/matches/{finished}", 0, None, None)],
                                        [f"198.18.{60 + n}.1" for n in range(8)]),
        "1 address, finished log pages x4": (_pages(finished, finished_entries), ["198.18.39.1"] * 4),
        "8 networks, finished log pages and watches from 0": (
            _pages(finished, finished_entries) + [("GET", f"/v1/matches/{finished}/watch", 0, None, None)], networks),
        "8 networks, live log pages and filtered lists": (
            [("GET", f"/v1/matches/{live}/events?page_size=1000", 0, None, None),
             ("GET", "/v1/matches?status=MATCH_STATUS_FINISHED&page_size=100", 0, None, None)],
            [f"198.18.{50 + n}.1" for n in range(8)]),
    }
    return {"finished match actions, entries": f"{finished_version}, {finished_entries}",
            "live match actions, entries": f"{live_version}, {live_entries}"} | \
        measured(target, seconds / (2 * len(attacks)), attacks)
