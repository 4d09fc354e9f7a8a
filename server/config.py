"""Server settings, from flags and SEAHAVEN_* environment variables."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None
    prefix: str = "seahaven:"
    grace_ms: int = 30_000
    """How long a dropped racer keeps the seat."""
    countdown_ms: int = 3_000
    spectator_delay_ms: int = 10_000
    """How late spectators see racers' moves (so a racer cannot spectate a rival's line live)."""
    rate: float = 30.0
    """Requests per second a connection may keep up."""
    burst: int = 60
    """Requests a connection may send at once above the rate."""
    strikes: int = 20
    """Rate-limited requests after which the connection is closed (1008)."""
    room_ttl: float = 3600.0
    """Seconds a room with no activity lives on in the store."""
    finished_ttl: float = 900.0
    """Seconds a finished race lives on (for results and rematch)."""
    session_ttl: float = 86_400.0
    uvloop: bool = True
    """Run on uvloop when it is installed (the ``fast`` extra)."""
