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

    def ready(self, now: float) -> bool:
        """Whether a token is there to spend (spending none)."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens >= 1

    def full(self, now: float) -> bool:
        return self.ready(now) and self.tokens >= self.burst

    def take(self, now: float) -> bool:
        """Spend a token if there is one; False means the request is over the limit."""
        if self.ready(now):
            self.tokens -= 1
            return True
        return False
