"""Server settings, from flags and SEAHAVEN_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def default_data_dir() -> str:
    """Where the server keeps its files (the SQLite records when no database URL is given):
    ``$XDG_DATA_HOME/seahaven-server``, else ``~/.local/share/seahaven-server``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "seahaven-server")


@dataclass(frozen=True, slots=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None
    prefix: str = "seahaven:"
    durability: str = "local"
    """``replicated``: a room append is acknowledged once a Redis replica has it (WAIT 1)."""
    node_name: str = "node"
    """This node's name in /metrics (the command's default is the host name)."""
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
    """Seconds a session lives on in the store after its last use."""
    trusted_proxies: tuple[str, ...] = ()
    """Networks (CIDR) of load balancers whose ``X-Forwarded-For`` names the client for the
    per-address limits."""
    hello_timeout_ms: int = 10_000
    """How long a new connection may stay silent before its hello (then closed 4002)."""
    close_timeout: float = 2.0
    """Seconds a closing handshake may take before the connection is aborted."""
    max_write_buffer: int = 1 << 20
    """Bytes a connection may leave unread before it is let go as too slow (fan-out never waits)."""
    connections_per_address: int = 256
    """Open connections one client address may hold (more are closed 1013)."""
    sessions_per_address: int = 1000
    """New sessions one client address may open an hour (then ``rate-limited``)."""
    rooms_per_connection: int = 10
    """Rooms one connection may create a minute (then ``room-limit``)."""
    rooms_per_address: int = 120
    """Rooms one client address may create an hour (then ``room-limit``)."""
    uvloop: bool = True
    """Run on uvloop when it is installed (the ``fast`` extra)."""
    reuse_port: bool = False
    """Share the port with other worker processes (``--workers``: SO_REUSEPORT)."""
    database_url: str | None = None
    """The records' database (``sqlite:///PATH`` or ``postgresql://...``); None: a SQLite file in ``data_dir``."""
    data_dir: str = field(default_factory=default_data_dir)
    """The server's own files."""
    signing_key: str | None = None
    """The Ed25519 key (PEM file) that signs archived races; None: ``signing-key.pem`` in ``data_dir``."""
    records: bool = True
    """Archive finished races into the database (off: no database is opened, no race is marked)."""
    analysis: str = "idle"
    """How the races on record are analysed (docs/records.md): ``idle`` in a worker that runs only
    on an idle CPU, ``low`` at nice 10 (it keeps up on a node that is never idle, at a small cost
    to the moves' latency), ``off`` not at all."""
    admin_host: str = "127.0.0.1"
    """Where the admin API listens (docs/admin.md)."""
    admin_port: int | None = None
    """The admin API's port (None: no admin API)."""
    admin_token: str | None = None
    """The bearer token every admin request carries (required with ``admin_port``)."""
    drain_limit: float = 600.0
    """Seconds a drain lets live races run before moving their racers to other nodes."""
