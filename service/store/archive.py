"""A finished match's log in one compressed value: what ``service.store.match_store`` keeps instead of its event
stream and its request records once the match is over (about a sixth of the memory).

The archive is text compressed with LZMA (the standard library's; ~6x on a match log)::

    typhoon-archive 1
    e <seq> <version> <time ms> <source> <event JSON, exactly as it was stored>
    ...
    r <request id as a JSON string>\t<record, as the store kept it>
    ...

Event lines come in sequence order. The event JSON is the stored text itself (never decoded and
encoded again), so a log read from an archive is the log read from the stream, byte for byte.
"""

from __future__ import annotations

import json
import lzma
from dataclasses import dataclass, field

MAGIC = "typhoon-archive 1"
#: The largest LZMA dictionary an archive is compressed with (preset 6's).
DICTIONARY = 8 << 20


class ArchiveError(ValueError):
    """Bytes that are not an archive this module wrote."""


@dataclass
class Archive:
    """Events as ``(seq, version, time_ms, source, event JSON)`` rows, in order, and request records
    by request id.

    >>> archive = Archive([(1, 0, 5, "service", '{"type":"x"}')], {"r\\t1\\n": "1 2 3 ab"})
    >>> Archive.decode(archive.encode()) == archive
    True
    """

    events: list[tuple[int, int, int, str, str]] = field(default_factory=list)
    requests: dict[str, str] = field(default_factory=dict)

    def encode(self) -> bytes:
        lines = [MAGIC]
        lines += [f"e {seq} {version} {time_ms} {source} {data}" for seq, version, time_ms, source, data in self.events]
        lines += [f"r {json.dumps(request_id)}\t{record}" for request_id, record in self.requests.items()]
        text = "\n".join(lines).encode()
        # preset 6 with a dictionary no larger than the text: the same archive, without preset 6's 8 MB
        # dictionary (~90 MB of tables to compress a log of ~300 KB)
        dictionary = min(DICTIONARY, max(len(text), 1 << 16))
        return lzma.compress(text, filters=[{"id": lzma.FILTER_LZMA2, "preset": 6, "dict_size": dictionary}])

    @classmethod
    def decode(cls, blob: bytes) -> "Archive":
        try:
            lines = lzma.decompress(blob).decode().split("\n")
        except (lzma.LZMAError, UnicodeDecodeError) as error:
            raise ArchiveError(f"not an archive: {error}") from None
        if not lines or lines[0] != MAGIC:
            raise ArchiveError("not an archive of this format")
        archive = cls()
        for line in lines[1:]:
            if line.startswith("e "):
                seq, version, time_ms, source, data = line[2:].split(" ", 4)
                archive.events.append((int(seq), int(version), int(time_ms), source, data))
            elif line.startswith("r "):
                request_id, _, record = line[2:].rpartition("\t")
                archive.requests[json.loads(request_id)] = record
        return archive

    @property
    def last_sequence(self) -> int:
        return self.events[-1][0] if self.events else 0

    def after(self, after_seq: int, count: int) -> list[tuple[int, int, int, str, str]]:
        """Up to ``count`` events with a sequence above ``after_seq`` (sequences run 1, 2, 3...)."""
        start = max(0, after_seq)
        return self.events[start:start + count] if self._dense() else \
            [row for row in self.events if row[0] > after_seq][:count]

    def _dense(self) -> bool:
        return not self.events or (self.events[0][0] == 1 and self.events[-1][0] == len(self.events))
