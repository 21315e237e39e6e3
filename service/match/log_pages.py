"""A match's log entries as the transports send them, encoded once where they cannot change: GetEventLog's
pages and the catch-up of a stream watching a match that is over.

A stored entry becomes the API's MatchEvent (:mod:`service.match.log_entries`), then the bytes a transport
sends: ~25-50 µs an entry on the event loop, read and decoded from Redis, converted, encoded. A page of
1,000 entries of a long match took 25-50 ms of the loop, and a few clients asking for it in a loop slowed
every call as VerifyMatch once did. So:

- **encoded once**: the log of a match that is over never changes. Its entries are encoded in chunks of
  :data:`CHUNK`, in the form a transport asks for (:class:`Form`: protobuf, field 1 of both
  GetEventLogResponse and WatchMatchResponse, or the REST JSON), and kept in an LRU by size
  (:class:`LogPages`, ``typhoon serve --log-cache-mb``); a page is then the chunks' bytes joined. A chunk's
  key names how the log ended (its last sequence and the time of its last change): a log a Redis failover
  took back and that then ended otherwise is another log. A live match's entries are encoded for each call
  (its last ones may still be taken back by a failover, without ``--redis-min-replicas``);
- **admitted by cost**: before the work, what a call will encode and what it will send from the cache
  (:func:`cost_of`; a stream's catch-up: :meth:`CatchUp.cost`) is counted against the caller's ``history``
  budget, the budget VerifyMatch's re-simulations spend (``charge``, given by the match core: RATE_LIMITED
  with Retry-After past it); a page of 1,000 entries (``MAX_EVENTS_PAGE``) is the most one call reads.

>>> cost_of(encoded=1000, kept=0), cost_of(encoded=0, kept=1000), cost_of(encoded=3, kept=1)
(1000, 250, 4)
>>> LogPage([b"\\x0a\\x02\\x08\\x01"], [1], 1, True).proto_bytes()
b'\\n\\x02\\x08\\x01\\x10\\x01\\x18\\x01'
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass

from cachetools import LRUCache

from service.gen.typhoon.v1 import match_pb2
from service.match.log_entries import match_event
from service.store.match_store import ENDED, Store, StoredEvent

#: Entries encoded and kept together: a page of 1,000 spans at most 11 chunks.
CHUNK = 100
#: Entries of a page sent as kept that cost as much as one entry encoded for the call: a REST page of 1,000
#: kept entries took the service ~4.5 ms of CPU (its compression, mostly), encoded ~21 ms (both measured
#: in the same run; gRPC's less).
KEPT_PER_UNIT = 4
#: A read costing less than this is admitted as a fixed call is (no round trip to count it).
FREE_COST = 20
#: The field and wire type of GetEventLogResponse.events and WatchMatchResponse.event (1, length-delimited).
_EVENT_TAG = b"\x0a"


def varint(value: int) -> bytes:
    """``value`` (0 or more) as a protobuf varint.

    >>> varint(1), varint(300)
    (b'\\x01', b'\\xac\\x02')
    """
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def tagged(event: match_pb2.MatchEvent) -> bytes:
    """``event`` as field 1 of a message: an entry of GetEventLogResponse.events, and a whole WatchMatchResponse."""
    data: bytes = event.SerializeToString()
    return _EVENT_TAG + varint(len(data)) + data


@dataclass(frozen=True)
class Form:
    """How a transport sends an entry: its name (part of the cache's key) and its encoding."""

    name: str
    encode: Callable[[match_pb2.MatchEvent], bytes]


#: gRPC's: the entry's protobuf encoding as field 1 (:func:`tagged`).
PROTO = Form("proto", tagged)


def cost_of(encoded: int, kept: int) -> int:
    """What a read spends from the ``history`` budget: each entry encoded for it, and a quarter of each sent
    as kept (in units of a log entry re-simulated, as VerifyMatch spends them)."""
    return encoded + math.ceil(kept / KEPT_PER_UNIT)


@dataclass
class LogPage:
    """Entries of a log in one form, their sequences, and the cursor and ``has_more`` of the answer."""

    entries: Sequence[bytes]
    sequences: Sequence[int]
    next_after_sequence: int
    has_more: bool

    def proto_bytes(self) -> bytes:
        """The GetEventLogResponse of a page in :data:`PROTO` form, serialized (what ``SerializeToString`` gives)."""
        tail = b"\x10" + varint(self.next_after_sequence) if self.next_after_sequence else b""
        return b"".join(self.entries) + tail + (b"\x18\x01" if self.has_more else b"")


def ending(meta: dict[str, str]) -> tuple[str, str] | None:
    """What names the log of a match that is over (None while it is live): its last sequence and last change."""
    if meta.get("status") not in ENDED:
        return None
    return meta["last_sequence"], meta.get("updated_at", "")


class LogPages:
    """Encoded chunks of the logs of matches that are over, in an LRU of ``megabytes`` (see the module)."""

    def __init__(self, megabytes: float = 16.0) -> None:
        self.cache: LRUCache[tuple[str, tuple[str, str], int, str], tuple[bytes, ...]] = LRUCache(
            maxsize=max(1, int(megabytes * 2**20)), getsizeof=_size)

    def get(self, match_id: str, ended: tuple[str, str], number: int, form: Form) -> tuple[bytes, ...] | None:
        return self.cache.get((match_id, ended, number, form.name))

    def keep(self, match_id: str, ended: tuple[str, str], number: int, form: Form, chunk: tuple[bytes, ...]) -> None:
        if _size(chunk) <= self.cache.maxsize:
            self.cache[(match_id, ended, number, form.name)] = chunk


def _size(chunk: tuple[bytes, ...]) -> int:
    return sum(map(len, chunk)) + 64 * len(chunk)  # the bytes, and roughly what Python keeps for each


#: What spends a read's cost (the match core's: the caller's ``history`` budget), raising its refusal.
Charge = Callable[[int], Awaitable[None]]


async def read_page(store: Store, pages: LogPages, meta: dict[str, str], after: int, size: int, form: Form,
                    charge: Charge) -> LogPage:
    """The entries after ``after`` (at most ``size``) of the match whose meta hash is ``meta`` (read just
    before: ``after`` is checked against it), encoded in ``form``, once ``charge`` has admitted their cost."""
    match_id, last = meta["id"], int(meta["last_sequence"])
    ended = ending(meta)
    if ended is None:  # live: what is there now, and one more to tell whether more follow
        await spend(charge, cost_of(min(size, last - after), 0))
        events = await store.read_events(match_id, after, size + 1)
        return _encoded(events[:size], after, len(events) > size, form)
    end = min(after + size, last)
    numbers = _chunks(after, end)
    chunks = {number: pages.get(match_id, ended, number, form) for number in numbers}
    missing = [number for number, chunk in chunks.items() if chunk is None]
    encoded = _entries_in(missing, last)
    await spend(charge, cost_of(encoded, max(0, end - after - encoded)))
    if missing:
        low, high = missing[0] * CHUNK, min(last, (missing[-1] + 1) * CHUNK)
        events = await store.read_events(match_id, low, high - low)
        if [event.seq for event in events] != list(range(low + 1, high + 1)):  # not the log its meta told of
            return _encoded([event for event in events if after < event.seq <= end], after, end < last, form)
        for number in missing:
            first = number * CHUNK - low
            chunk = tuple(form.encode(match_event(event)) for event in events[first:first + CHUNK])
            chunks[number] = chunk
            pages.keep(match_id, ended, number, form, chunk)
    start = after - numbers.start * CHUNK
    entries = [entry for number in numbers for entry in chunks[number] or ()][start:start + end - after]
    return LogPage(entries, range(after + 1, end + 1), end if end > after else after, end < last)


def _encoded(events: list[StoredEvent], after: int, has_more: bool, form: Form) -> LogPage:
    return LogPage([form.encode(match_event(event)) for event in events], [event.seq for event in events],
                   events[-1].seq if events else after, has_more)


def _chunks(after: int, end: int) -> range:
    """The numbers of the chunks holding the entries after ``after`` through ``end``."""
    return range(after // CHUNK, (end - 1) // CHUNK + 1 if end > after else after // CHUNK)


def _entries_in(numbers: Sequence[int], last: int) -> int:
    """How many entries the chunks ``numbers`` of a log ending at ``last`` hold."""
    return sum(min(last, (number + 1) * CHUNK) - number * CHUNK for number in numbers)


async def spend(charge: Charge, cost: int) -> None:
    """``charge(cost)``, unless ``cost`` is below :data:`FREE_COST`."""
    if cost >= FREE_COST:
        await charge(cost)


async def _free(cost: int) -> None:
    """The charge of what was paid for already (a stream's catch-up, paid when it opened)."""


@dataclass(frozen=True)
class Encoded:
    """A log entry a stream sends already encoded in a transport's form (:class:`Form`), and its sequence."""

    sequence: int
    data: bytes


class CatchUp:
    """What a stream watching a match sends before the live entries: the log after ``after`` as ``meta``
    (read as the stream opens) tells of it. Its :meth:`cost` is paid when the stream opens; a match that is
    over sends it from the entries kept encoded (:meth:`entries`, in ``form``, else :data:`PROTO`): that
    saves their encoding, but a stream sends each entry as a message of its own (gRPC's took ~40 µs each
    whatever its encoding), so every entry counts in full."""

    #: Entries read at once.
    PAGE = 5 * CHUNK

    def __init__(self, pages: LogPages, meta: dict[str, str], after: int, form: Form | None) -> None:
        self.pages = pages
        self.meta = meta
        self.after = after
        self.form = form
        self.last = int(meta["last_sequence"])
        self.ended = ending(meta)

    @property
    def kept(self) -> bool:
        """Whether it is sent from the entries kept encoded (the match is over, and entries are behind)."""
        return self.ended is not None and self.after < self.last

    def cost(self) -> int:
        """The entries it will send, each in full."""
        return cost_of(max(0, self.last - self.after), 0)

    async def entries(self, store: Store) -> AsyncIterator[Encoded]:
        """The entries after ``after`` of a match that is over, a page at a time."""
        cursor = self.after
        while cursor < self.last:
            page = await read_page(store, self.pages, self.meta, cursor, self.PAGE, self.form or PROTO, _free)
            for sequence, data in zip(page.sequences, page.entries):
                yield Encoded(sequence, data)
            if not page.has_more or page.next_after_sequence <= cursor:
                return
            cursor = page.next_after_sequence


__all__ = ["CHUNK", "CatchUp", "Encoded", "Form", "LogPage", "LogPages", "PROTO", "cost_of", "ending", "read_page", "spend",
           "tagged", "varint"]
