"""The form a client address is counted by, wherever the service counts clients: the guard's rate
limits (``service.guard``) and the ladder's related owners (``service.ladder.related``).

An IPv6 client counts by its /64 network (a home or a server is given a whole /64, so one client has
as many addresses as it likes), an IPv4 client by its address, also one mapped into IPv6:

>>> counted_as("2001:db8:1:2:aaaa::1"), counted_as("198.51.100.7"), counted_as("::ffff:198.51.100.7")
('2001:db8:1:2::/64', '198.51.100.7', '198.51.100.7')
>>> counted_as("unix:/run/typhoon.sock"), is_network_address("unix:/run/typhoon.sock"), counted_as("")
('unix:/run/typhoon.sock', False, 'unknown')
"""

from __future__ import annotations

import functools
import ipaddress


@functools.lru_cache(maxsize=65536)
def counted_as(address: str) -> str:
    """The form ``address`` is counted by: an IPv6 address's /64, an IPv4 address (also one mapped into
    IPv6) as it is, anything else (a Unix socket's peer) as given, at most 64 characters."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:64] or "unknown"
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def is_network_address(address: str) -> bool:
    """Whether ``address`` is an IP address (not a Unix socket's peer, not unknown)."""
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


__all__ = ["counted_as", "is_network_address"]
