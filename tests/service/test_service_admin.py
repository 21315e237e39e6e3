"""``typhoon admin abort``: an operator ends live matches without a result, through Redis, with the
service running; a match over already, or unknown, is reported and left as it is."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import redis

import engine
from clients.client import TyphoonError, as_time_control
from clients.replay import fetch_log, verify_log
from clients.sdk import start_bot
from service.gen.typhoon.v1 import match_pb2
from service.store.deadlines import shard_key
from service.store.match_store import key

from service_helpers import ServiceProcess

ABORTED, ACTIVE, FINISHED = (match_pb2.MATCH_STATUS_ABORTED, match_pb2.MATCH_STATUS_ACTIVE,
                             match_pb2.MATCH_STATUS_FINISHED)


@pytest.fixture()
def store(redis_url):
    connection = redis.Redis.from_url(redis_url, decode_responses=True)
    yield connection
    connection.close()


def admin(*args: str) -> tuple[int, list[str]]:
    """``typhoon admin abort ...`` as an operator runs it: its exit code and the lines it prints."""
    done = subprocess.run([sys.executable, "-m", "clients.cli", "admin", "abort", *args], capture_output=True,
                          text=True, timeout=60, env=dict(os.environ, REDIS_URL=""))
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout.splitlines()


def last_events(client, match_id: str, count: int = 2) -> list[match_pb2.MatchEvent]:
    return list(client.event_log(match_id))[-count:]


def assert_verified(client, match_id: str, aborted: str) -> None:
    """The audit accepts an operator's abort, whatever the clocks say, and states it."""
    report = verify_log(fetch_log(client, match_id), match_id=match_id, final=client.get_match(match_id))
    assert report.ok, report.text()
    assert report.aborted == aborted and f"aborted: {aborted}" in report.text()


def test_an_operator_aborts_a_live_match(client, redis_url, store):
    match, tokens = client.create_match(seats=["german", "soviet"])
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())

    code, out = admin(match.match_id, "--reason", "the players left", "--redis-url", redis_url)

    assert (code, out) == (0, [f"{match.match_id}: aborted"])
    # compacted as any ended match, before the command returns
    assert not store.exists(key(match.match_id, "events")) and store.exists(key(match.match_id, "archive"))
    final = client.get_match(match.match_id).match
    assert final.status == ABORTED and final.side_to_act == "" and final.seed and not final.HasField("result")
    aborted, revealed = last_events(client, match.match_id)
    assert (aborted.match_aborted.side, aborted.match_aborted.reason, aborted.match_aborted.by_operator) == \
        ("", "the players left", True)
    assert revealed.seed_revealed.seed == final.seed
    assert not client.legal_actions(match.match_id).side_to_act
    with pytest.raises(TyphoonError) as refused:
        client.submit(match.match_id, tokens["soviet"], engine.EndPhase())
    assert refused.value.reason == "MATCH_ABORTED"
    assert refused.value.message == f"match {match.match_id} was aborted: the players left"
    assert_verified(client, match.match_id, "by an operator of the service: the players left")


def test_a_bot_whose_match_an_operator_aborts_stops_and_says_why(client, service, redis_url):
    match, tokens = client.create_match(seats=["german", "soviet"])
    bot, thread = start_bot("random", service.target, match_id=match.match_id, side="soviet", token=tokens["soviet"])
    # the bot waits for the German set-up, which never comes

    assert admin(match.match_id, "--reason", "the players left", "--redis-url", redis_url)[0] == 0

    thread.join(30)
    assert not thread.is_alive() and bot.error is None
    assert bot.result.aborted and not bot.result.finished
    assert bot.result.summary() == \
        "soviet (random): the match was aborted: by an operator of the service: the players left"
    assert client.why_aborted(client.get_match(match.match_id).match) == \
        "by an operator of the service: the players left"


def test_a_match_over_already_or_unknown_is_reported_and_left_as_it_is(client, redis_url):
    match, tokens = client.create_match(seats=["german", "soviet"])
    client.resign(match.match_id, tokens["german"])
    before = client.get_match(match.match_id).match

    code, out = admin(match.match_id, "nosuchmatch", "--redis-url", redis_url)

    assert code == 1  # one match was not found
    assert out == [f"{match.match_id}: already over", "nosuchmatch: not found"]
    after = client.get_match(match.match_id).match
    assert (after.status, after.version, after.last_sequence) == (FINISHED, before.version, before.last_sequence)
    assert admin("--redis-url", redis_url) == (2, ["typhoon admin abort: name the matches to abort, "
                                                          "or give --other-ruleset"])


def test_a_clocked_match_is_aborted_before_its_time_is_up_and_its_clocks_stop(client, redis_url, store):
    match, tokens = client.create_match(seats=["german", "soviet"], time_control=as_time_control("3600+0"))
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    assert store.zscore(shard_key(match.match_id), match.match_id) is not None

    assert admin(match.match_id, "--redis-url", redis_url) == (0, [f"{match.match_id}: aborted"])

    assert client.get_match(match.match_id).match.status == ABORTED
    assert store.zscore(shard_key(match.match_id), match.match_id) is None
    meta = store.hgetall(key(match.match_id, "meta"))
    assert (meta["clock:running"], meta["clock:deadline"]) == ("", "")
    assert last_events(client, match.match_id)[0].match_aborted.reason == "aborted by the operator"
    assert_verified(client, match.match_id, "by an operator of the service: aborted by the operator")


def test_other_ruleset_aborts_the_live_matches_no_service_can_continue(client, redis_url, store):
    old, old_tokens = client.create_match(seats=["german", "soviet"])
    client.submit(old.match_id, old_tokens["german"], engine.StandardSetup())
    store.hset(key(old.match_id, "meta"), "ruleset", "1")  # as a match stored by an earlier engine
    old_over, over_tokens = client.create_match(seats=["german", "soviet"])
    client.resign(old_over.match_id, over_tokens["soviet"])
    store.hset(key(old_over.match_id, "meta"), "ruleset", "1")
    current, _ = client.create_match(seats=["german", "soviet"])
    older, _ = client.create_match(seats=["german", "soviet"])
    store.hset(key(older.match_id, "meta"), "ruleset", "2")  # an older ruleset the engine still plays

    code, out = admin("--other-ruleset", "--redis-url", redis_url)

    assert code == 0 and f"{old.match_id}: aborted" in out
    assert out[0].endswith("of a ruleset this engine does not play (it plays rulesets 2, 3 and 4)")
    assert not any(m in line for m in (old_over.match_id, current.match_id, older.match_id) for line in out)
    reason = last_events(client, old.match_id)[0].match_aborted.reason
    assert "started under ruleset 1 and this service plays rulesets 2, 3 and 4" in reason
    assert client.get_match(old_over.match_id).match.status == FINISHED
    assert client.get_match(current.match_id).match.status == ACTIVE
    assert client.get_match(older.match_id).match.status == ACTIVE


def test_the_embedded_redis_of_a_data_dir_with_the_service_running_or_not(tmp_path):
    data = tmp_path / "data"
    service = ServiceProcess("--data-dir", str(data), workers=1, env={"REDIS_URL": ""}).start()
    try:
        with service.client() as client:
            match, _ = client.create_match(seats=["german"])
            # the service runs: its Redis is shared through the socket in the data directory
            assert admin(match.match_id, "--data-dir", str(data)) == (0, [f"{match.match_id}: aborted"])
            assert client.get_match(match.match_id).match.status == ABORTED
    finally:
        service.stop()
    # no service: the command starts the embedded Redis on the directory for itself
    assert admin(match.match_id, "--data-dir", str(data)) == (0, [f"{match.match_id}: already over"])
    done = subprocess.run([sys.executable, "-m", "clients.cli", "admin", "abort", match.match_id,
                           "--data-dir", str(tmp_path / "empty")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "holds no embedded Redis data" in done.stderr and not done.stdout
    assert not (tmp_path / "empty").exists()  # nothing is started or written there
