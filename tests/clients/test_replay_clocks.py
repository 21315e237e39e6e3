"""The replay audit of clocks: a flag fall and an abort verify from the log alone, and a log whose
times or clocks were altered fails, naming the entry."""

from __future__ import annotations

import json
import time

import pytest

import engine
from clients.cli import main
from clients.client import TyphoonClient, as_time_control
from clients.replay import fetch_log, read_log, verify_log, write_log
from service.gen.typhoon.v1 import match_pb2


def ended(client: TyphoonClient, match_id: str) -> None:
    deadline = time.monotonic() + 60
    while client.get_match(match_id).match.status not in (match_pb2.MATCH_STATUS_FINISHED,
                                                          match_pb2.MATCH_STATUS_ABORTED):
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.fixture(scope="module")
def clocked(typhoon_target, tmp_path_factory):
    """A match the German lost on time after a few moves, and one aborted, with their logs as files."""
    control = as_time_control("1+0.5")
    control.first_action.FromSeconds(1)
    paths = {}
    with TyphoonClient(typhoon_target) as client:
        flagged, tokens = client.create_match(seats=["german", "soviet"], time_control=control)
        client.submit(flagged.match_id, tokens["german"], engine.StandardSetup())
        for _ in range(3):  # moves: the German stays to act, until its time runs out
            move = next(a for a in client.legal_actions(flagged.match_id).actions if a.WhichOneof("kind") == "move")
            client.submit(flagged.match_id, tokens["german"], move)
        aborted, _ = client.create_match(seats=["german"], time_control=control)
        for match in (flagged, aborted):
            ended(client, match.match_id)
            paths[match.match_id] = tmp_path_factory.mktemp("clocks") / f"{match.match_id}.jsonl"
            write_log(fetch_log(client, match.match_id), paths[match.match_id])
    return {"flagged": paths[flagged.match_id], "aborted": paths[aborted.match_id], "target": typhoon_target,
            "flagged_id": flagged.match_id}


def altered(path, tmp_path, change) -> str:
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    change(entries)
    out = tmp_path / "altered.jsonl"
    out.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return str(out)


def test_a_flag_fall_and_an_abort_verify(clocked, capsys):
    assert main(["replay", "verify", clocked["flagged_id"], "--server", clocked["target"]]) == 0
    out = capsys.readouterr().out
    assert "[ ok ] the clocks agree" in out and "soviet wins (time)" in out and "time control 1+0.5" in out
    assert main(["replay", "verify", str(clocked["aborted"])]) == 0
    assert "aborted: the german side made no first action within 1 s" in capsys.readouterr().out


def test_an_altered_time_left_is_named(clocked, tmp_path):
    def change(entries):
        action = next(e for e in entries if "action_submitted" in e and e["sequence"] > 5)
        action["action_submitted"]["time_left"]["german"] = "9s"
    path = altered(clocked["flagged"], tmp_path, change)
    report = verify_log(read_log(path))
    assert not report.ok and report.first.check == "clock"
    assert "time left after the action differs" in report.first.what


def test_a_flag_that_fell_early_and_an_early_abort_are_named(clocked, tmp_path):
    def early_forfeit(entries):
        actions = [e for e in entries if "action_submitted" in e]
        forfeit, before = actions[-1], actions[-2]
        for entry in entries[entries.index(forfeit):]:
            entry["time"] = before["time"]  # committed at once instead of when the time ran out
    report = verify_log(read_log(altered(clocked["flagged"], tmp_path, early_forfeit)))
    assert not report.ok and any("a time forfeit while the german side had" in p.what for p in report.problems)

    def early_abort(entries):
        for entry in entries[1:]:
            entry["time"] = entries[0]["time"]
    report = verify_log(read_log(altered(clocked["aborted"], tmp_path, early_abort)))
    assert not report.ok and report.first.check == "clock" and "no side's first-action time" in report.first.what

