"""Reads whose work grows with a match's log (service/match/log_pages.py): GetEventLog's pages and the
catch-up of a WatchMatch stream. The entries of a match that is over are encoded once and sent again as
kept, byte for byte the answers the log gives; every such read spends its cost from the caller's
``history`` budget before any work, and past it is refused (429 / RESOURCE_EXHAUSTED, limit ``history``,
with Retry-After), while other clients read on. Real service processes, real Redis, both transports."""

from __future__ import annotations

import asyncio
import json

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from service.api.http_api import response_json, to_json
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc
from service.match.log_entries import match_event
from service.match.log_pages import CHUNK, KEPT_PER_UNIT
from service.store.match_store import Store

from service_helpers import ServiceProcess, limited_service, play_random, wait_for


def _logged(redis_url: str, match_id: str) -> list[api.WatchMatchResponse]:
    """The match's whole log as stored, each entry as the API's message (what the core sent before it kept any)."""
    async def read():
        store = Store.from_url(redis_url)
        try:
            return await store.read_events(match_id, 0, 100_000)
        finally:
            await store.close()
    return [match_event(event) for event in asyncio.run(read())]


def _expected(log: list, after: int, size: int) -> api.GetEventLogResponse:
    page = log[after:after + size]
    return api.GetEventLogResponse(events=page, next_after_sequence=page[-1].sequence if page else after,
                                   has_more=after + size < len(log))


@pytest.fixture(scope="module")
def finished(service, redis_url) -> tuple[str, list]:
    """A finished match of more than 3 chunks of entries, and its log."""
    with service.client() as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, match.match_id, tokens, seed="log-reads")
        assert client.get_match(match.match_id).match.status == 3  # finished
    log = _logged(redis_url, match.match_id)
    assert len(log) > 3 * CHUNK + 50
    return match.match_id, log


PAGES = [(0, 1000), (0, 1), (5, 100), (CHUNK - 1, 2), (CHUNK, CHUNK), (150, 1000), (37, 250)]


def test_event_log_pages_of_a_finished_match_are_its_log_and_kept_answers_are_identical(service, finished):
    match_id, log = finished
    pages = PAGES + [(len(log) - 3, 10), (len(log), 5), (len(log) - 1, 1)]
    with service.http() as http, grpc.insecure_channel(service.target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        for after, size in pages:
            expected = _expected(log, after, size)
            bodies = [http.get(f"/v1/matches/{match_id}/events", params={"after_sequence": after, "page_size": size})
                      for _ in range(2)]  # encoded, then kept
            assert all(reply.status_code == 200 for reply in bodies)
            assert bodies[0].content == bodies[1].content
            assert json.loads(bodies[0].content) == json.loads(response_json(expected)), (after, size)
            answers = [stub.GetEventLog(api.GetEventLogRequest(match_id=match_id, after_sequence=after, page_size=size))
                       for _ in range(2)]
            assert answers[0] == answers[1] == expected, (after, size)
        # the default page, and a cursor past the end refused as before
        assert json.loads(http.get(f"/v1/matches/{match_id}/events").content) == json.loads(response_json(_expected(log, 0, 100)))
        reply = http.get(f"/v1/matches/{match_id}/events", params={"after_sequence": len(log) + 1})
        assert (reply.status_code, reply.json()["error"]["reason"]) == (400, "CURSOR_PAST_END")


def test_a_live_matchs_pages_are_read_for_each_call(service, redis_url):
    with service.client() as client, service.http() as http:
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, match.match_id, tokens, seed="live-log", max_actions=30)
        log = _logged(redis_url, match.match_id)
        for after, size in ((0, 1000), (3, 10), (len(log) - 1, 5)):
            reply = http.get(f"/v1/matches/{match.match_id}/events", params={"after_sequence": after, "page_size": size})
            assert json.loads(reply.content) == json.loads(response_json(_expected(log, after, size)))
            assert client._call("GetEventLog", api.GetEventLogRequest(match_id=match.match_id, after_sequence=after,
                                                                      page_size=size)) == _expected(log, after, size)
        play_random(client, match.match_id, tokens, seed="live-log-more", max_actions=5)  # the log grows: read again
        log = _logged(redis_url, match.match_id)
        reply = http.get(f"/v1/matches/{match.match_id}/events", params={"page_size": 1000})
        assert json.loads(reply.content) == json.loads(response_json(_expected(log, 0, 1000)))


def _sse_frames(http: httpx.Client, path: str, params: dict) -> list[tuple[str | None, str, str]]:
    """Every frame of an SSE stream that ends by itself: (id, event, data)."""
    frames = []
    with http.stream("GET", path, params=params) as reply:
        assert reply.status_code == 200
        frame: dict[str, str] = {}
        for line in reply.iter_lines():
            if not line:
                if frame:
                    frames.append((frame.get("id"), frame["event"], frame["data"]))
                frame = {}
                continue
            name, _, value = line.partition(": ")
            frame[name] = value
    return frames


def test_a_watch_of_a_finished_match_sends_its_log_from_the_kept_entries(service, finished):
    match_id, log = finished
    with service.http() as http, grpc.insecure_channel(service.target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        for after in (0, 7, CHUNK, len(log) - 1, len(log)):
            for _ in range(2):  # encoded, then kept
                sent = list(stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, after_sequence=after), timeout=60))
                assert [item.event for item in sent[:-1]] == log[after:]
                assert sent[-1].WhichOneof("kind") == "update" and sent[-1].update.last_sequence == len(log)
                frames = _sse_frames(http, f"/v1/matches/{match_id}/watch", {"after_sequence": after})
                events = [frame for frame in frames if frame[1] == "match_event"]
                assert [json.loads(data) for _, _, data in events] == [to_json(event) for event in log[after:]]
                assert [int(frame_id) for frame_id, _, _ in events] == [event.sequence for event in log[after:]]
                assert [name for _, name, _ in frames[len(events):]] == ["match_update", "end"]
                assert json.loads(frames[-1][2]) == {"finished": True, "last_sequence": len(log)}


# --- the history budget ------------------------------------------------------------------------------

def _refused_for_history(reply: httpx.Response) -> None:
    error = reply.json()["error"]
    assert (reply.status_code, error["reason"], error["metadata"]["limit"]) == (429, "RATE_LIMITED", "history"), reply.text
    assert "GetEventLog" in error["message"] and int(reply.headers["Retry-After"]) == error["retry_after_seconds"] >= 1


def test_log_reads_spend_the_history_budget_before_any_work_and_past_it_are_refused(redis_url, finished):
    match_id, log = finished
    budget = 400
    with limited_service(redis_url, f"history={budget}/minute") as service, service.http() as http:
        def page(address: str, after: int, size: int) -> httpx.Response:
            return http.get(f"/v1/matches/{match_id}/events", params={"after_sequence": after, "page_size": size},
                            headers={"X-Forwarded-For": address})

        # 300 entries encoded: 300 of the 400
        assert page("198.19.20.1", 0, 3 * CHUNK).status_code == 200
        # 300 more to encode would pass it: refused, and nothing spent
        _refused_for_history(page("198.19.20.1", 3 * CHUNK, 3 * CHUNK))
        # the first 300 again, kept: a quarter of them (75), which still fits
        assert page("198.19.20.1", 0, 3 * CHUNK).status_code == 200
        assert 300 + 3 * CHUNK // KEPT_PER_UNIT < budget < 300 + 3 * CHUNK
        # a read cheaper than a few entries costs what a fixed call does: no budget
        assert json.loads(page("198.19.20.1", 3, 5).content) == json.loads(response_json(_expected(log, 3, 5)))
        # a watch whose catch-up is the whole log is refused before it opens, on both transports
        reply = http.get(f"/v1/matches/{match_id}/watch", headers={"X-Forwarded-For": "198.19.20.1"})
        _refused_for_history(reply)
        with grpc.insecure_channel(service.target) as channel:
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            metadata = [("x-forwarded-for", "198.19.20.1")]
            for call in (lambda: stub.GetEventLog(api.GetEventLogRequest(match_id=match_id, after_sequence=3 * CHUNK,
                                                                         page_size=1000), metadata=metadata),
                         lambda: list(stub.WatchMatch(api.WatchMatchRequest(match_id=match_id), metadata=metadata,
                                                      timeout=30))):
                with pytest.raises(grpc.RpcError) as caught:
                    call()
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
                details = rpc_status.from_call(caught.value).details
                assert details[0].Unpack(info) and (info.reason, info.metadata["limit"]) == ("RATE_LIMITED", "history")
                assert details[1].Unpack(retry) and retry.retry_delay.seconds >= 1
            # another client has its own budget, on both transports
            other = [("x-forwarded-for", "198.19.21.1")]
            assert stub.GetEventLog(api.GetEventLogRequest(match_id=match_id, page_size=3 * CHUNK),
                                    metadata=other) == _expected(log, 0, 3 * CHUNK)
        watched = _sse_frames(http, f"/v1/matches/{match_id}/watch", {"after_sequence": len(log) - 3 * CHUNK})
        assert [frame[1] for frame in watched[-2:]] == ["match_update", "end"]


def test_a_live_matchs_reads_are_counted_each_time(redis_url, service):
    with service.client() as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, match.match_id, tokens, seed="live-budget", max_actions=80)
    with limited_service(redis_url, "history=200/minute") as limited, limited.http() as http:
        headers = {"X-Forwarded-For": "198.19.22.1"}
        first = http.get(f"/v1/matches/{match.match_id}/events", params={"page_size": 120}, headers=headers)
        assert first.status_code == 200 and len(first.json()["events"]) == 120
        _refused_for_history(http.get(f"/v1/matches/{match.match_id}/events", params={"page_size": 120}, headers=headers))
        # the refused calls changed nothing: the match plays on
        with service.client() as client:
            legal = client.legal_actions(match.match_id)
            client.submit(match.match_id, tokens[legal.side_to_act], legal.actions[0], expected_version=legal.version)
        wait_for(lambda: http.get(f"/v1/matches/{match.match_id}").json()["match"]["version"] == legal.version + 1)


# --- lists ------------------------------------------------------------------------------------------

def test_list_matches_reads_a_bounded_number_of_matches_per_call_whatever_its_filter_skips(tmp_path):
    from service.gen.typhoon.v1 import match_pb2
    from service.match.core import MAX_LIST_SCAN, CallContext, MatchService
    from service.store.embedded_redis import EmbeddedRedis

    async def scenario(url: str) -> tuple[list[int], list[str], list[str]]:
        store = Store.from_url(url)
        core = MatchService(store)
        try:
            created = [(await core.create_match(api.CreateMatchRequest(), CallContext())).match.match_id
                       for _ in range(MAX_LIST_SCAN + 150)]
            read: list[int] = []
            original = store.metas

            async def counted(ids):
                read.append(len(ids))
                return await original(ids)

            store.metas = counted  # what each call reads of the store
            found, token, calls = [], "", []
            while True:  # no match is finished: every page is empty, and says where to go on
                read.clear()
                page = await core.list_matches(api.ListMatchesRequest(status=match_pb2.MATCH_STATUS_FINISHED,
                                                                      page_size=100, page_token=token), CallContext())
                calls.append(sum(read))
                found += [match.match_id for match in page.matches]
                token = page.next_page_token
                if not token:
                    break
            open_ones, token = [], ""
            while True:
                page = await core.list_matches(api.ListMatchesRequest(status=match_pb2.MATCH_STATUS_OPEN, page_size=100,
                                                                      page_token=token), CallContext())
                open_ones += [match.match_id for match in page.matches]
                token = page.next_page_token
                if not token:
                    return calls, open_ones, created
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path) as url:
        calls, open_ones, created = asyncio.run(scenario(url))
    assert len(calls) == 2 and max(calls) <= MAX_LIST_SCAN
    assert sorted(open_ones) == sorted(created)  # every one, each once


# --- background work on whole logs --------------------------------------------------------------------

def test_compaction_compresses_and_reads_decode_archives_off_the_event_loop(service, redis_url):
    """A long match's archive took ~0.1 s of CPU to compress: the store's archiving thread does it, and a
    read decodes an archive in a thread too; the log is the same, entry for entry."""
    import threading

    from service.store.archive import Archive
    from service.store.match_store import key

    with service.client() as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, match.match_id, tokens, seed="compaction-thread")
    import redis as sync_redis
    wait_for(lambda: sync_redis.Redis.from_url(redis_url).exists(key(match.match_id, "archive")))  # compacted by the service
    log = _logged(redis_url, match.match_id)

    async def again() -> tuple[set[str], set[str], list]:
        store = Store.from_url(redis_url)
        encoded, decoded = set(), set()
        encode, decode = Archive.encode, Archive.decode

        def encode_where(self):
            encoded.add(threading.current_thread().name)
            return encode(self)

        def decode_where(blob):
            decoded.add(threading.current_thread().name)
            return decode(blob)

        try:
            # the match uncompacted again: its stream back, as a process that stopped before compacting left it
            archive = Archive.decode(await store.redis.get(key(match.match_id, "archive")))
            for seq, version, time_ms, source, data in archive.events:
                await store.redis.xadd(key(match.match_id, "events"), {"seq": seq, "version": version, "time": time_ms,
                                                                       "source": source, "event": data}, id=f"{seq}-0")
            await store.redis.delete(key(match.match_id, "archive"))
            Archive.encode, Archive.decode = encode_where, staticmethod(decode_where)
            assert await store.compact(match.match_id)
            events = await store.read_events(match.match_id, 0, 100_000)
        finally:
            Archive.encode, Archive.decode = encode, staticmethod(decode)
            await store.close()
        return encoded, decoded, [match_event(event) for event in events]

    encoded, decoded, events = asyncio.run(again())
    assert events == log
    assert encoded and all(name.startswith("archiver") for name in encoded)
    assert decoded and threading.main_thread().name not in decoded


def test_what_a_status_filter_reads_past_its_first_page_spends_the_history_budget(tmp_path):
    from service.match.core import MAX_LIST_SCAN, STATUSES_PER_UNIT

    service = ServiceProcess("--data-dir", str(tmp_path), "--no-rate-limits", "--limit", "history=300/minute",
                             "--trusted-proxy", "127.0.0.0/8", rate_limits=True).start()
    try:
        with service.client() as client, service.http() as http:
            for _ in range(MAX_LIST_SCAN + 50):
                client.create_match()

            def finished(address: str) -> httpx.Response:
                return http.get("/v1/matches", params={"status": "MATCH_STATUS_FINISHED", "page_size": 100},
                                headers={"X-Forwarded-For": address})

            # no match is finished: the first 100 statuses read are free, the next 400 spend 200 of the 300; a
            # short page, and where to go on
            assert (MAX_LIST_SCAN - 100) // STATUSES_PER_UNIT == 200
            first = finished("198.19.23.1")
            assert first.status_code == 200 and first.json()["matches"] == [] and first.json()["next_page_token"]
            _refused_for_history(finished("198.19.23.1"))  # 200 more: refused before reading past the first page
            for _ in range(3):  # unfiltered pages read what they send: free
                reply = http.get("/v1/matches", params={"page_size": 100}, headers={"X-Forwarded-For": "198.19.23.1"})
                assert len(reply.json()["matches"]) == 100
            assert finished("198.19.24.1").status_code == 200  # another client has its own budget
    finally:
        service.stop()


def test_a_process_reads_at_most_history_reads_for_all_its_clients_together(redis_url, finished):
    """The history budget bounds each client; a crowd of them, each within its own, is bounded by the
    process's ``history_reads`` (in its memory)."""
    match_id, log = finished
    with limited_service(redis_url, "history_reads=500/minute") as service, service.http() as http:
        def page(address: str, after: int) -> httpx.Response:
            return http.get(f"/v1/matches/{match_id}/events", params={"after_sequence": after, "page_size": 3 * CHUNK},
                            headers={"X-Forwarded-For": address})

        assert page("198.19.26.1", 0).status_code == 200  # 300 of the process's 500
        reply = page("198.19.27.1", 3 * CHUNK)  # another client, 300 more: past the process's
        error = reply.json()["error"]
        assert (reply.status_code, error["reason"], error["metadata"]["limit"]) == (429, "RATE_LIMITED", "history_reads")
        assert "all the clients of this server" in error["message"] and int(reply.headers["Retry-After"]) >= 1
        assert page("198.19.28.1", 0).status_code == 200  # kept: 75 more still fit
