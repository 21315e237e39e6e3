"""Replay and audit: `typhoon replay verify|show|render|export` on matches bots played through the real
service; verify passes on them and fails, naming the first bad event, when the log is altered."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import engine
from clients.cli import main
from clients.client import TyphoonClient
from clients.replay import Replay, fetch_log, read_log, recompute_die, verify_log, write_log
from clients.sdk import start_bot
from service.match.history import verification


def eager(state, legal_actions):
    """Attacks whenever it may, else ends the phase: a short match with battles and dice."""
    for kind in (engine.DeclareAttack, engine.EndPhase):
        chosen = [a for a in legal_actions if isinstance(a, kind)]
        if chosen:
            return chosen[0]
    return legal_actions[0]


@pytest.fixture(scope="module")
def played(typhoon_target, tmp_path_factory):
    """A finished match (played by two bots through the service), its log and its export."""
    with TyphoonClient(typhoon_target) as client:
        match, _ = client.create_match("standard")
        bots = [start_bot(eager, typhoon_target, match_id=match.match_id, side="german"),
                start_bot("random", typhoon_target, match_id=match.match_id, side="soviet", seed=11)]
        for bot, thread in bots:
            thread.join(900)  # a whole game: long on a loaded machine
            assert bot.error is None and bot.result.finished
        log = fetch_log(client, match.match_id)
        final = client.get_match(match.match_id)
    path = tmp_path_factory.mktemp("replay") / f"{match.match_id}.jsonl"
    write_log(log, path)
    return {"target": typhoon_target, "match_id": match.match_id, "log": log, "final": final, "path": path}


def lines_of(played) -> list[dict]:
    return [json.loads(line) for line in played["path"].read_text().splitlines()]


def write_lines(tmp_path, entries: list[dict], name: str = "altered") -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return path


def first_entry(entries: list[dict], predicate, after: int = 0) -> dict:
    return next(entry for entry in entries if entry["sequence"] > after and predicate(entry))


def game_event_kind(entry: dict) -> str | None:
    event = entry.get("game_event")
    return next(iter(event)) if event else None


def as_ruleset_1(entries: list[dict], logged: int | None = 1) -> list[dict]:
    """The log as a match of ruleset 1 (``logged``: the ruleset recorded; None: none, as before rulesets
    were) would have it with these actions: no entropy, dice from the seed alone (engine/dice.py)."""
    seed = entries[-1]["seed_revealed"]["seed"]
    kept = [e for e in entries if not {"entropy_awaited", "entropy_committed", "entropy_contributed"} & set(e)
            and game_event_kind(e) != "entropy_drawn"]
    for sequence, entry in enumerate(kept, 1):
        entry["sequence"] = sequence
        if game_event_kind(entry) == "die_rolled":
            roll = entry["game_event"]["die_rolled"]
            roll["value"] = engine.die_roll(seed, roll.get("index", 0))
    if logged is None:
        del kept[0]["match_created"]["ruleset"]
    else:
        kept[0]["match_created"]["ruleset"] = logged
    return kept


# --- verify passes ---------------------------------------------------------------------------------

def test_verify_passes_on_a_match_from_the_service(played):
    report = verify_log(played["log"], match_id=played["match_id"], final=played["final"])
    assert report.ok, report.text()
    assert report.rolls > 0 and report.actions == played["final"].match.version
    assert report.final_hash == played["final"].state.state_hash
    assert report.result["winner"] == played["final"].match.result.winner
    text = report.text()
    assert "VERIFIED" in text and "[FAIL]" not in text


def test_export_then_verify_the_file_and_the_match_on_the_command_line(played, tmp_path, capsys):
    out = tmp_path / "exported.jsonl"
    assert main(["replay", "export", played["match_id"], "--server", played["target"], "-o", str(out)]) == 0
    assert read_log(out) == played["log"]  # the file round-trips every entry exactly
    capsys.readouterr()
    assert main(["replay", "verify", str(out)]) == 0
    assert "VERIFIED" in capsys.readouterr().out
    assert main(["replay", "verify", played["match_id"], "--server", played["target"]]) == 0
    text = capsys.readouterr().out
    assert "VERIFIED" in text and f"match {played['match_id']}" in text
    assert main(["replay", "verify", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


# --- verify fails, and names the first bad event ---------------------------------------------------

def verify_file(path: Path, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["replay", "verify", str(path)])
    return code, capsys.readouterr().out


def test_an_altered_game_event_is_named(played, tmp_path, capsys):
    entries = lines_of(played)
    moved = first_entry(entries, lambda e: game_event_kind(e) == "unit_moved")
    original = copy.deepcopy(moved["game_event"]["unit_moved"])
    moved["game_event"]["unit_moved"]["path"][-1] = "1410"
    report = verify_log(read_log(write_lines(tmp_path, entries)))
    assert not report.ok
    assert report.first.sequence == moved["sequence"] and report.first.check == "events"
    assert report.first.replayed["path"] == original["path"]
    code, text = verify_file(tmp_path / "altered.jsonl", capsys)
    assert code == 1
    assert f"FAILED: 1 problem; the first at event #{moved['sequence']}" in text
    assert "field 'path'" in text and "1410" in text


def test_an_altered_die_roll_is_named(played, tmp_path, capsys):
    entries = lines_of(played)
    roll = first_entry(entries, lambda e: game_event_kind(e) == "die_rolled", after=40)
    die = roll["game_event"]["die_rolled"]
    die["value"] = die["value"] % 6 + 1
    report = verify_log(read_log(write_lines(tmp_path, entries)))
    assert not report.ok and report.first.sequence == roll["sequence"]
    assert {p.check for p in report.problems} == {"dice", "events"}
    assert all(p.sequence == roll["sequence"] for p in report.problems)
    code, text = verify_file(tmp_path / "altered.jsonl", capsys)
    assert code == 1 and f"the first at event #{roll['sequence']}" in text
    assert f"die roll #{die.get('index', 0)}: the log says {die['value']}" in text


def test_an_altered_seed_is_named(played, tmp_path, capsys):
    entries = lines_of(played)
    entries[-1]["seed_revealed"]["seed"] = "0" * 64
    report = verify_log(read_log(write_lines(tmp_path, entries)))
    assert not report.ok and report.first.sequence == entries[-1]["sequence"] and report.first.check == "seed"
    code, text = verify_file(tmp_path / "altered.jsonl", capsys)
    assert code == 1 and f"the first at event #{entries[-1]['sequence']}" in text
    assert "not the commitment" in text


def test_a_seed_and_commitment_replaced_together_are_caught_by_the_dice(played, tmp_path):
    entries = lines_of(played)
    seed = "1" * 64
    entries[0]["match_created"]["seed_commitment"] = engine.seed_commitment(seed)
    entries[-1]["seed_revealed"].update(seed=seed, seed_commitment=engine.seed_commitment(seed))
    report = verify_log(read_log(write_lines(tmp_path, entries)))
    first_action = first_entry(entries, lambda e: "action_submitted" in e)
    # the state hashes include the seed: the first action already differs
    assert not report.ok and report.first.sequence == first_action["sequence"]
    assert {"hashes", "dice"} <= {p.check for p in report.problems}


def test_an_altered_action_and_a_missing_event_are_named(played, tmp_path):
    entries = lines_of(played)
    declared = first_entry(entries, lambda e: "declare_attack" in e.get("action_submitted", {}).get("action", {}))
    declared["action_submitted"]["action"] = {"end_phase": {}}
    report = verify_log(read_log(write_lines(tmp_path, entries)))
    assert not report.ok and report.first.sequence == declared["sequence"]

    entries = lines_of(played)
    gone = first_entry(entries, lambda e: game_event_kind(e) == "unit_moved")
    entries.remove(gone)
    report = verify_log(read_log(write_lines(tmp_path, entries)))
    assert not report.ok and report.first.sequence == gone["sequence"] + 1  # where the gap shows
    assert report.first.check == "log"
    assert any(p.check == "events" for p in report.problems)


def test_an_unfinished_match_is_not_verified_but_can_be_shown(played, tmp_path, capsys):
    entries = lines_of(played)[:200]
    entries = [e for e in entries if "seed_revealed" not in e]
    path = write_lines(tmp_path, entries, "running")
    report = verify_log(read_log(path))
    assert not report.ok and not report.finished
    code, text = verify_file(path, capsys)
    assert code == 1 and "NOT VERIFIED" in text
    replay = Replay(read_log(path))  # the dice come from the logged rolls
    assert replay.stopped_at is None and replay.last > 0


# --- rulesets: a match of other rules is reported as such, never as forged -------------------------

def test_the_log_records_the_ruleset_and_verify_reports_it(played, capsys):
    assert played["log"][0].match_created.ruleset == engine.RULESET
    report = verify_log(played["log"])
    assert (report.ruleset, report.verdict) == (engine.RULESET, "verified")
    assert f"ruleset {engine.RULESET}" in report.text()


@pytest.mark.parametrize("logged", [1, None])  # ruleset 1 recorded, or a log from before rulesets were
def test_a_match_of_another_ruleset_is_not_re_simulated_and_not_called_tampered(played, tmp_path, capsys, logged):
    entries = as_ruleset_1(lines_of(played), logged)
    # a game event the rules of ruleset 1 might well have produced: not re-simulated, so not a finding
    moved = first_entry(entries, lambda e: game_event_kind(e) == "unit_moved")
    moved["game_event"]["unit_moved"]["path"][-1] = "1410"
    path = write_lines(tmp_path, entries, "ruleset1")
    report = verify_log(read_log(path))
    assert not report.ok and not report.problems and report.verdict == "other_ruleset"
    assert report.ruleset_sentence() == "played under ruleset 1; this engine plays rulesets 2, 3 and 4: cannot re-simulate"
    assert report.rolls > 0 and {"actions", "events", "hashes", "end"} <= report.skipped
    code, text = verify_file(path, capsys)
    assert code == 3
    assert "OTHER RULESET: played under ruleset 1; this engine plays rulesets 2, 3 and 4: cannot re-simulate" in text
    assert "FAILED" not in text and "VERIFIED" not in text
    capsys.readouterr()
    assert main(["replay", "verify", str(path), "--json"]) == 3
    verdict = json.loads(capsys.readouterr().out)
    assert (verdict["verdict"], verdict["ruleset"], verdict["engine_ruleset"]) == ("other_ruleset", 1, engine.RULESET)
    # the service's VerifyMatch answer says the same
    answer = verification(report)
    assert (answer.verdict, answer.ruleset, answer.verified) == ("other_ruleset", 1, False)
    outcomes = {check.name: (check.outcome, check.detail) for check in answer.checks}
    assert {outcomes[name][0] for name in ("log", "seed", "dice")} == {"passed"}
    assert outcomes["events"] == ("not_checked", report.ruleset_sentence())


def test_the_seed_and_dice_of_a_match_of_another_ruleset_are_still_checked(played, tmp_path):
    entries = as_ruleset_1(lines_of(played))
    assert verify_log(read_log(write_lines(tmp_path, entries, "unaltered"))).verdict == "other_ruleset"
    roll = first_entry(entries, lambda e: game_event_kind(e) == "die_rolled")
    roll["game_event"]["die_rolled"]["value"] = roll["game_event"]["die_rolled"]["value"] % 6 + 1
    report = verify_log(read_log(write_lines(tmp_path, entries)))
    assert report.verdict == "failed" and report.first.sequence == roll["sequence"] and report.first.check == "dice"


# --- show and render -------------------------------------------------------------------------------

def test_show_prints_the_board_at_a_step_and_per_turn(played, capsys):
    replay = Replay(played["log"], played["match_id"])
    step = replay.step(30)
    assert main(["replay", "show", str(played["path"]), "--step", "30"]) == 0
    text = capsys.readouterr().out
    assert "step 30/" in text and f"Turn {step.turn}, {step.phase}" in text
    for unit in step.game.hex_of:
        assert unit in text
    assert main(["replay", "show", str(played["path"]), "--every", "turn", "--no-interactive"]) == 0
    text = capsys.readouterr().out
    assert text.count("step 0/") == 1 and "result:" in text
    assert len(re.findall(r"step \d+/\d+", text)) == 1 + 7  # the start and every turn's end


def _polygon_centre(points: str) -> tuple[float, float]:
    pairs = [tuple(map(float, p.split(","))) for p in points.split()]
    return sum(x for x, _ in pairs) / len(pairs), sum(y for _, y in pairs) / len(pairs)


def test_rendered_svg_shows_every_unit_in_its_hex(played, tmp_path, capsys):
    replay = Replay(played["log"], played["match_id"])
    assert main(["replay", "render", str(played["path"]), "--series", "turn", "-o", str(tmp_path)]) == 0
    written = capsys.readouterr().out.split()
    steps = replay.series("turn")
    assert len(written) == 2 * len(steps)
    for step in steps:
        svg = tmp_path / f"{played['match_id']}-step{step.number:04d}.svg"
        png = svg.with_suffix(".png")
        assert str(svg) in written and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        root = ET.fromstring(svg.read_text())
        ns = {"svg": "http://www.w3.org/2000/svg"}
        hexes = {p.get("data-hex"): _polygon_centre(p.get("points"))
                 for p in root.iterfind(".//svg:polygon[@class='hex']", ns)}
        units = {g.get("data-unit"): g for g in root.iterfind(".//svg:g[@class='unit']", ns)}
        game = step.game
        expected = {unit: game.board.ids[index] for unit, index in game.hex_of.items()}
        assert {unit: g.get("data-hex") for unit, g in units.items()} == expected
        for unit, g in units.items():
            x, y = map(float, re.match(r"translate\(([-\d.]+),([-\d.]+)\)", g.get("transform")).groups())
            cx, cy = hexes[expected[unit]]
            assert abs(x - cx) < 1 and abs(y - cy) < 1, unit  # drawn in the middle of its hex
            assert g.get("data-strength") == ("half" if unit in game.reduced else "full")
        assert f"step {step.number}/{replay.last}" in svg.read_text()


def test_render_one_step_or_the_end_of_a_turn(played, tmp_path):
    assert main(["replay", "render", str(played["path"]), "--step", "5", "--format", "svg", "-o", str(tmp_path)]) == 0
    assert [p.name for p in tmp_path.iterdir()] == [f"{played['match_id']}-step0005.svg"]
    replay = Replay(played["log"], played["match_id"])
    end = replay.end_of_turn(3)
    assert main(["replay", "render", played["match_id"], "--server", played["target"], "--turn", "3",
                 "--format", "png", "-o", str(tmp_path / "t3")]) == 0
    assert (tmp_path / "t3" / f"{played['match_id']}-step{end.number:04d}.png").exists()


def test_dice_are_recomputed_like_the_engine_documents():
    assert (recompute_die("example", 0), recompute_die("example", 1)) == (2, 4)  # engine/dice.py's example
    for index in range(200):
        assert recompute_die("audit", index) == engine.die_roll("audit", index)


def test_unreadable_sources_and_missing_steps_are_one_line_errors(played, tmp_path, capsys):
    assert main(["replay", "show", str(played["path"]), "--step", "99999"]) == 2
    assert "there is no step 99999" in capsys.readouterr().err
    assert main(["replay", "verify", str(tmp_path / "missing.jsonl")]) == 2
    assert "there is no file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"no_such_field": 1}\n')
    assert main(["replay", "verify", str(bad)]) == 2
    assert "line 1 is not a MatchEvent" in capsys.readouterr().err
