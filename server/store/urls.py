"""The Redis URLs the store opens: one server (``redis://``, ``rediss://``, ``unix://``), a Redis
Cluster given by seed nodes (``redis+cluster://``, ``rediss+cluster://``), or the master of a
service Redis Sentinel watches (``redis+sentinel://``), followed through its failovers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.asyncio.cluster import ClusterNode
from redis.asyncio.connection import SSLConnection, parse_url

__all__ = ["CLUSTER_SCHEMES", "SENTINEL_SCHEME", "Sentinels", "check_url", "cluster_seeds", "describe", "sentinels"]

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
"""URL schemes naming a Redis Cluster (seed nodes), and the plain scheme each one's nodes speak."""

SENTINEL_SCHEME = "redis+sentinel"
"""The URL scheme naming a service's master through Redis Sentinel."""


@dataclass(frozen=True, slots=True)
class Sentinels:
    """What a ``redis+sentinel://`` URL says: the sentinels, the service, the database, and the
    options (credentials) for the master."""

    hosts: list[tuple[str, int]]
    service: str
    db: int
    options: dict[str, Any]


def describe(url: str) -> str:
    """The URL without credentials, for error messages and logs."""
    try:
        parts = urlsplit(url)
        if parts.scheme in CLUSTER_SCHEMES or parts.scheme == SENTINEL_SCHEME:
            return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
        host = parts.hostname or parts.path or "?"
        return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")
    except ValueError:
        return "<unparseable url>"


def cluster_seeds(url: str) -> tuple[list[ClusterNode], dict[str, Any]]:
    """The seed nodes and client options of ``redis+cluster://[user:pass@]host:port[,host:port...][?opts]``.

    Raises ``ValueError`` naming what is wrong (no credentials in the message).
    """
    parts = urlsplit(url)
    credentials, _, hosts = parts.netloc.rpartition("@")
    seeds: list[ClusterNode] = []
    for seed in hosts.split(","):
        host, _, port = seed.rpartition(":")
        host = host.removeprefix("[").removesuffix("]")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{describe(url)}: every cluster seed must be host:port, not {seed!r}")
        seeds.append(ClusterNode(host, int(port)))
    if parts.path not in ("", "/", "/0"):
        raise ValueError(f"{describe(url)}: a Redis Cluster has database 0 only, not {parts.path!r}")
    # The first seed's URL in the nodes' own scheme carries credentials, TLS and ?options.
    first = f"{CLUSTER_SCHEMES[parts.scheme]}://{credentials + '@' if credentials else ''}{hosts.split(',')[0]}"
    options: dict[str, Any] = dict(parse_url(first + (f"?{parts.query}" if parts.query else "")))
    for key in ("host", "port", "db", "path"):
        options.pop(key, None)
    if options.pop("connection_class", None) is SSLConnection:
        options["ssl"] = True
    return seeds, options


def sentinels(url: str) -> Sentinels:
    """The sentinels, service and database of ``redis+sentinel://[user:pass@]host:port[,host:port...]/SERVICE[/DB]``
    (the credentials are the master's). Raises ``ValueError`` naming what is wrong (no credentials)."""
    parts = urlsplit(url)
    credentials, _, hosts = parts.netloc.rpartition("@")
    found: list[tuple[str, int]] = []
    for seed in hosts.split(","):
        host, _, port = seed.rpartition(":")
        host = host.removeprefix("[").removesuffix("]")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{describe(url)}: every sentinel must be host:port, not {seed!r}")
        found.append((host, int(port)))
    path = [p for p in parts.path.split("/") if p]
    if not 1 <= len(path) <= 2 or (len(path) == 2 and not path[1].isdigit()):
        raise ValueError(f"{describe(url)}: a sentinel URL ends in /SERVICE or /SERVICE/DB, not {parts.path!r}")
    options: dict[str, Any] = {}
    if credentials:
        user, has_password, password = credentials.partition(":")
        if has_password:
            options["password"] = unquote(password)
            if user:
                options["username"] = unquote(user)
        else:
            options["password"] = unquote(user)
    return Sentinels(found, path[0], int(path[1]) if len(path) == 2 else 0, options)


def check_url(url: str) -> str:
    """``url`` when it is a Redis URL the store can open (``redis://``, ``rediss://``, ``unix://``, or a
    cluster's ``redis+cluster://host:port[,host:port...]``); ``ValueError`` saying why otherwise."""
    scheme = urlsplit(url).scheme
    if scheme in CLUSTER_SCHEMES:
        cluster_seeds(url)
    elif scheme == SENTINEL_SCHEME:
        sentinels(url)
    elif scheme not in ("redis", "rediss", "unix"):
        raise ValueError(
            f"{describe(url)}: the Redis URL must start with redis://, rediss://, unix://, redis+cluster:// "
            "or redis+sentinel://"
        )
    return url
