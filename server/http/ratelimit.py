"""The public API's rate limit: one token bucket per client address, on the server's one clock."""

from __future__ import annotations

import math
from typing import Final

from server.shell.limits import TokenBucket

API_RATE: Final = 20.0
"""Requests a second one address may keep up on ``/api/v1``."""
API_BURST: Final = 40
"""Requests one address may send at once above the rate."""
MAX_ADDRESSES: Final = 10_000
"""Buckets kept at most: past it the full ones (addresses not seen lately) are forgotten, then
the oldest."""


class AddressLimits:
    """``take(address, now)``: None when the request may go on, else the whole seconds to wait."""

    def __init__(self, rate: float = API_RATE, burst: int = API_BURST) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"a rate limit needs rate > 0 and burst >= 1, not {rate} and {burst}")
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, TokenBucket] = {}

    def take(self, address: str, now: float) -> int | None:
        """Spend one of ``address``'s tokens at ``now`` (seconds); if none is left, the seconds
        until one is (at least 1, for ``Retry-After``)."""
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= MAX_ADDRESSES:
                for stale in [a for a, b in self.buckets.items() if b.full(now)]:
                    del self.buckets[stale]
                while len(self.buckets) >= MAX_ADDRESSES:  # all busy (many addresses): the oldest go
                    del self.buckets[next(iter(self.buckets))]
            bucket = self.buckets[address] = TokenBucket(self.rate, self.burst, now)
        if bucket.take(now):
            return None
        return max(1, math.ceil((1 - bucket.tokens) / self.rate))
