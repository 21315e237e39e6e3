"""An idle service is quiet: with no match at all one process sends its Redis at most a few commands a
second (it sent ~160 before its loops woke on what changed instead of polling), and a clock it has not
been polling still makes its flag fall on time: the commit that sets a new earliest deadline wakes the
sweepers (``service.store.deadlines.wake_channel``).

Counted from Redis itself (``INFO commandstats``, commands inside scripts included), on a Redis of its
own so that no other test's service is counted."""

from __future__ import annotations

import time
from typing import Iterator

import pytest
import redis

from service.gen.typhoon.v1 import match_pb2
from service.store.embedded_redis import EmbeddedRedis

from service_helpers import ServiceProcess, wait_for

#: The window counted, and the most an idle process may send in it: a readiness probe a second, the
#: storage guard's INFO every 5 s, and room for a safety sweep (each at most 30 s apart).
WINDOW_SECONDS = 6.0
MOST_COMMANDS = 6 * 5


@pytest.fixture(scope="module")
def quiet_service(tmp_path_factory) -> Iterator[tuple[ServiceProcess, redis.Redis]]:
    embedded = EmbeddedRedis(tmp_path_factory.mktemp("idle-redis"))
    url = embedded.start()
    process = ServiceProcess("--redis-url", url).start()
    try:
        yield process, redis.Redis.from_url(url)
    finally:
        process.stop()
        embedded.stop()


def commands_sent(connection: redis.Redis) -> dict[str, int]:
    stats = connection.info("commandstats")
    return {name.removeprefix("cmdstat_"): fields["calls"] for name, fields in stats.items()}


def test_an_idle_process_sends_redis_a_few_commands_a_second(quiet_service):
    service, connection = quiet_service
    with service.client() as client:
        client.list_scenarios()  # serving
    connection.config_resetstat()
    time.sleep(WINDOW_SECONDS)
    sent = commands_sent(connection)
    sent.pop("info", None)  # this test's own
    sent.pop("config", None)
    assert sum(sent.values()) <= MOST_COMMANDS, sent


def test_a_new_deadline_wakes_the_idle_sweeper(quiet_service):
    """The sweeper has no deadline to wait for and sleeps up to 30 s; the match's first-action deadline
    (1 s) makes it look again at once, so the match is aborted long before that safety sleep ends."""
    service, _ = quiet_service
    with service.client() as client:
        control = match_pb2.TimeControl(initial={"seconds": 60})
        control.first_action.FromMilliseconds(1000)
        match, _ = client.create_match(time_control=control)
        # 15 s: generous for a 1 s deadline, and short of the safety sweep a sweeper that missed the wake waits
        # for (30 s after its last, at the start of the module)
        wait_for(lambda: client.get_match(match.match_id).match.status == match_pb2.MATCH_STATUS_ABORTED, timeout=15)
