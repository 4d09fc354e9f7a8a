"""Who a plain HTTP request comes from, for the per-address rate limit.

The rule is the WebSocket side's (``server/shell/guard.py``, ``ConnectionGuard.address``): the TCP peer,
unless the peer is a trusted proxy (a load balancer), whose ``X-Forwarded-For`` then names the
client in its last entry (the one that proxy added; earlier entries are the client's word).
``ConnectionGuard.address`` reads a websockets connection, which an HTTP request never becomes, so the rule
is restated here over plain values; the seam to share it is a public function of the peer and
the header values in ``guard.py`` that both call.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class ClientAddress:
    """``address(peer, forwarded)``: the client's address, by the trusted proxies given."""

    def __init__(self, trusted_proxies: Iterable[str] = ()) -> None:
        self.proxies: tuple[Network, ...] = tuple(ipaddress.ip_network(c, strict=False) for c in trusted_proxies)

    def __call__(self, peer: str, forwarded: list[str]) -> str:
        if not self.proxies or not forwarded:
            return peer
        try:
            trusted = any(ipaddress.ip_address(peer) in net for net in self.proxies)
        except ValueError:
            return peer
        if not trusted:
            return peer
        client = forwarded[-1].rsplit(",", 1)[-1].strip()
        try:
            return str(ipaddress.ip_address(client))
        except ValueError:
            return peer
