"""The Redis URLs the store opens: one server (``redis://``, ``rediss://``, ``unix://``) or a Redis
Cluster given by seed nodes (``redis+cluster://``, ``rediss+cluster://``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from redis.asyncio.cluster import ClusterNode
from redis.asyncio.connection import SSLConnection, parse_url

__all__ = ["CLUSTER_SCHEMES", "check_url", "cluster_seeds", "describe"]

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
"""URL schemes naming a Redis Cluster (seed nodes), and the plain scheme each one's nodes speak."""


def describe(url: str) -> str:
    """The URL without credentials, for error messages and logs."""
    try:
        parts = urlsplit(url)
        if parts.scheme in CLUSTER_SCHEMES:
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


def check_url(url: str) -> str:
    """``url`` when it is a Redis URL the store can open (``redis://``, ``rediss://``, ``unix://``, or a
    cluster's ``redis+cluster://host:port[,host:port...]``); ``ValueError`` saying why otherwise."""
    scheme = urlsplit(url).scheme
    if scheme in CLUSTER_SCHEMES:
        cluster_seeds(url)
    elif scheme not in ("redis", "rediss", "unix"):
        raise ValueError(
            f"{describe(url)}: the Redis URL must start with redis://, rediss://, unix:// or redis+cluster://"
        )
    return url
