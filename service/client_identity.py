"""The form a client address is counted by, wherever the service counts clients: the guard's rate
limits (``service.guard``) and the ladder's related owners (``service.ladder.related``).

A client counts by its network: an IPv4 address by its /24, an IPv6 one by its /64 (``typhoon serve
--client-ipv4-prefix``, ``--client-ipv6-prefix``). A home or a server is given a whole IPv6 /64, so one
client has as many addresses as it likes there; and one IPv4 /24 is, more often than not, one operator's
(a hosting provider's rack, a company's office): sybils spread over the addresses of one /24 are one
client to the limits and one owner to the ladder, at the price of counting together the unrelated users
of a shared /24 (a campus, a carrier-grade NAT, which share one address anyway). An address mapped into
IPv6 counts as the IPv4 address it is:

>>> counted_as("2001:db8:1:2:aaaa::1"), counted_as("198.51.100.7"), counted_as("::ffff:198.51.100.7")
('2001:db8:1:2::/64', '198.51.100.0/24', '198.51.100.0/24')
>>> counted_as("unix:/run/typhoon.sock"), is_network_address("unix:/run/typhoon.sock"), counted_as("")
('unix:/run/typhoon.sock', False, 'unknown')
>>> count_by(ipv4_prefix=32); counted_as("198.51.100.7"); count_by()
'198.51.100.7/32'
"""

from __future__ import annotations

import functools
import ipaddress

#: Defaults of ``typhoon serve --client-ipv4-prefix`` and ``--client-ipv6-prefix``.
IPV4_PREFIX = 24
IPV6_PREFIX = 64
#: The prefixes in force (``count_by``): IPv4, IPv6.
_prefixes = [IPV4_PREFIX, IPV6_PREFIX]


def count_by(ipv4_prefix: int = IPV4_PREFIX, ipv6_prefix: int = IPV6_PREFIX) -> None:
    """Count clients by these network prefixes from now on (the process's setting, as ``typhoon serve``
    makes it at start); ValueError for a prefix that is no network of the kind, or too wide to be a client."""
    if not 8 <= ipv4_prefix <= 32:
        raise ValueError(f"--client-ipv4-prefix {ipv4_prefix}: a prefix length from 8 to 32 (24: a /24)")
    if not 16 <= ipv6_prefix <= 128:
        raise ValueError(f"--client-ipv6-prefix {ipv6_prefix}: a prefix length from 16 to 128 (64: a /64)")
    _prefixes[:] = [ipv4_prefix, ipv6_prefix]
    counted_as.cache_clear()


def prefixes() -> tuple[int, int]:
    """The prefixes clients are counted by now: (IPv4, IPv6)."""
    return _prefixes[0], _prefixes[1]


@functools.lru_cache(maxsize=65536)
def counted_as(address: str) -> str:
    """The form ``address`` is counted by: its network (see the module), anything else (a Unix socket's
    peer) as given, at most 64 characters."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:64] or "unknown"
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped:
            parsed = parsed.ipv4_mapped
        else:
            return str(ipaddress.ip_network(f"{parsed}/{_prefixes[1]}", strict=False))
    return str(ipaddress.ip_network(f"{parsed}/{_prefixes[0]}", strict=False))


def is_network_address(address: str) -> bool:
    """Whether ``address`` is an IP address (not a Unix socket's peer, not unknown)."""
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


__all__ = ["IPV4_PREFIX", "IPV6_PREFIX", "count_by", "counted_as", "is_network_address", "prefixes"]
