"""One node's Prometheus metrics, and the text exposition for ``GET /metrics``.

Each :class:`Metrics` has a registry of its own (not prometheus_client's global one), so several
servers in one process (the tests) never share or clash; each node is scraped on its own port and
says which node it is in ``seahaven_node_info``.

What the server reports:

- the live gauges (rooms, racers, spectators, connections) are read at scrape time from a callback
  the server gives (:class:`LiveCounts`), so no code path has to keep them in step;
- every move request: :meth:`Metrics.move_accepted` or :meth:`Metrics.move_refused` with the error code,
  and its latency from the frame's arrival to the reply;
- the archive backlog (rooms whose finished races wait for the database), read from the store's
  index at scrape time by the ``/metrics`` route;
- the store's stall breaker (open or not, and how often it opened), and plain HTTP answers by
  status code;
- every store call, told by the store's guarded call (:meth:`Metrics.observe`, the store's
  ``Observer``): latency by operation, and failures by operation;
- every doorbell this node heard, by kind (:meth:`Metrics.doorbell`): a node hears only the rooms,
  sessions and players it holds, so a node holding none of a room hears none of its moves.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from protocol.errors import ErrorCode
from server.store.guarded import Breaker

__all__ = ["LiveCounts", "Metrics"]

# Seconds: a move is a few hundred microseconds in memory and about one Redis round trip on Redis;
# the top buckets catch a stalled store (its timeout is 2 s).
LATENCY_BUCKETS = (0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

# What generate_latest() writes. (prometheus_client's CONTENT_TYPE_LATEST now names text format 1.0.0,
# which Prometheus before 3.0 does not know; its own HTTP handlers still answer 0.0.4.)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

REFUSAL_REASONS = frozenset(code.value for code in ErrorCode)
OTHER = "other"
DOORBELL_KINDS = frozenset({"room", "wiped", "session", "player", "arena"})


class Analysed(Protocol):
    """An analyst, as the metrics see it: the analyses it stored since the node started."""

    stored: int


class Latencies:
    """One series of a latency histogram: counts by bucket (the last is +Inf) and their sum."""

    __slots__ = ("counts", "sum")

    def __init__(self) -> None:
        self.counts = [0] * (len(LATENCY_BUCKETS) + 1)
        self.sum = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(LATENCY_BUCKETS, seconds)] += 1  # the first bucket with le >= seconds
        self.sum += seconds


class LatencyHistogram(Collector):
    """A histogram of latencies in ``LATENCY_BUCKETS``, by label values, exposed like
    prometheus_client's ``Histogram``. Ours because the move path observes two per move, and
    that one's lock, per-bucket loop and exemplar check were 4% of the path's instructions
    (callgrind); one event loop observes these, so there is nothing to lock."""

    def __init__(self, name: str, doc: str, labels: Sequence[str], registry: CollectorRegistry) -> None:
        self.name = name
        self.doc = doc
        self.label_names = tuple(labels)
        self.series: dict[tuple[str, ...], Latencies] = {}
        registry.register(self)

    def labels(self, *values: str) -> Latencies:
        """The series of these label values (in ``labels`` order), made on first use."""
        assert len(values) == len(self.label_names)
        series = self.series.get(values)
        if series is None:
            series = self.series[values] = Latencies()
        return series

    def collect(self) -> Iterator[HistogramMetricFamily]:
        family = HistogramMetricFamily(self.name, self.doc, labels=self.label_names)
        bounds = [str(b) for b in LATENCY_BUCKETS] + ["+Inf"]  # as prometheus_client writes them
        for values, series in self.series.items():
            cumulative, total = [], 0
            for bound, count in zip(bounds, series.counts, strict=True):
                total += count
                cumulative.append((bound, float(total)))
            family.add_metric(list(values), cumulative, series.sum)
        yield family


class Tally(Collector):
    """A counter without labels, exposed like prometheus_client's ``Counter`` (``_total`` and
    ``_created``), counted by adding to ``value``. Ours for the reason ``LatencyHistogram`` is: the
    move path counts every move, and that one's ``inc`` is a lock and three calls; one event loop
    counts these."""

    def __init__(self, name: str, doc: str, registry: CollectorRegistry) -> None:
        self.name = name
        self.doc = doc
        self.value = 0
        self.created = time.time()
        registry.register(self)

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily(self.name, self.doc, value=float(self.value), created=self.created)


class LiveCounts(NamedTuple):
    """What a node holds right now."""

    rooms: int
    racers: int
    spectators: int
    connections: int


class Metrics:
    """A node's metrics, each read at a scrape: ``live`` for the live gauges (zeros without it),
    ``breaker`` for the store's stall breaker, ``analyst`` for the analyses stored."""

    def __init__(
        self,
        node: str,
        live: Callable[[], LiveCounts] | None = None,
        *,
        breaker: Breaker | None = None,
        analyst: Analysed | None = None,
    ) -> None:
        self.node = node
        self.registry = CollectorRegistry(auto_describe=True)
        self._live = live or (lambda: LiveCounts(0, 0, 0, 0))
        info = Gauge("seahaven_node_info", "The node these metrics come from.", ["node"], registry=self.registry)
        info.labels(node=node).set(1)

        def gauge(name: str, doc: str, field: int) -> None:
            Gauge(name, doc, registry=self.registry).set_function(lambda: float(self._live()[field]))

        gauge("seahaven_rooms", "Live rooms this node holds.", 0)
        gauge("seahaven_racers", "Racers seated in this node's live rooms.", 1)
        gauge("seahaven_spectators", "Spectators in this node's live rooms.", 2)
        gauge("seahaven_connections", "Open WebSocket connections to this node.", 3)
        self.moves_accepted = Tally("seahaven_moves_accepted", "Move requests accepted and stored.", self.registry)
        self.moves_refused = Counter(
            "seahaven_moves_refused", "Move requests refused, by error code.", ["reason"], registry=self.registry
        )
        self.move_latency = LatencyHistogram(
            "seahaven_move_latency_seconds",
            "From a move request's arrival to its reply being sent, accepted or refused.",
            (),
            self.registry,
        ).labels()
        self.store_errors = Counter(
            "seahaven_store_errors", "Store calls that failed, by operation.", ["operation"], registry=self.registry
        )
        self.doorbells = Counter(
            "seahaven_doorbells_received", "Doorbells this node heard, by kind.", ["kind"], registry=self.registry
        )
        self.store_latency = LatencyHistogram(
            "seahaven_store_latency_seconds",
            "Store call latency, by operation (failed calls included).",
            ("operation",),
            self.registry,
        )
        self._store_series: dict[str, Latencies] = {}
        """``store_latency``'s series by operation, kept here: each store call finds its own in one lookup."""

        self._breaker = breaker
        Gauge(
            "seahaven_store_breaker_open",
            "1 while the store's stall breaker is open (every store call refused at once, /healthz 503).",
            registry=self.registry,
        ).set_function(lambda: float(self._breaker is not None and self._breaker.stalled))
        Gauge(
            "seahaven_store_breaker_trips",
            "Times the stall breaker opened since the node started.",
            registry=self.registry,
        ).set_function(lambda: float(self._breaker.trips if self._breaker is not None else 0))
        self._analysed = analyst
        Gauge(
            "seahaven_analyses_stored",
            "Race analyses this node's analyst stored since the node started (docs/records.md).",
            registry=self.registry,
        ).set_function(lambda: float(self._analysed.stored if self._analysed is not None else 0))
        self.http_requests = Counter(
            "seahaven_http_requests",
            "Plain HTTP requests answered (not WebSocket upgrades), by status code.",
            ["code"],
            registry=self.registry,
        )
        self.archive_backlog = Gauge(
            "seahaven_archive_backlog",
            "Rooms holding finished races not yet in the database (read from the store at each scrape).",
            registry=self.registry,
        )

    def doorbell(self, kind: str) -> None:
        """A doorbell heard (``room``, ``wiped``, ``session``, ``player``, ``arena``; any other kind
        counts as "other")."""
        self.doorbells.labels(kind=kind if kind in DOORBELL_KINDS else OTHER).inc()

    def move_accepted(self, seconds: float) -> None:
        self.moves_accepted.value += 1
        self.move_latency.observe(seconds)

    def move_refused(self, reason: str, seconds: float) -> None:
        """A refused move; ``reason`` is its error code (anything else counts as "other", so a bug can
        never grow the label set without bound)."""
        self.moves_refused.labels(reason=reason if reason in REFUSAL_REASONS else OTHER).inc()
        self.move_latency.observe(seconds)

    def observe(self, operation: str, seconds: float, failed: bool) -> None:
        """One store call (the store's ``Observer``): its latency under ``operation``, and whether it
        failed (a StoreError, a call refused by the stall breaker, a ping with no answer)."""
        if failed:
            self.store_errors.labels(operation=operation).inc()
        series = self._store_series.get(operation)
        if series is None:
            series = self._store_series[operation] = self.store_latency.labels(operation)
        series.observe(seconds)

    def exposition(self) -> tuple[bytes, str]:
        """The body and Content-Type of a ``GET /metrics`` answer (Prometheus text format 0.0.4)."""
        return generate_latest(self.registry), CONTENT_TYPE
