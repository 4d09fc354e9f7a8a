"""Per-connection flood control: a token bucket, pure and clock-injected."""

from __future__ import annotations


class TokenBucket:
    """``rate`` tokens a second up to ``burst``; each request takes one."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now

    def take(self, now: float) -> bool:
        """Spend a token if there is one; False means the request is over the limit."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
