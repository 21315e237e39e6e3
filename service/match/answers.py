"""The summary of a match as it was at a past version, rebuilt from its log: how a repeated
SubmitAction/Resign request id gets its first answer back without the store keeping a copy of it.

A request record holds only the version the request made, the sequences of the events it appended
and its fingerprint (``service.store.match_store``). The answer's events are those log entries; its Match is
the meta hash as the commit wrote it, rebuilt here: the fields that never change come from the
match's meta now, the seats from the claims logged before the action, the game's summary (turn,
phase, side to act, result) from replaying the logged actions with the match's seed (as ``typhoon
replay verify`` does), the clocks from replaying ``service.match.clock``'s rule over the logged times, the
time of the change from its events (a commit writes its events' time as ``updated_at``).
"""

from __future__ import annotations

import json

import engine
from service.match import clock as clock_module, rulesets, seat_entropy
from service.store.match_store import Store, StoredEvent

#: Log entries read per round trip.
_PAGE = 1000

#: Meta fields a commit never changes.
FIXED = ("id", "scenario", "options", "sides", "seed", "seed_commitment", "created_at", "ruleset")


def meta_at(meta: dict[str, str], events: list[StoredEvent], version: int, last_seq: int) -> dict[str, str]:
    """The meta hash of a match right after the commit that made ``version`` (whose last event is
    ``last_seq``); ``meta`` is the match's meta now, ``events`` its log from the start through
    ``last_seq`` at least."""
    past = {name: meta[name] for name in FIXED if name in meta}
    created = events[0].data
    game = engine.new_game(created["scenario"], created["options"], seed=meta["seed"],
                           ruleset=rulesets.for_engine(rulesets.of_logged(created)))
    control = created.get("time_control")
    clocks = clock_module.ClockState.start(clock_module.TimeControl.from_json(control), meta["sides"].split(","),
                                           game.current_player(), events[0].time_ms) if control else None
    updated_at = events[0].time_ms
    for event in events:
        if event.seq > last_seq:
            break
        data = event.data
        kind = data.get("type") if event.source == "service" else None
        if kind == "seat_claimed":  # a seat, once claimed, keeps its fields
            side = data["side"]
            past |= {name: meta[name] for name in (f"seat:{side}:token", f"seat:{side}:player",
                                                   f"seat:{side}:claimed_at") if name in meta}
        elif kind in seat_entropy.KINDS:
            seat_entropy.replay_logged(game, data)
            past |= seat_entropy.logged_fields(data)
            if clocks is not None:
                clocks = clocks.handed_to(game.current_player(), event.time_ms)
        elif event.source == "game" and data.get("type") == "entropy_drawn":
            past |= seat_entropy.logged_fields(data)
        elif kind == "action_submitted":
            game.apply(engine.action_from_json(data["action"]))
            if clocks is not None:
                clocks = clocks.after(data["side"], game.current_player(), event.time_ms)
        updated_at = event.time_ms
    result = game.result()
    claimed = {name.split(":")[1] for name in past if name.endswith(":token")}
    status = "finished" if result else "active" if claimed >= set(meta["sides"].split(",")) else "open"
    past |= {"version": str(version), "last_sequence": str(last_seq), "turn": str(game.turn),
             "phase": game.phase.name, "side_to_act": game.current_player() or "", "updated_at": str(updated_at),
             "result": json.dumps(result.to_json()) if result else "", "status": status}
    if clocks is not None:
        past |= clocks.fields()
    return past


async def events_through(store: Store, match_id: str, last_seq: int) -> list[StoredEvent]:
    """A match's log from its start through ``last_seq`` (and the rest of the last page read)."""
    events: list[StoredEvent] = []
    while not events or events[-1].seq < last_seq:
        page = await store.read_events(match_id, events[-1].seq if events else 0, _PAGE)
        if not page:
            break
        events += page
    return events
