"""Related owners: owners registered from one client address are one owner group, to the ladder.

An attacker's sybils are owners of their own, so "never pair one owner's players" and "rate a pair of
players a few times a day" do not bite on them; but registered from one client they share its address.
An owner registered from an address (its counted form, :func:`service.client_identity.counted_as`: an
IPv6 client's /64) from which another owner was registered within the window joins that owner's group;
the group is named by the id of its first owner. The ladder treats a group as one owner
(:mod:`service.ladder.fairness`): its players are never paired with each other (unless the ladder is
private), and the players of two groups are rated a few times a day between them all.

What is stored, and for how long (nothing else about an address is kept by the ladder):

* ``address:<tag>`` (string, expiring): the group of the owners registered from an address, under a
  keyed hash of the address (:class:`AddressTags`, HMAC-SHA256); it expires ``related_window_ms``
  after the last owner registered from that address (30 days by default), after which a new owner
  from there starts a group of its own (addresses change hands);
* the owner's ``group`` field (and each of its players'): an owner id, nothing derived from the address.

The key of the hash is the operator's (``typhoon serve --ladder-address-key-file``), or, without one,
drawn by the service once and kept in Redis (``address_key``), shared so by every process. A key kept
outside Redis means a copy of Redis alone cannot tell which address a tag stands for (an IPv4 address
has 2^32 values: an unkeyed hash of one is undone by trying them all).

A call from no network address (the service's own, a Unix socket) relates its owner to nobody.

>>> tags = AddressTags(None, "typhoon:{ladder}:address_key", b"k" * 32)
>>> tags.tag_with(b"k" * 32, "2001:db8:1:2::7") == tags.tag_with(b"k" * 32, "2001:db8:1:2:ffff::1")  # one /64
True
>>> tags.tag_with(b"k" * 32, "198.51.100.7") == tags.tag_with(b"other key" * 4, "198.51.100.7")
False
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path
from typing import Any

from service.client_identity import counted_as, is_network_address
from service.store.match_store import text_of

#: Bytes of a key the service draws (256 bits); a key file must hold at least MIN_KEY_BYTES.
KEY_BYTES = 32
MIN_KEY_BYTES = 16


def read_key_file(path: str | Path) -> bytes:
    """The address key in a file (its bytes, surrounding white space removed); ValueError if it is too
    short to be a secret."""
    key = Path(path).read_bytes().strip()
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"--ladder-address-key-file {path}: the key has {len(key)} bytes; at least "
                         f"{MIN_KEY_BYTES} random bytes are needed (e.g. `openssl rand -hex 32 > {path}`)")
    return key


class AddressTags:
    """Keyed hashes of client addresses, in their counted form (see the module)."""

    def __init__(self, redis: Any, key_name: str, key: bytes | None = None) -> None:
        self.redis = redis
        self.key_name = key_name  # where the drawn key is kept
        self._key = key

    async def key(self) -> bytes:
        """The operator's key, or the one the service drew and keeps in Redis (drawn on first use)."""
        if self._key is None:
            await self.redis.set(self.key_name, secrets.token_hex(KEY_BYTES), nx=True)
            self._key = (text_of(await self.redis.get(self.key_name)) or "").encode()
        return self._key

    async def tag(self, address: str) -> str | None:
        """The tag of ``address`` (None for no network address: it relates nobody)."""
        if not is_network_address(address):
            return None
        return self.tag_with(await self.key(), address)

    @staticmethod
    def tag_with(key: bytes, address: str) -> str:
        return hmac.new(key, counted_as(address).encode(), hashlib.sha256).hexdigest()


__all__ = ["AddressTags", "read_key_file"]
