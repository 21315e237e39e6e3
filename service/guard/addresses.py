"""Who is calling: the client's address, through trusted proxies only, and the form limits count it by.

A call's address is its connection's peer, unless that peer is a trusted proxy
(``typhoon serve --trusted-proxy CIDR``): then it is the last address of ``X-Forwarded-For`` (the HTTP
header, or the gRPC metadata of the same name) that is not itself a trusted proxy, the rule of
uvicorn's ProxyHeadersMiddleware and of nginx's ``real_ip_recursive``. Anyone may write
``X-Forwarded-For``; only a proxy the operator named is believed, so a client cannot choose the
address its limits count.

>>> proxies = TrustedProxies(["10.0.0.0/8"])
>>> proxies.client("10.1.2.3", "198.51.100.7, 10.9.9.9")      # through two proxies of ours
'198.51.100.7'
>>> proxies.client("203.0.113.5", "198.51.100.7")              # not a proxy of ours: its header is ignored
'203.0.113.5'
>>> proxies.client("10.1.2.3", "spoofed, 198.51.100.7")        # only the part our proxy appended counts
'198.51.100.7'
>>> TrustedProxies([]).client("127.0.0.1", "198.51.100.7")     # by default nobody is trusted
'127.0.0.1'

Limits count an IPv6 client by its /64 network, an IPv4 client by its address
(:func:`service.client_identity.counted_as`, which the ladder's related owners share).
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

from service.client_identity import counted_as

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(cidrs: Iterable[str]) -> tuple[Network, ...]:
    """CIDRs (``10.0.0.0/8``, ``192.0.2.1``, ``::1``), as networks; ValueError names a wrong one."""
    networks = []
    for cidr in cidrs:
        try:
            networks.append(ipaddress.ip_network(cidr.strip(), strict=False))
        except ValueError:
            raise ValueError(f"--trusted-proxy {cidr!r}: not an address or network such as 10.0.0.0/8") from None
    return tuple(networks)


class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` is believed (see the module)."""

    def __init__(self, cidrs: Iterable[str] = ()) -> None:
        self.networks = parse_networks(cidrs)
        self._trusted = functools.lru_cache(maxsize=4096)(self._is_trusted)

    def _is_trusted(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)

    def trusts(self, host: str) -> bool:
        return bool(self.networks) and len(host) <= 64 and self._trusted(host)

    def client(self, peer: str, forwarded_for: str | None) -> str:
        """The client's address: ``peer``, or through a trusted ``peer`` the ``X-Forwarded-For`` value
        (several headers joined by commas)."""
        if not forwarded_for or not self.trusts(peer):
            return peer
        hops = [_host_of(hop) for hop in forwarded_for.split(",")]
        for hop in reversed(hops):
            if hop and not self.trusts(hop):
                return hop
        return next((hop for hop in hops if hop), peer)  # every hop is a proxy of ours: the first


def _host_of(hop: str) -> str:
    """An ``X-Forwarded-For`` entry without its port (``198.51.100.7:4711``, ``[2001:db8::1]:4711``)."""
    hop = hop.strip()
    if hop.startswith("["):
        return hop[1:hop.find("]")] if "]" in hop else hop
    if hop.count(":") == 1:
        return hop.partition(":")[0]
    return hop[:64]


__all__ = ["TrustedProxies", "counted_as", "parse_networks"]
